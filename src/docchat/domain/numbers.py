"""The numbers an answer states and whether its sources hold them (made by
docchat.grounding.numbers), and the answer's text with those they do not hold marked.

A `NumberCheck` lists each number the model wrote, by its offsets in the answer's text, found or
not found in the passages, docchat's computed figures and the question. Kept with the answer it
lists only the numbers not found one by one (their marks: what the page needs) and counts the
others (`found_unlisted`), so a check read back from the store says the same counts it was made
with. Marking never corrupts the text: a mark whose offsets no longer hold the number as written
(the text was changed since) is left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class StatedNumber:
    """One number as the answer writes it ("$1.2 billion", "3 May 2026", "15th"), where it is in
    the checked text (`text[start:end] == written`), and whether any source holds it."""

    written: str
    start: int
    end: int
    found: bool


@dataclass(frozen=True)
class NumberCheck:
    """The numbers stated in the model-written parts of one answer; `found_unlisted` counts found
    numbers not listed in `stated` (a check read back from the store lists its not-found ones only)."""

    stated: tuple[StatedNumber, ...] = ()
    found_unlisted: int = 0

    @property
    def not_found(self) -> tuple[StatedNumber, ...]:
        return tuple(number for number in self.stated if not number.found)

    @property
    def found_count(self) -> int:
        return sum(number.found for number in self.stated) + self.found_unlisted

    @property
    def stated_count(self) -> int:
        return len(self.stated) + self.found_unlisted

    def as_dict(self) -> dict[str, Any]:
        """As `ask --json`, the API and the store carry it: counts, the numbers not found as
        written, and their marks (offsets in the answer's text) for the page to mark."""
        missing = self.not_found
        return {"stated": self.stated_count, "found": self.found_count, "not_found": len(missing),
                "not_found_numbers": [number.written for number in missing],
                "marks": [{"written": n.written, "start": n.start, "end": n.end} for n in missing]}

    @classmethod
    def from_dict(cls, data: object) -> NumberCheck | None:
        """What `as_dict` wrote (its `found` count and `marks`); None for anything else (an
        answer from before the check, or a damaged record)."""
        if not isinstance(data, dict):
            return None
        found, marks = _count(data.get("found")), data.get("marks")
        if found is None or not isinstance(marks, list):
            return None
        missing = tuple(number for number in map(_mark, marks) if number is not None)
        return cls(stated=missing, found_unlisted=found) if len(missing) == len(marks) else None


def marked(text: str, check: NumberCheck | None, mark: Callable[[str], str]) -> str:
    """`text` with each number not found replaced by `mark(written)`; a mark whose offsets do not
    hold its number as written, or that overlaps one already made, leaves that number as it is."""
    if check is None:
        return text
    result, end = text, len(text) + 1
    # From the end back, so each replacement leaves the offsets before it valid.
    for number in sorted(check.not_found, key=lambda n: n.start, reverse=True):
        if _holds(text, number) and number.end <= end:
            result = result[:number.start] + mark(number.written) + result[number.end:]
            end = number.start
    return result


def _holds(text: str, number: StatedNumber) -> bool:
    return 0 <= number.start < number.end <= len(text) and text[number.start:number.end] == number.written


def _count(value: object) -> int | None:
    """A count or an offset as JSON carries it: a whole number, not negative (not a bool)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _mark(data: object) -> StatedNumber | None:
    if not isinstance(data, dict):
        return None
    written, start, end = data.get("written"), _count(data.get("start")), _count(data.get("end"))
    if not isinstance(written, str) or start is None or end is None or start >= end:
        return None
    return StatedNumber(written, start, end, found=False)


def numbers_line(check: NumberCheck | None) -> str | None:
    """What the page, the terminal and an export say under an answer stating numbers no source
    holds; None when it states none."""
    if check is None or not check.not_found:
        return None
    listed = ", ".join(dict.fromkeys(number.written for number in check.not_found))
    return (f"Not in the sources: {listed} ({len(check.not_found)} of the {check.stated_count} numbers the model "
            "wrote; no passage given, figure computed or word of the question holds them).")

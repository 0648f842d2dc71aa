"""A citation as JSON, both ways: the one mapping between Citation and the dicts it is kept and
sent as. The store's rows, exports and imports, the HTTP API and the terminal client over it all
go through here, so the field names and what a reader forgives live in one place.

Two forms, byte for byte what docchat has always written:
- stored: a message's `citations` column and a JSON export. Every field of Citation under its
  own name, in the dataclass's order (`Citation.as_dict`).
- api: the HTTP API's `CitationOut` (also the `docchat` field of /v1/chat/completions). The
  number is `n`, and a citation with no section says null.

Reading forgives, whatever the form: a citation written by an older version or another
installation may lack any field (older exports carry `page` and `quote` and no number; imported
ones may name no document or chunk). Each missing part takes its default, a missing number is
the citation's place in its list, and an entry that is not an object is skipped.
`Citation.from_dict` reads one stored citation; both forms are read through it.

The store reads every citation of a history it opens. What it wrote itself (every field and no
other) is taken as it is, in one step, without from_dict's checks, which cost twice as much.

Only the domain is imported: the terminal client reads the API's form without loading FastAPI.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, Iterable, Iterator

from docchat.domain import Citation, Grounding

STORED_FIELDS = frozenset(field.name for field in fields(Citation))


def to_stored(citations: Iterable[Citation]) -> list[dict[str, Any]]:
    return [citation.as_dict() for citation in citations]


def to_column(citations: Iterable[Citation], grounding: Grounding | None) -> list[dict[str, Any]] | dict[str, Any]:
    """A message's `citations` column: the passages given as a list, as always; with the check of
    what the answer cited, an object {"given": [...], "grounding": {...}} (no migration: a JSON column)."""
    given = to_stored(citations)
    return given if grounding is None else {"given": given, "grounding": grounding.as_dict()}


def from_column(stored: object) -> tuple[list[Citation], Grounding | None]:
    """What to_column wrote, or a list of citations kept before the check existed."""
    if isinstance(stored, dict):
        given = stored.get("given")
        return from_row(given if isinstance(given, list) else None), Grounding.from_dict(stored.get("grounding"))
    return from_row(stored if isinstance(stored, list) else None), None


def from_stored(stored: Iterable[object] | None) -> list[Citation]:
    """Citations from an export, each checked and filled in: an import trusts nothing it reads."""
    return [Citation.from_dict(item, number=number) for number, item in _objects(stored)]


def from_row(stored: Iterable[object] | None) -> list[Citation]:
    """Citations from a message's row: as to_stored wrote them, taken as they are, or (rows of
    older versions) checked and filled in."""
    # The hot path: _objects, inlined (its generator costs a tenth more over a history).
    return [_as_written(item) if item.keys() == STORED_FIELDS else Citation.from_dict(item, number=number)
            for number, item in enumerate(stored or [], start=1) if isinstance(item, dict)]


def to_api(citation: Citation) -> dict[str, Any]:
    return {"n": citation.number, "document_id": citation.document_id, "document": citation.document,
            "page": citation.page, "section": citation.section or None, "text": citation.text,
            "where": citation.where, "chunk_id": citation.chunk_id, "score": citation.score}


def check_to_api(grounding: Grounding | None) -> dict[str, Any] | None:
    """The citation check as the API, `ask --json` and the terminal client read it: every sentence
    checked, whether it is marked, and what the page says of it ("not found in [2]")."""
    if grounding is None:
        return None
    return {"attributed": grounding.attributed, "cited": list(grounding.cited),
            "sentences": [{"text": s.text, "cited": list(s.cited), "supported": s.supported,
                           "absent_numbers": list(s.absent_numbers), "flagged": s.flagged,
                           "note": grounding.note(s) if s.flagged else None} for s in grounding.sentences],
            # Each number the model wrote, found or not in the passages, the figures and the question.
            "numbers": grounding.numbers.as_dict() if grounding.numbers is not None else None}


def check_from_api(sent: object) -> Grounding | None:
    """What check_to_api wrote (its notes are derived, and read again from the rest)."""
    return Grounding.from_dict(sent)


def from_api(sent: Iterable[object] | None) -> list[Citation]:
    """Citations as the API sends them (to_api); a field that is missing or null takes its default."""
    return [Citation.from_dict({**item, "number": item.get("n")}, number=number) for number, item in _objects(sent)]


def _objects(items: Iterable[object] | None) -> Iterator[tuple[int, dict[str, Any]]]:
    """The entries that are objects, each with its place in the list (counted from 1)."""
    return ((number, item) for number, item in enumerate(items or [], start=1) if isinstance(item, dict))


def _as_written(stored: dict[str, Any]) -> Citation:
    """A Citation holding `stored` as it is, without the frozen dataclass's field-by-field __init__."""
    citation = object.__new__(Citation)
    citation.__dict__.update(stored)
    return citation

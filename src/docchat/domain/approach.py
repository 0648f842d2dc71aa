"""How a question is answered (its plan, chosen by docchat.context.approach before retrieval), and
what the answer covered.

- A lookup: the passages that answer best, from any document in scope (what docchat always did).
- The collection: every document in scope is read, a quota of passages each.
- A comparison: the documents the question names, a quota of passages each, side by side.
- A table: a figure computed over a sheet's rows.

The plan is called an approach in the code: `Plan` is already the split of the model's window
(docchat.context.planner). Wire formats (`ask --json`, the API, an export) call it "plan".
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Way(StrEnum):
    LOOKUP = "lookup"
    COLLECTION = "collection"
    COMPARE = "compare"
    TABLE = "table"


@dataclass(frozen=True)
class Approach:
    """A plan, and the documents it is about: those compared (in the order the question names
    them); none for a lookup or the collection, which take the scope as it is."""

    way: Way
    documents: tuple[str, ...] = ()


LOOKUP = Approach(Way.LOOKUP)


@dataclass(frozen=True)
class Coverage:
    """How many documents in scope an answer read."""

    documents_read: int
    documents_in_scope: int

    def as_dict(self) -> dict[str, int]:
        """As `ask --json`, the API and an export carry it."""
        return {"documents_read": self.documents_read, "documents_in_scope": self.documents_in_scope}

    @classmethod
    def from_dict(cls, data: object) -> Coverage | None:
        """What `as_dict` wrote; None for anything else (an answer from before coverage was kept)."""
        if not isinstance(data, dict):
            return None
        try:
            read, in_scope = data["documents_read"], data["documents_in_scope"]
        except KeyError:
            return None
        if not (isinstance(read, int) and isinstance(in_scope, int)) or not 0 <= read <= in_scope:
            return None
        return cls(read, in_scope)


def approach_line(approach: Approach, names: dict[str, str], in_scope: int) -> str:
    """What the page says of the plan while it answers, from the names of the documents by id."""
    if approach.way is Way.COLLECTION:
        return f"Reading all {in_scope} documents in scope"
    if approach.way is Way.COMPARE:
        shown = [names.get(document, "a document") for document in approach.documents]
        return f"Comparing {_listed(shown)}"
    if approach.way is Way.TABLE:
        return f"Computing from {_listed([names.get(document, 'a table') for document in approach.documents])}"
    return "Searching your documents"


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"

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

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Callable


class Way(StrEnum):
    LOOKUP = "lookup"
    COLLECTION = "collection"
    COMPARE = "compare"
    TABLE = "table"


@dataclass(frozen=True)
class Approach:
    """A plan, and the documents it is about: those compared (in the order the question names
    them), by id and by name; none for a lookup or the collection, which take the scope as it is."""

    way: Way
    documents: tuple[str, ...] = ()
    names: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """As an answer keeps it, and an export carries it."""
        return {"way": self.way.value,
                "documents": [{"id": document, "name": name} for document, name in zip(self.documents, self.names)]}

    @classmethod
    def from_dict(cls, data: object) -> Approach | None:
        """What `as_dict` wrote; None for anything else (an answer from before plans were kept)."""
        if not isinstance(data, dict) or data.get("way") not in _WAYS:
            return None
        documents = data.get("documents")
        pairs = [(str(d["id"]), str(d["name"])) for d in documents if isinstance(d, dict) and "id" in d and "name" in d] \
            if isinstance(documents, list) else []
        return cls(Way(data["way"]), tuple(document for document, _ in pairs), tuple(name for _, name in pairs))


LOOKUP = Approach(Way.LOOKUP)
_WAYS = frozenset(way.value for way in Way)
# The plans a user may ask for.
ASKED_PLANS = tuple(way.value for way in Way)


def asked(plan: str | None) -> Way | None:
    """The plan a user asked for by name (`ask --plan`, the API); None: docchat chooses."""
    return Way(plan) if plan else None


@dataclass(frozen=True)
class Coverage:
    """How many documents in scope an answer read, and those it left out with why, by name."""

    documents_read: int
    documents_in_scope: int
    left_out: tuple[tuple[str, str], ...] = ()
    # More than one: the passages did not fit one prompt, and were read in rounds of notes.
    rounds: int = 1

    def as_dict(self) -> dict[str, Any]:
        """As `ask --json`, the API and an export carry it."""
        return {"documents_read": self.documents_read, "documents_in_scope": self.documents_in_scope,
                "left_out": [{"document": name, "why": why} for name, why in self.left_out], "rounds": self.rounds}

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
        left_out, rounds = data.get("left_out"), data.get("rounds")
        return cls(read, in_scope, tuple(
            (str(item["document"]), str(item.get("why") or "")) for item in left_out
            if isinstance(item, dict) and "document" in item) if isinstance(left_out, list) else (),
            rounds if isinstance(rounds, int) and not isinstance(rounds, bool) and rounds >= 1 else 1)


@dataclass(frozen=True)
class Figure:
    """A figure computed from a sheet's data rows (a table plan): what it is, the sheet it came
    from, the read-only query that computed it, and the rows that query read. A figure per value
    of a column ("the total of Pallets per Location") has `by` and `groups` (each value and its
    figure, in the sheet's order) and no single `value`. A query the served model wrote names the
    model in `written_by` and no rows: docchat cannot tell which of the sheet's rows it read."""

    document_id: str
    document: str
    sheet: str
    what: str  # "the total of Pallets where Location is Oslo"
    value: int | float | None
    sql: str
    rows: tuple[int, ...]  # the rows read, by their numbers in the spreadsheet
    by: str | None = None
    groups: tuple[tuple[str, int | float | None], ...] = ()
    written_by: str = ""  # the model that wrote the query; "" for docchat
    # For a figure per value: the rows each value's figure read, in the order of `groups`
    # (none for a model's query, and for a figure kept before they were).
    group_rows: tuple[tuple[int, ...], ...] = ()
    # "highest" or "lowest": `groups` are the values of `by` that rank first by their figure (one,
    # or those tied), not every value ("the Warehouse with the highest total of Pallets").
    ranked: str = ""
    # One text cell looked up ("What was the weather on 2013-07-04?": "sun"), in place of `value`.
    text: str = ""
    # The question's words that could change the figure and that docchat's reading did not use
    # ("second" of "the second highest"): none, and the figure is docchat's; some, and it is said as
    # unsure, with its reading (docchat.tables.linking).
    unread: tuple[str, ...] = ()
    # The currency or unit the figure is in, as its column writes it ("$", "NOK", "km", "%"), or "".
    unit: str = ""
    # The sheet's cell values the question names ("Harbour Supply"): its words' link to the sheet,
    # which the plan is chosen by (issue 55). Not kept nor sent: once answered, the plan is made.
    named: tuple[str, ...] = field(default=(), compare=False)

    @property
    def shown_value(self) -> str:
        if self.text:
            return self.text
        if self.ranked:
            return " and ".join(group or "(blank)" for group, _ in self.groups) + \
                f", at {with_unit(_shown(self.groups[0][1] if self.groups else None), self.unit)}" \
                f"{' each' if len(self.groups) > 1 else ''}"
        if self.by is not None:
            return "; ".join(f"{group or '(blank)'}: {with_unit(_shown(value), self.unit)}" for group, value in self.groups)
        return with_unit(_shown(self.value), self.unit)

    @property
    def result(self) -> str:
        """What it computed and the figure, in words: "the total of Pallets where Location is Oslo
        is 245"; "the total of Pallets per Location is Oslo: 245; Bergen: 85"."""
        return f"{self.what} is {self.shown_value}"

    @property
    def statement(self) -> str:
        """The figure as the model is given it, first among the passages."""
        if self.unread:
            return (f"docchat's reading of the question, of which it is unsure (it did not read "
                    f"{unread_named(self.unread)}): computed from {self.document} › {self.sheet}, over "
                    f"{rows_named(self.rows) if self.rows else 'no row'}: {self.result}.")
        if self.written_by:
            return (f"Computed by a query {self.written_by} wrote, run by docchat over the data rows of "
                    f"{self.document} › {self.sheet} (subtotal and total rows left out): {self.result}.")
        return (f"Computed by docchat from {self.document} › {self.sheet}, over {rows_named(self.rows)} (subtotal "
                f"and total rows left out): {self.result}.")

    @property
    def where(self) -> str:
        return f"{self.sheet}, {rows_named(self.rows)}" if self.rows else self.sheet

    def as_dict(self) -> dict[str, Any]:
        """As `ask --json`, the API, an export and the answer's stored figures carry it: the query,
        its result (one column named by what it computes, one row; per value of a column, that
        column first and a row per value), and where it read."""
        if self.by is not None:
            columns, rows = [self.by, self.what], [[group, value] for group, value in self.groups]
        else:
            columns, rows = [self.what], [[self.text or self.value]]
        # "written_by" only for a model's query: a figure docchat computed is written as before.
        return {"sql": self.sql, "columns": columns, "rows": rows, "document": self.document,
                "document_id": self.document_id, "sheet": self.sheet, "where": self.where,
                "rows_read": list(self.rows), **({"written_by": self.written_by} if self.written_by else {}),
                **({"group_rows": [list(rows) for rows in self.group_rows]} if self.group_rows else {}),
                **({"ranked": self.ranked} if self.ranked else {}),
                **({"unread": list(self.unread)} if self.unread else {}),
                **({"unit": self.unit} if self.unit else {})}

    @classmethod
    def from_dict(cls, data: object) -> Figure | None:
        """What `as_dict` wrote; None for anything else."""
        if not isinstance(data, dict):
            return None
        try:
            columns, result = data["columns"], data["rows"]
            if not isinstance(columns, list) or len(columns) not in (1, 2):
                return None
            rows = tuple(int(row) for row in data["rows_read"])
            fields = (str(data["document_id"]), str(data["document"]), str(data["sheet"]), str(columns[-1]))
            sql, written_by = str(data["sql"]), str(data.get("written_by") or "")
            kept_unread = data.get("unread")
            unread = tuple(str(word) for word in kept_unread) if isinstance(kept_unread, list) else ()
            unit = str(data.get("unit") or "")
            if len(columns) == 2:
                groups = tuple(("" if group is None else str(group), number(value)) for group, value in result)
                kept = data.get("group_rows")
                per = tuple(tuple(int(row) for row in read) for read in kept) if isinstance(kept, list) else ()
                ranked = data.get("ranked")
                return cls(*fields, None, sql, rows, by=str(columns[0]), groups=groups, written_by=written_by,
                           group_rows=per if len(per) == len(groups) else (),
                           ranked=ranked if ranked in ("highest", "lowest") else "", unread=unread, unit=unit)
            [[value]] = result
        except (KeyError, TypeError, ValueError, IndexError):
            return None
        return cls(*fields, number(value), sql, rows, written_by=written_by, text=value if isinstance(value, str) else "",
                   unread=unread, unit=unit)


def number(value: object) -> int | float | None:
    """A figure as a query or a stored answer gave it: a number, else None (a bool is not one)."""
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _shown(value: int | float | None) -> str:
    if value is None:
        return "none (no value in those rows)"
    if isinstance(value, int) or float(value).is_integer():
        return f"{int(value)}"
    return format(round(value, 4), "f").rstrip("0").rstrip(".")


def with_unit(shown: str, unit: str, written: Callable[[str], str] = str) -> str:
    """A figure with its currency or unit as tables write them: "$18,150", "NOK 420", "12.5 km",
    "12%"; `written`: how the unit is written (escaped for Markdown)."""
    if not unit or shown.startswith("none"):
        return shown
    if unit in ("$", "US$", "€", "£", "¥", "₹"):
        sign, digits = ("-", shown[1:]) if shown.startswith("-") else ("", shown)
        return f"{sign}{written(unit)}{digits}"
    if unit.isupper():  # a currency's code: NOK 420
        return f"{unit} {shown}"
    return f"{shown}{unit}" if unit == "%" else f"{shown} {written(unit)}"


def unread_named(words: tuple[str, ...]) -> str:
    """("second", "median") -> '“second” and “median”'."""
    quoted = [f"“{word}”" for word in words]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def rows_named(rows: tuple[int, ...]) -> str:
    """(2, 3, 4, 7) -> "rows 2-4, 7"; (5,) -> "row 5"."""
    return f"row {rows[0]}" if len(rows) == 1 else f"rows {row_spans(rows)}"


def row_spans(rows: tuple[int, ...]) -> str:
    """2, 3, 4, 7 -> "2-4, 7"."""
    spans: list[list[int]] = []
    for row in sorted(rows):
        if spans and row == spans[-1][1] + 1:
            spans[-1][1] = row
        else:
            spans.append([row, row])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)


def approach_line(approach: Approach, in_scope: int) -> str:
    """What the page says of the plan while it answers."""
    if approach.way is Way.COLLECTION:
        return f"Reading all {in_scope} documents in scope"
    if approach.way is Way.COMPARE:
        return f"Comparing {listed(list(approach.names) or ['the documents'])}"
    if approach.way is Way.TABLE:
        return f"Computing from {listed(list(approach.names) or ['a table'])}"
    return "Searching your documents"


def covered_line(approach: Approach | None, coverage: Coverage | None, table: Figure | None = None, *,
                 stated: bool = False) -> str | None:
    """What the page, the terminal and an export say of an answer's plan once it is written; None
    for a lookup (how docchat always answered), an answer from before plans were kept, and a
    figure the answer itself states (`stated`: docchat.domain.stated says where it came from)."""
    if approach is None or approach.way is Way.LOOKUP:
        return None
    if table is not None:
        if stated:
            return None
        by = f" by a query {table.written_by} wrote" if table.written_by else ""
        if table.unread:
            return (f"docchat's reading, unsure (it did not read {unread_named(table.unread)}), computed from "
                    f"{table.document} › {table.where}: {table.result}.")
        return f"Computed from {table.document} › {table.where}{by}: {table.result}."
    done = {Way.COLLECTION: "Read every document in scope",
            Way.COMPARE: f"Compared {listed(list(approach.names) or ['the documents'])}",
            Way.TABLE: f"Computed from {listed(list(approach.names) or ['a table'])}"}[approach.way]
    if coverage is None:
        return f"{done}."
    if coverage.rounds > 1:
        done += f" in {coverage.rounds} rounds"
    line = f"{done}: covered {coverage.documents_read} of {coverage.documents_in_scope} documents."
    if coverage.left_out:
        line += " Left out: " + "; ".join(f"{name} ({why})" if why else name for name, why in coverage.left_out) + "."
    return line


def listed(items: list[str]) -> str:
    """"Stock", "Stock and Lead times", "a, b and c"."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"

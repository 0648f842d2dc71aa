"""Figures computed from the tables docchat keeps (sheets, and the tables of documents): the
query docchat's reader writes for a question (docchat.tables.query), or one the served
model wrote (docchat.tables.model_query), run read-only over a table's data rows by the
SheetTables adapter. The answer pipeline reaches it through the Figures port, beside retrieval's
Retriever."""

from __future__ import annotations

import builtins
import logging
import math
from collections.abc import Callable, Sequence

from docchat.domain.approach import Figure, number
from docchat.domain.documents import TableShape, quoted
from docchat.errors import DocchatError, InvalidInput, UnusableOutput
from docchat.ports import Embedder, SheetTables
from docchat.tables.linking import unread_words, written_out
from docchat.tables.naming import in_table_words
from docchat.tables.model_query import FIRST_ROWS, described, figure_of, plain_names, statement, wrapped
from docchat.tables.query import asks_a_figure, looks_up, table_query
from docchat.tables.shares import shares_read
from docchat.tables.values import VALUES_READ, values_named

log = logging.getLogger(__name__)

# A figure computed from a sheet runs for at most this long (a sheet holds at most 100,000 rows).
FIGURE_TIMEOUT_S = 2.0
# A figure per value of a column lists at most this many values; past it the passages answer.
GROUPS_SHOWN = 50


class FigureService:
    def __init__(self, tables: SheetTables | None, embedder: Embedder | None = None):
        self._tables = tables  # None: no table is kept, and no figure is computed
        self._embedder = embedder  # links a question's word to the column it means (docchat.tables.naming)
        self._named: dict[str, list[float]] = {}  # each column name's vector, made once

    def figure(self, question: str, in_scope: Sequence[tuple[str, str]]) -> Figure | None:
        """The figure the question asks of a sheet of the documents in scope (id, name), computed
        over its data rows (docchat.tables.query); None when there is no sheet, or no
        figure it can compute. A question asking none opens no file."""
        tables = self._tables
        if tables is None or not in_scope or not (asks_a_figure(question) or looks_up(question)):
            return None
        names = dict(in_scope)
        read: dict[tuple[str, str], builtins.list[str]] = {}

        def values(shape: TableShape, column: str) -> builtins.list[str]:
            if (shape.table, column) not in read:
                read[shape.table, column] = _values(tables, shape, column)
            return read[shape.table, column]

        try:
            shapes = tables.shapes(builtins.list(names))
            question = in_table_words(written_out(question), shapes, values, self._near if self._embedder else None)
            query = table_query(question, shapes, values, {shape.table: names[shape.document_id] for shape in shapes})
            if query is None:
                return None
            result = tables.run(query.sql, max_rows=GROUPS_SHOWN if query.by else 1, timeout_s=FIGURE_TIMEOUT_S)
            named = values_named(question, query.shape, values)
        except DocchatError as error:  # a damaged or unreadable tables file: the passages answer
            log.warning("no figure computed from the sheets: %s", error)
            return None
        found: builtins.list[tuple[object, ...]] = builtins.list(result.rows)
        if query.ranked and found:
            # The first value and those tied with it: ranked, the rest of the values are not needed.
            found = [row for row in found if row[1] == found[0][1]]
            if query.counts_rows and found[0][1] == 1:
                return None  # "which state is the largest", no column named: a row each, every one "first"
        elif not found or result.truncated or (query.by is None and not found[0][1]):
            return None  # no row holds what it names, or too many values to list: the passages answer
        rows = tuple(sorted(int(row) for *_, used in found for row in str(used).split(",")))
        shape = query.shape
        unread = unread_words(question, query.what,
                              (names[shape.document_id], shape.sheet, *(column for column, _ in shape.columns)))
        unread = shares_read(unread, query.sql, question, lambda table, column: _span(tables, table, column))
        if query.by is None:
            value = found[0][0]
            return Figure(shape.document_id, names[shape.document_id], shape.sheet, query.what, number(value),
                          query.sql, rows, named=named, text=value if isinstance(value, str) else "", unread=unread,
                          unit=query.unit)
        return Figure(shape.document_id, names[shape.document_id], shape.sheet, query.what, None, query.sql, rows,
                      by=query.by, groups=tuple(("" if per is None else str(per), number(value))
                                                for per, value, *_ in found),
                      group_rows=tuple(tuple(sorted(int(row) for row in str(used).split(","))) if used else ()
                                       for *_, used in found), ranked=query.ranked, named=named, unread=unread,
                      unit=query.unit)

    def _near(self, words: builtins.list[str], names: builtins.list[str]) -> builtins.list[builtins.list[float]]:
        """The cosine of each word's vector with each name's (the library's encoder)."""
        assert self._embedder is not None
        new = [name for name in dict.fromkeys(names) if name not in self._named]
        try:
            vectors = self._embedder.embed(words + new)
        except Exception as error:  # an embeddings server down, say: no word linked by meaning, the figure still read
            log.warning("no word of the question linked to a column by meaning: %s", error)
            return [[0.0] * len(names) for _ in words]
        self._named.update(zip(new, (_unit(vector) for vector in vectors[len(words):]), strict=True))
        return [[sum(a * b for a, b in zip(_unit(vector), self._named[name], strict=True)) for name in names]
                for vector in vectors[:len(words)]]

    def sheets(self, in_scope: Sequence[tuple[str, str]]) -> builtins.list[TableShape]:
        """The sheets kept as tables of the documents in scope (id, name)."""
        if self._tables is None or not in_scope:
            return []
        try:
            return self._tables.shapes([document for document, _ in in_scope])
        except DocchatError as error:
            log.warning("the sheets kept as tables could not be read: %s", error)
            return []

    def written_figure(self, shapes: Sequence[TableShape], names: dict[str, str], write: Callable[[str], str], *,
                       model: str) -> Figure:
        """The figure of the query `write(tables described)` returns, run over the sheets'
        data rows (docchat.tables.model_query); UnusableOutput when it is no query, is
        refused, reads no sheet shown or gives no figure."""
        tables = self._tables
        if tables is None:
            raise UnusableOutput("no sheet is kept as a table")
        named = plain_names(shapes)
        sql = statement(write(described(named, names, lambda shape: tables.run(
            f"SELECT {', '.join(quoted(column) for column, _ in shape.columns)} FROM {shape.table} "
            f"WHERE _kind = 'row' ORDER BY _row", max_rows=FIRST_ROWS, timeout_s=FIGURE_TIMEOUT_S).rows)))
        try:
            result = tables.run(wrapped(sql, named), max_rows=GROUPS_SHOWN, timeout_s=FIGURE_TIMEOUT_S)
        except InvalidInput as error:
            raise UnusableOutput(str(error)) from None
        return figure_of(result, named, names, sql, model)


def _span(tables: SheetTables, table: str, column: str) -> tuple[object, object]:
    """A numeric column's lowest and highest value over a table's data rows; (None, None) where
    they cannot be read."""
    try:
        low, high = tables.run(f"SELECT MIN({quoted(column)}), MAX({quoted(column)}) FROM {table} WHERE _kind = 'row'",
                               max_rows=1, timeout_s=FIGURE_TIMEOUT_S).rows[0]
    except DocchatError as error:
        log.warning("the range of a column of the sheets could not be read: %s", error)
        return None, None
    return low, high


def _unit(vector: Sequence[float]) -> builtins.list[float]:
    norm = math.sqrt(sum(x * x for x in vector)) or 1.0
    return [x / norm for x in vector]


def _values(tables: SheetTables, shape: TableShape, column: str) -> builtins.list[str]:
    """The distinct values of a text column's data rows."""
    query = (f"SELECT DISTINCT {quoted(column)} FROM {shape.table} WHERE _kind = 'row' "
             f"AND {quoted(column)} IS NOT NULL")
    return [str(row[0]) for row in tables.run(query, max_rows=VALUES_READ, timeout_s=FIGURE_TIMEOUT_S).rows]

"""Shares (issue 55): "the Greens' average share", "what share of the vote did Trump get in Ohio",
"a literacy rate below 30 percent" are of a column holding shares, so its figure reads the word
"share" or "percent" with it. docchat.tables.linking keeps those words unread otherwise: "what
share of the passengers survived" asks a fraction of the rows, which no query here computes.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_SHARES = frozenset(("share", "percent", "percentage"))
_AGGREGATED = re.compile(r'\b(?:AVG|MAX|MIN)\("((?:[^"]|"")+)"\)')
_BOUNDED = re.compile(r'"((?:[^"]|"")+)" (?:<|>|<=|>=) -?\d')
_PERCENT_BOUND = re.compile(r"\d\s*(?:percent|per\s+cent)\b", re.IGNORECASE)
_SHARE_WORD = re.compile(r"\b(?:share|percent|percentage|per\s+cent|proportion|fraction)\b", re.IGNORECASE)
_TABLE = re.compile(r"\bFROM (\w+)")


def shares_read(unread: tuple[str, ...], sql: str, question: str,
                span: Callable[[str, str], tuple[object, object]]) -> tuple[str, ...]:
    """`unread` less its share words, where the figure `sql` computes is of a column of shares: its
    highest, lowest or average, or one cell (a lookup is a MAX of one row), or rows counted by a
    bound in percent ("above 50 percent"), each column so read holding values from 0 to 100, some
    above 1 (not a column of 0s and 1s). `span(table, column)`: the column's lowest and highest."""
    if not any(word.lower() in _SHARES for word in unread) or "SUM(" in sql or "COUNT(DISTINCT" in sql:
        return unread  # shares added up are no share
    counting = "COUNT(*) AS value" in sql
    columns = set(_BOUNDED.findall(sql) if counting else _AGGREGATED.findall(sql))
    table = _TABLE.search(sql)
    # Counting, each share word is a bound's unit: "what percentage of the departments had a literacy
    # below 30 percent" asks a fraction of the rows.
    if not columns or table is None or (
            counting and len(_PERCENT_BOUND.findall(question)) != len(_SHARE_WORD.findall(question))):
        return unread
    for column in columns:
        low, high = span(table.group(1), column.replace('""', '"'))
        if not (isinstance(low, int | float) and isinstance(high, int | float) and 0 <= low and 1 < high <= 100):
            return unread
    return tuple(word for word in unread if word.lower() not in _SHARES)

"""Ranked full-text search over message content and titles.

SQLite uses the FTS5 tables the first migration creates; other databases fall back to a
case-insensitive substring match until their own index (tsvector) lands.
"""

from __future__ import annotations

import re

from sqlalchemy import Connection, bindparam, func, or_, select, text

from docchat.domain import SearchHit
from docchat.store.tables import conversations, messages

SNIPPET_OPEN, SNIPPET_CLOSE = "«", "»"
_WORD = re.compile(r"\w+", re.UNICODE)
# A title hit says more about a conversation than one line somewhere in it.
_TITLE_WEIGHT = 2.0

# The best-ranked message of each conversation first, then snippets for just those rows:
# a conversation that matches a thousand times must not crowd the others out.
# bm25() cannot sit inside a window function, so the matches are materialised first.
_FTS_BEST_MESSAGES = text(
    """
    WITH matches AS MATERIALIZED (
        SELECT m.conversation_id AS conversation_id, m.pk AS pk, bm25(messages_fts) AS rank
        FROM messages_fts
        JOIN messages m ON m.pk = messages_fts.rowid
        JOIN conversations c ON c.id = m.conversation_id
        WHERE messages_fts MATCH :query AND c.deleted_at IS NULL
    )
    SELECT conversation_id, pk, rank FROM (
        SELECT conversation_id, pk, rank,
               ROW_NUMBER() OVER (PARTITION BY conversation_id ORDER BY rank) AS place
        FROM matches
    ) WHERE place = 1 ORDER BY rank LIMIT :limit
    """
)
_FTS_SNIPPETS = text(
    f"""
    SELECT m.conversation_id AS conversation_id, c.title AS title, m.seq AS seq,
           snippet(messages_fts, 0, '{SNIPPET_OPEN}', '{SNIPPET_CLOSE}', '…', 12) AS snippet,
           bm25(messages_fts) AS rank
    FROM messages_fts
    JOIN messages m ON m.pk = messages_fts.rowid
    JOIN conversations c ON c.id = m.conversation_id
    WHERE messages_fts MATCH :query AND messages_fts.rowid IN :pks
    """
).bindparams(bindparam("pks", expanding=True))
_FTS_TITLES = text(
    f"""
    SELECT c.id AS conversation_id, c.title AS title, NULL AS seq,
           highlight(conversations_fts, 0, '{SNIPPET_OPEN}', '{SNIPPET_CLOSE}') AS snippet,
           bm25(conversations_fts) AS rank
    FROM conversations_fts
    JOIN conversations c ON c.pk = conversations_fts.rowid
    WHERE conversations_fts MATCH :query AND c.deleted_at IS NULL
    ORDER BY rank LIMIT :limit
    """
)


def fts_query(user_text: str) -> str | None:
    """Turns free text into an FTS5 query: every word must match, the last one as a prefix.

    Quoting each word means FTS5 operators typed by the user (AND, NEAR, quotes,
    parentheses) are searched for as words instead of breaking the query.
    """
    words = _WORD.findall(user_text)
    if not words:
        return None
    quoted = [f'"{word}"' for word in words]
    quoted[-1] += "*"
    return " ".join(quoted)


def search_conversations(db: Connection, user_text: str, *, limit: int) -> list[SearchHit]:
    if db.dialect.name == "sqlite":
        query = fts_query(user_text)
        if query is None:
            return []
        best_rows = [row.pk for row in db.execute(_FTS_BEST_MESSAGES, {"query": query, "limit": limit})]
        hits = [_hit(row) for row in db.execute(_FTS_SNIPPETS, {"query": query, "pks": best_rows})] if best_rows else []
        hits += [_hit(row, weight=_TITLE_WEIGHT) for row in db.execute(_FTS_TITLES, {"query": query, "limit": limit})]
    else:
        hits = [_hit(row) for row in _substring_rows(db, user_text, limit=limit * 10)]
    best: dict[str, SearchHit] = {}
    for hit in hits:
        if hit.conversation_id not in best or hit.rank < best[hit.conversation_id].rank:
            best[hit.conversation_id] = hit
    return sorted(best.values(), key=lambda hit: hit.rank)[:limit]


def _hit(row, weight: float = 1.0) -> SearchHit:
    # bm25() is negative, better matches more so; the weight pushes title hits further down.
    return SearchHit(row.conversation_id, row.title, row.snippet, row.seq, float(row.rank) * weight)


def _substring_rows(db: Connection, user_text: str, *, limit: int):
    pattern = f"%{user_text.strip().lower()}%"
    query = (
        select(
            conversations.c.id.label("conversation_id"),
            conversations.c.title,
            messages.c.seq,
            func.substr(messages.c.content, 1, 160).label("snippet"),
            (-messages.c.seq).label("rank"),
        )
        .join(messages, messages.c.conversation_id == conversations.c.id)
        .where(
            conversations.c.deleted_at.is_(None),
            or_(func.lower(messages.c.content).like(pattern), func.lower(conversations.c.title).like(pattern)),
        )
        .limit(limit)
    )
    return list(db.execute(query))

"""Ranked full-text search over message content and titles.

SQLite uses the FTS5 tables of migrations 0001 and 0007 (BM25, snippet()); PostgreSQL the
indexed search_vector columns of migration 0006 (ts_rank, ts_headline). Both take every word
typed, the last one as a prefix, rank the best message of each conversation, weigh a title hit
double, and mark the matched words in the snippet with « ». A query matching more than
RANKED_MATCHES messages ranks about that many, spread over the whole history (on PostgreSQL,
each conversation's newest), so that it answers within tens of milliseconds however many
messages hold its words.
"""

from __future__ import annotations

import re

from sqlalchemy import Connection, text

from docchat.domain import SearchHit

SNIPPET_OPEN, SNIPPET_CLOSE = "«", "»"
ELLIPSIS = "…"
_WORD = re.compile(r"\w+", re.UNICODE)
# A title hit says more about a conversation than one line somewhere in it.
_TITLE_WEIGHT = 2.0

# Ranking every message that holds a common word (30,000 of them) took 0.1-0.5 s: bm25() reads
# each match's positions, and finding each match's conversation reads its row, 1-2 µs each on
# two cores, while counting the matches costs a fraction of that. So a query matching more
# than RANKED_MATCHES messages ranks about that many of them, spread evenly over the history:
# every part of it has its say, however much one long conversation matches. A query matching
# fewer ranks every match, as it always did.
RANKED_MATCHES = 2_000
# When those leave fewer conversations than asked for, the rest are found among all matches.
RANKED_PER_CONVERSATION = 20

# SQLite's statements go to the driver's cursor as they are: SQLAlchemy's per-row result layer
# and its expanding lists cost more than FTS5's own work here.
_FTS_COUNT = "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?"
_FTS_RANKED = """
    SELECT messages_fts.rowid, m.conversation_id, bm25(messages_fts)
    FROM messages_fts
    JOIN messages m ON m.pk = messages_fts.rowid
    JOIN conversations c ON c.id = m.conversation_id
    WHERE messages_fts MATCH ? AND c.deleted_at IS NULL"""
# The sample is taken by Fibonacci hashing: the rowid times 2^32/φ, modulo 2^32, is below the
# cut for that share of rowids, spread evenly along any stride of them, so neither the turns'
# alternation nor conversations of one length leave a role or a place in them out. It is
# decided inside FTS5's one pass over the matches, where a list of rowids to rank cost a
# first pass to list them and a lookup per match. (The product stays a 64-bit integer for
# the first three billion rowids.)
_FTS_RANKS_SAMPLED = _FTS_RANKED + " AND ((messages_fts.rowid * 2654435769) & 4294967295) < ?"
_FTS_RANKS_ELSEWHERE = _FTS_RANKED + " AND m.conversation_id NOT IN ({})"
_SHOWN_ROWS = """
    SELECT m.pk, m.conversation_id, c.title, m.seq
    FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE m.pk IN ({})
"""
# snippet() for the rows shown only. As FTS5's own constraint, `rowid IN (...)` would run the
# whole query once per row (0.6 s for a short prefix such as "re"): the range goes to FTS5, and
# the `+` keeps the list a plain filter on the rows it returns.
_FTS_SNIPPETS = f"""
    SELECT rowid, snippet(messages_fts, 0, '{SNIPPET_OPEN}', '{SNIPPET_CLOSE}', '{ELLIPSIS}', 12)
    FROM messages_fts
    WHERE messages_fts MATCH ? AND rowid >= ? AND +rowid IN ({{}})
"""
_FTS_TITLES = f"""
    SELECT c.id, c.title, highlight(conversations_fts, 0, '{SNIPPET_OPEN}', '{SNIPPET_CLOSE}'),
           bm25(conversations_fts) AS rank
    FROM conversations_fts
    JOIN conversations c ON c.pk = conversations_fts.rowid
    WHERE conversations_fts MATCH ? AND c.deleted_at IS NULL
    ORDER BY rank LIMIT ?
"""

# PostgreSQL's parser reads "ZX-4471" as "zx" and "-4471", "0.4" as one number, an e-mail
# address as one word; FTS5 (and docchat's query terms) cut them into plain words. Migration
# 0006 makes these characters spaces before it builds each search_vector, and snippets are
# cut from text spaced out the same way, so that they mark the words that matched.
_SEPARATORS = "-./:@+_~?=&%#$*^|<>"
_SPACED = str.maketrans(_SEPARATORS, " " * len(_SEPARATORS))


def _spaced(column: str) -> str:
    return f"translate({column}, '{_SEPARATORS}', '{' ' * len(_SEPARATORS)}')"


_TSQUERY = "to_tsquery('english', :query)"
# ts_rank's normalisation 1 divides by the log of the length: a word in a short message
# counts for more than the same word in a long one, as with BM25.
# PostgreSQL joins every match to its conversation in a few milliseconds: the ranked matches
# are each conversation's newest RANKED_PER_CONVERSATION, RANKED_MATCHES at most.
_PG_BEST_MESSAGES = text(
    f"""
    WITH found AS MATERIALIZED (
        SELECT pk FROM (
            SELECT m.pk AS pk,
                   ROW_NUMBER() OVER (PARTITION BY m.conversation_id ORDER BY m.pk DESC) AS place
            FROM messages m JOIN conversations c ON c.id = m.conversation_id
            WHERE m.search_vector @@ {_TSQUERY} AND c.deleted_at IS NULL
        ) numbered WHERE place <= :per_conversation ORDER BY pk DESC LIMIT :ranked
    ), matches AS (
        SELECT m.conversation_id AS conversation_id, m.pk AS pk,
               ts_rank(m.search_vector, {_TSQUERY}, 1) AS score
        FROM found JOIN messages m ON m.pk = found.pk
    ), best AS (
        SELECT conversation_id, pk, score FROM (
            SELECT conversation_id, pk, score,
                   ROW_NUMBER() OVER (PARTITION BY conversation_id ORDER BY score DESC, pk) AS place
            FROM matches
        ) ranked WHERE place = 1 ORDER BY score DESC LIMIT :limit
    )
    SELECT best.conversation_id AS conversation_id, c.title AS title, m.seq AS seq, m.content AS content,
           ts_headline('english', {_spaced('m.content')}, {_TSQUERY}, :options) AS snippet, -best.score AS rank
    FROM best JOIN messages m ON m.pk = best.pk JOIN conversations c ON c.id = best.conversation_id
    """
)
_PG_TITLES = text(
    f"""
    SELECT c.id AS conversation_id, c.title AS title, NULL AS seq, c.title AS content,
           ts_headline('english', {_spaced('c.title')}, {_TSQUERY}, :options) AS snippet,
           -ts_rank(c.search_vector, {_TSQUERY}, 1) AS rank
    FROM conversations c
    WHERE c.search_vector @@ {_TSQUERY} AND c.deleted_at IS NULL
    ORDER BY rank LIMIT :limit
    """
)
_MARKS = f'StartSel="{SNIPPET_OPEN}", StopSel="{SNIPPET_CLOSE}"'
# One fragment of about a dozen words around the best match, like snippet(..., 12) above.
_PG_SNIPPET = f"{_MARKS}, MaxFragments=1, MaxWords=12, MinWords=6"
_PG_HIGHLIGHT = f"{_MARKS}, HighlightAll=true"


def fts_query(user_text: str) -> str | None:
    """Turns free text into an FTS5 query: every word must match, the last one as a prefix.

    Quoting each word means FTS5 operators typed by the user (AND, NEAR, quotes,
    parentheses) are searched for as words instead of breaking the query.
    """
    return _all_words(user_text, quote='"', prefix="*", join=" ")


def ts_query(user_text: str) -> str | None:
    """The same query for PostgreSQL's to_tsquery(): quoted words joined by &, the last one a
    prefix (`:*`). Words hold no quotes, so nothing typed is read as an operator."""
    return _all_words(user_text, quote="'", prefix=":*", join=" & ")


def _all_words(user_text: str, *, quote: str, prefix: str, join: str) -> str | None:
    """Every word quoted, the last one marked as a prefix: the query both databases are sent."""
    words = _WORD.findall(user_text)
    if not words:
        return None
    quoted = [f"{quote}{word}{quote}" for word in words]
    quoted[-1] += prefix
    return join.join(quoted)


def search_conversations(db: Connection, user_text: str, *, limit: int) -> list[SearchHit]:
    if db.dialect.name == "sqlite":
        hits = _sqlite_hits(db, user_text, limit=limit)
    else:
        hits = _postgresql_hits(db, user_text, limit=limit)
    best: dict[str, SearchHit] = {}
    for hit in hits:
        if hit.conversation_id not in best or hit.rank < best[hit.conversation_id].rank:
            best[hit.conversation_id] = hit
    return sorted(best.values(), key=lambda hit: hit.rank)[:limit]


def _sqlite_hits(db: Connection, user_text: str, *, limit: int) -> list[SearchHit]:
    query = fts_query(user_text)
    if query is None:
        return []
    driver = db.connection.driver_connection
    titles = [SearchHit(id, title, snippet, None, rank * _TITLE_WEIGHT)
              for id, title, snippet, rank in driver.execute(_FTS_TITLES, (query, limit))]
    [(matches,)] = driver.execute(_FTS_COUNT, (query,)).fetchall()
    if not matches:
        return titles
    best: dict[str, tuple[float, int]] = {}
    if matches <= RANKED_MATCHES:
        _keep_best(best, driver.execute(_FTS_RANKED, (query,)))
    else:
        _keep_best(best, driver.execute(_FTS_RANKS_SAMPLED, (query, 2**32 * RANKED_MATCHES // matches)))
        if len(best) < limit:
            _keep_best(best, driver.execute(_FTS_RANKS_ELSEWHERE.format(_marks(best)), (query, *best)))
    shown = {pk: rank for rank, pk in sorted(best.values())[:limit]}
    if not shown:
        return titles
    snippets = dict(driver.execute(_FTS_SNIPPETS.format(_marks(shown)), (query, min(shown), *shown)))
    rows = sorted(driver.execute(_SHOWN_ROWS.format(_marks(shown)), tuple(shown)))
    return [SearchHit(conversation_id, title, snippets.get(pk, ""), seq, float(shown[pk]))
            for pk, conversation_id, title, seq in rows] + titles


def _marks(values) -> str:
    return ", ".join("?" * len(values))


def _keep_best(best: dict[str, tuple[float, int]], rows) -> None:
    """Each conversation's best (rank, pk) into `best`. Rows come in the order they were
    stored, as FTS5 gives them: of matches that rank alike, the first stays."""
    for pk, conversation_id, rank in rows:
        if conversation_id not in best or rank < best[conversation_id][0]:
            best[conversation_id] = (rank, pk)


def _postgresql_hits(db: Connection, user_text: str, *, limit: int) -> list[SearchHit]:
    query = ts_query(user_text)
    if query is None:
        return []
    hits = [_hit(row, snippet=unspaced(row.snippet, row.content))
            for row in db.execute(_PG_BEST_MESSAGES, {"query": query, "limit": limit, "ranked": RANKED_MATCHES,
                                                      "per_conversation": RANKED_PER_CONVERSATION,
                                                      "options": _PG_SNIPPET})]
    return hits + [_hit(row, weight=_TITLE_WEIGHT, snippet=unspaced(row.snippet, row.content))
                   for row in db.execute(_PG_TITLES, {"query": query, "limit": limit, "options": _PG_HIGHLIGHT})]


_MARK = re.compile(f"({SNIPPET_OPEN}|{SNIPPET_CLOSE})")


def unspaced(fragment: str, whole: str) -> str:
    """ts_headline's marked fragment of the spaced-out text, put back into the text as stored
    (the spacing keeps every character's place), with an ellipsis where it cuts words off, as
    snippet() marks it. Unchanged if the fragment cannot be placed."""
    pieces = _MARK.split(fragment)
    start = whole.translate(_SPACED).find("".join(pieces[::2]))
    if start < 0:
        return fragment
    restored, at = [], start
    for n, piece in enumerate(pieces):
        if n % 2:
            restored.append(piece)
        else:
            restored.append(whole[at:at + len(piece)])
            at += len(piece)
    before, after = whole[:start], whole[at:]
    # ts_headline leaves out the punctuation around its fragment; only cut words are elided.
    return ((ELLIPSIS if _WORD.search(before) else before) + "".join(restored)
            + (ELLIPSIS if _WORD.search(after) else after))


def _hit(row, weight: float = 1.0, snippet: str | None = None) -> SearchHit:
    # Ranks are negative, better matches more so (bm25(), and -ts_rank() on PostgreSQL);
    # the weight pushes title hits further down.
    return SearchHit(row.conversation_id, row.title, row.snippet if snippet is None else snippet, row.seq,
                     float(row.rank) * weight)

"""Messages as rows and rows as messages: the store's one mapping between the two.

Reading is the hot path: opening a 2,000-message conversation reads every row of it, an export
of 10,000 messages five times that, in milliseconds. So the rows come as the driver gives them
(a text query: SQLAlchemy's type processing doubled the driver's own cost), are converted here,
and each Message is made in one step rather than through the frozen dataclass's __init__, which
sets its 15 fields one by one (and an answer's 9 facts) (4 µs a message, half the budget of a 2,000-message history).
On SQLite, timestamps and JSON come back as the text SQLAlchemy wrote; PostgreSQL's driver has
already made them datetimes and Python values.
"""

from __future__ import annotations

import gc
from typing import Any
from contextlib import contextmanager
from dataclasses import fields
from datetime import datetime, timezone

from sqlalchemy import Connection, bindparam, text

from docchat.exchange import citation_wire, plan_wire
from docchat.domain import AnswerFacts, Budget, EvidenceStrength, MemoryStats, Message, NO_FACTS, Rating, Role, Status
from docchat.store.tables import sqlite_json, sqlite_moment

_SELECT = """
    SELECT id, conversation_id, seq, role, content, created_at, status, token_count, tokenizer, citations,
           rewritten_query, model, usage, error, sent_content, figures, rating, version_of, shown, parent_id
    FROM messages
"""
_OF_CONVERSATION = text(_SELECT + "WHERE conversation_id = :conversation_id AND seq > :after_seq ORDER BY seq")
_SQLITE_OF_CONVERSATION = _SELECT + "WHERE conversation_id = ? AND seq > ? ORDER BY seq"
_BY_ID = text(_SELECT + "WHERE id = :id")
# The page draws the latest messages of the path shown: the unique (conversation_id, seq) index,
# walked backwards, finds them; of the rest of a long conversation only the count is read.
_LATEST_SHOWN = text(_SELECT + "WHERE conversation_id = :cid AND shown ORDER BY seq DESC LIMIT :count")
_SHOWN_COUNT = text("SELECT count(*) FROM messages WHERE conversation_id = :cid AND shown")
_IN_GROUPS = text(_SELECT + "WHERE conversation_id = :cid AND (id IN :groups OR version_of IN :groups) ORDER BY seq"
                  ).bindparams(bindparam("groups", expanding=True))
# Looked up, not called: calling an Enum costs about a microsecond a value.
_ROLES = {role.value: role for role in Role}
_STATUSES = {status.value: status for status in Status}
_RATINGS = {rating.value: rating for rating in Rating}
# Budget.as_dict adds its two derived figures to the fields.
_BUDGET_STORED = frozenset(field.name for field in fields(Budget)) | {"prompt", "free"}
_STATS_FIELDS = frozenset(field.name for field in fields(MemoryStats))


def conversation_messages(db: Connection, conversation_id: str, *, after_seq: int = 0) -> list[Message]:
    """The conversation's messages after `after_seq`, in order."""
    made = _maker(db)
    with _collector_paused():
        if db.dialect.name == "sqlite":
            # From the driver's cursor, in the unit of work's transaction: SQLAlchemy's result
            # layer adds 0.6 ms to 2,000 rows.
            rows = db.connection.driver_connection.execute(_SQLITE_OF_CONVERSATION, (conversation_id, after_seq))
        else:
            rows = db.execute(_OF_CONVERSATION, {"conversation_id": conversation_id, "after_seq": after_seq}).all()
        return [made(row) for row in rows]


def latest_shown(db: Connection, conversation_id: str, count: int) -> tuple[list[Message], int]:
    """The latest `count` messages of the path shown, in order, and how many it holds in all."""
    made = _maker(db)
    latest = [made(row) for row in db.execute(_LATEST_SHOWN, {"cid": conversation_id, "count": count})]
    latest.reverse()
    return latest, db.execute(_SHOWN_COUNT, {"cid": conversation_id}).scalar()


def group_versions(db: Connection, conversation_id: str, groups: list[str]) -> list[Message]:
    """Every version of the messages in `groups` (ids of first versions), in order."""
    if not groups:
        return []
    made = _maker(db)
    return [made(row) for row in db.execute(_IN_GROUPS, {"cid": conversation_id, "groups": groups})]


def message_by_id(db: Connection, message_id: str) -> Message | None:
    row = db.execute(_BY_ID, {"id": message_id}).first()
    return None if row is None else _maker(db)(row)


def message_row(message: Message) -> dict:
    """The values of the message's row (SQLAlchemy's types write the JSON and timestamps)."""
    facts = message.facts
    return {
        "id": message.id,
        "conversation_id": message.conversation_id,
        "seq": message.seq,
        "role": message.role.value,
        "content": message.content,
        "created_at": message.created_at,
        "status": message.status.value,
        "token_count": message.token_count,
        "tokenizer": message.tokenizer,
        "rewritten_query": message.rewritten_query,
        "citations": citation_wire.to_column(facts.citations, facts.grounding),
        "model": facts.model,
        "usage": facts.usage,
        "error": facts.error,
        "sent_content": message.sent_content,
        "figures": figures_row(facts),
        "rating": facts.rating.value if facts.rating else None,
        "version_of": message.version_of,
        "shown": message.shown,
        "parent_id": message.parent_id,
    }


def figures_row(facts: AnswerFacts) -> dict | None:
    if (facts.budget is None and facts.stats is None and facts.evidence is None and facts.approach is None
            and facts.coverage is None and facts.table is None and facts.form is None):
        return None
    row = {"budget": facts.budget.as_dict() if facts.budget else None,
           "memory": facts.stats.as_dict() if facts.stats else None}
    # Small objects kept beside the figures: no migration for each.
    if facts.evidence is not None:
        row["evidence"] = facts.evidence.as_dict()
    row.update(plan_wire.to_kept(facts, plan_key=plan_wire.ROW))
    return row


@contextmanager
def _collector_paused():
    """No garbage collection while a history is read. Its thousands of new objects set off
    collection after collection that can free nothing (rows and messages hold no cycles), and
    now and then a full one over the whole heap: 20 ms on top of a 15 ms read, one read in
    ten. Collection resumes afterwards; unless it was off to begin with."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _maker(db: Connection):
    """A function from a row of _SELECT to a Message, for the connection's database."""
    if db.dialect.name == "sqlite":
        moment, stored = sqlite_moment, sqlite_json
    else:
        moment, stored = _utc, _as_given
    new, set_fields = object.__new__, object.__setattr__
    # The fields most rows leave at their defaults. A copy of these and a check for each costs
    # half of what a dict of all the fields does (0.6 ms over 2,000 messages).
    defaults: dict[str, Any] = {"rewritten_query": None, "sent_content": None, "version_of": None, "facts": NO_FACTS}
    no_facts: dict[str, Any] = {"model": None, "usage": None, "error": None, "budget": None, "stats": None,
                                "evidence": None, "rating": None, "grounding": None, "approach": None,
                                "coverage": None, "table": None, "form": None}

    def made(row) -> Message:
        (id, conversation_id, seq, role, content, created_at, status, token_count, tokenizer, citations,
         rewritten_query, model, usage, error, sent_content, figures, rating, version_of, shown, parent_id) = row
        # Every field, as __init__ would set them (tests/integration/test_message_rows.py checks).
        values = defaults.copy()
        values["id"] = id
        values["conversation_id"] = conversation_id
        values["seq"] = seq
        values["role"] = _ROLES.get(role) or Role(role)
        values["content"] = content
        values["created_at"] = moment(created_at)
        values["status"] = _STATUSES.get(status) or Status(status)
        values["token_count"] = token_count
        values["tokenizer"] = tokenizer
        values["shown"] = bool(shown)
        values["parent_id"] = parent_id
        if rewritten_query is not None:
            values["rewritten_query"] = rewritten_query
        if sent_content is not None:
            values["sent_content"] = sent_content
        if version_of is not None:
            values["version_of"] = version_of
        # Most answers have no figures or sources, and most questions no usage (SQL NULL, or
        # JSON `null` and `[]` on SQLite): no call for those. A row with none of an answer's
        # values (a question) shares NO_FACTS.
        has_citations = citations != "[]" and citations
        has_usage = usage is not None and usage != "null"
        has_figures = figures is not None and figures != "null"
        if has_citations or has_usage or has_figures or model is not None or error is not None or rating:
            facts = no_facts.copy()
            if has_citations:
                facts["citations"], facts["grounding"] = citation_wire.from_column(stored(citations))
            else:
                facts["citations"] = []
            facts["model"] = model
            facts["error"] = error
            if has_usage:
                facts["usage"] = stored(usage)
            if has_figures:
                figures = stored(figures)
                facts["budget"], facts["stats"] = _figures(figures)
                if isinstance(figures, dict):
                    if "evidence" in figures:
                        facts["evidence"] = EvidenceStrength.from_dict(figures["evidence"])
                    facts.update(plan_wire.from_kept(figures, plan_key=plan_wire.ROW))
            if rating:
                facts["rating"] = _RATINGS.get(rating) or Rating(rating)
            answer_facts = new(AnswerFacts)
            set_fields(answer_facts, "__dict__", facts)
            values["facts"] = answer_facts
        message = new(Message)
        set_fields(message, "__dict__", values)
        return message

    return made


def _figures(stored) -> tuple[Budget | None, MemoryStats | None]:
    """An answer's budget and memory figures; figures this version cannot read are left out."""
    if not stored:
        return None, None
    try:
        return (_budget(stored["budget"]) if stored.get("budget") else None,
                _stats(stored["memory"]) if stored.get("memory") else None)
    except (TypeError, ValueError, KeyError, AttributeError):
        return None, None


# What figures_row wrote is taken as it is, in one step, as sources are (citation_wire): from_dict's checks
# cost twice as much, and every answer of a history carries these figures. Other shapes
# (figures of older versions) go through from_dict.

def _budget(stored: dict) -> Budget:
    if stored.keys() != _BUDGET_STORED:
        return Budget.from_dict(stored)
    budget = _as_stored(Budget, stored)
    del budget.__dict__["prompt"], budget.__dict__["free"]
    return budget


def _stats(stored: dict) -> MemoryStats:
    if stored.keys() != _STATS_FIELDS:
        return MemoryStats.from_dict(stored)
    stats = _as_stored(MemoryStats, stored)
    if stored["summary_created_at"]:
        stats.__dict__["summary_created_at"] = datetime.fromisoformat(stored["summary_created_at"])
    return stats


def _as_stored(kind: type, values: dict):
    """A frozen dataclass holding `values` as they are, without its field-by-field __init__."""
    made = object.__new__(kind)
    made.__dict__.update(values)
    return made


def _utc(value: datetime | None) -> datetime | None:
    # As docchat.store.tables.UTCDateTime reads it.
    if value is None:
        return None
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value.astimezone(timezone.utc)


def _as_given(value):
    return value

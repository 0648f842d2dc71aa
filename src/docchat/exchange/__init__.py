"""The export formats: readable Markdown, and versioned, checksummed JSON for import.

JSON layout (version 4; version 3 had no message `grounding` (what an answer cited and how its
citations were checked: read from its [n] marks when absent), version 2 no `parent_id`, version 1
no `rating`, `version_of` or `shown` either; all still import):
{"schema", "version", "exported_at", "app_version",
"conversation": {...}, "messages": [...], "summaries": [...], "checksum": {...}}.
The checksum is the sha256 of the messages list serialised with sorted keys, compact
separators and UTF-8, so any change to any message is caught on import.

Import reads only what docchat can store and write back the same: standard JSON (no NaN or
infinities), valid Unicode, nesting a few levels deep, numbers that fit the store's columns.
"""

from __future__ import annotations

import hashlib
import re
import json
import math
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Annotated, Any, Iterable, Literal, NoReturn

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, ValidationError

from docchat.exchange import citation_wire, plan_wire
from docchat.domain import (
    AnswerFacts,
    Citation,
    Conversation,
    ConversationSettings,
    EvidenceStrength,
    Grounding,
    Message,
    Rating,
    Role,
    Status,
    Summary,
    answer_note,
    form_line,
)
from docchat.domain.grounding import AnswerForm, uncited_heading
from docchat.domain.numbers import marked, numbers_line
from docchat.domain.approach import covered_line
from docchat.errors import InvalidExport
from docchat.exchange.json_writing import canonical_json, indented_json
from docchat.text import NUL, one_line, unstorable
from docchat.wording import count

SCHEMA = "docchat.conversation"
VERSION = 6
READABLE = (1, 2, 3, 4, 5, 6)
# Exports nest five levels, other apps' about ten; deeper is not a conversation, and would
# exhaust Python's recursion limit somewhere between reading and storing it.
MAX_DEPTH = 64
# The store's integer columns are 32-bit on PostgreSQL.
MAX_STORED_INT = 2**31 - 1


def iso(moment: datetime) -> str:
    moment = moment.astimezone(timezone.utc)
    if moment.year < 1000:  # strftime writes no leading zeros there
        return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    # The same text as that strftime, written twice as fast (10,000 of them in an export).
    return moment.isoformat(timespec="microseconds")[:26] + "Z"


def _parse_iso(value: str) -> datetime:
    moment = datetime.fromisoformat(value)
    if moment.tzinfo is None:
        raise ValueError("timestamp has no time zone")
    try:
        return moment.astimezone(timezone.utc)
    except OverflowError:  # 0001-01-01T00:00+01:00 is before the first moment UTC can hold
        raise ValueError(f"{value} is out of range") from None


def message_record(message: Message) -> dict[str, Any]:
    # A message still streaming when exported was cut short as far as the file is concerned.
    status = Status.INTERRUPTED if message.status is Status.STREAMING else message.status
    facts = message.facts
    return {
        "id": message.id,
        "seq": message.seq,
        "role": message.role.value,
        "content": message.content,
        "created_at": iso(message.created_at),
        "status": status.value,
        "token_count": message.token_count,
        "tokenizer": message.tokenizer,
        "citations": citation_wire.to_stored(facts.citations),
        "rewritten_query": message.rewritten_query,
        "model": facts.model,
        "usage": facts.usage,
        "rating": facts.rating.value if facts.rating else None,
        "version_of": message.version_of,
        "shown": message.shown,
        "parent_id": message.parent_id,
        # Only when judged: an export of answers from before the judgement reads as it did.
        **({"evidence": facts.evidence.as_dict()} if facts.evidence is not None else {}),
        # Only on a checked answer: an unchecked message exports as version 3 wrote it.
        **({"grounding": facts.grounding.as_dict()} if facts.grounding is not None else {}),
        # Only on an answer with a plan (version 5), or whose form was kept (version 6): older
        # answers export as before.
        **plan_wire.to_kept(facts, plan_key=plan_wire.EXPORT),
    }


def summary_record(summary: Summary) -> dict[str, Any]:
    return {
        "id": summary.id,
        "version": summary.version,
        "first_seq": summary.first_seq,
        "last_seq": summary.last_seq,
        "content": summary.content,
        "metadata": summary.metadata,
        "created_at": iso(summary.created_at),
        "token_count": summary.token_count,
        "tokenizer": summary.tokenizer,
    }


def checksum(messages: list[dict[str, Any]]) -> str:
    return hashlib.sha256(canonical_json(messages)).hexdigest()


def to_document(conversation: Conversation, messages: list[Message], summaries: list[Summary],
                *, app_version: str, exported_at: datetime) -> dict[str, Any]:
    records = [message_record(m) for m in messages]
    return {
        "schema": SCHEMA,
        "version": VERSION,
        "exported_at": iso(exported_at),
        "app_version": app_version,
        "conversation": {
            "id": conversation.id,
            "title": conversation.title,
            "created_at": iso(conversation.created_at),
            "updated_at": iso(conversation.updated_at),
            "pinned": conversation.pinned,
            "metadata": conversation.settings.as_dict(),
        },
        "messages": records,
        "summaries": [summary_record(s) for s in summaries],
        "checksum": {"algorithm": "sha256", "messages": checksum(records)},
    }


def to_json(document: dict[str, Any]) -> str:
    return indented_json(document) + "\n"


def to_markdown(conversation: Conversation, messages: list[Message]) -> str:
    """The conversation as a person reads it: its instructions, the messages shown (the branch
    the model follows) in order, then the earlier versions an edit or a regeneration replaced,
    each answer with its sources numbered as the answer cites them."""
    current = [m for m in messages if m.shown]
    earlier = [m for m in messages if not m.shown]
    lines = [
        f"# {conversation.title}",
        "",
        f"- Created: {_readable(conversation.created_at)}",
        f"- Updated: {_readable(conversation.updated_at)}",
        f"- Messages: {len(current)}" + (f" (and {count(len(earlier), 'earlier version')})" if earlier else ""),
        f"- Conversation id: `{conversation.id}`",
        "",
    ]
    instructions = conversation.settings.instructions.strip()
    if instructions:
        lines += ["**Instructions** (sent to the model after docchat's own):", ""]
        lines += [f"> {line}".rstrip() for line in instructions.splitlines()] + [""]
    for message in current:
        lines += _message_lines(message, "##")
    if earlier:
        lines += ["## Earlier versions", "",
                  "Questions and answers that an edit or a regeneration replaced, with the turns that followed them.",
                  ""]
        for message in earlier:
            lines += _message_lines(message, "###")
    return "\n".join(lines)


def _message_lines(message: Message, level: str) -> list[str]:
    heading = f"{level} {message.role.value.capitalize()} · {_readable(message.created_at)}"
    facts, grounding = message.facts, message.facts.grounding
    if message.status is not Status.COMPLETE:
        heading += f" ({message.status.value})"
    if facts.rating:
        heading += " · rated 👍" if facts.rating is Rating.UP else " · rated 👎"
    lines = [heading, ""]
    if note := answer_note(facts.evidence, facts.model):
        lines += [f"> {note}", ""]  # as the page shows it: above the answer
    if form := form_line(facts.form, facts.model):
        lines += [f"> {form}", ""]
    # A number the model wrote that no source holds is marked where the reader reads it.
    lines += [marked(message.content, grounding.numbers if grounding is not None else None,
                     lambda written: f"{written} *(not in the sources)*").rstrip(), ""]
    if covered := covered_line(facts.approach, facts.coverage, facts.table, stated=facts.form is AnswerForm.STATED):
        lines += [covered, ""]
    if facts.table is not None:
        # A fence longer than any run of backticks in the query (a sheet's values are in it).
        fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", facts.table.sql)), default=0))
        lines += [f"{fence}sql", facts.table.sql, fence, ""]
    if grounding is not None and grounding.flagged:
        lines += ["**Checked**", ""] + [f"- “{s.text}”: {grounding.note(s)}" for s in grounding.flagged] + [""]
    if grounding is not None and (line := numbers_line(grounding.numbers)):
        lines += [f"> {line}", ""]
    cited, uncited = message.cited, message.uncited
    if cited:
        attributed = " (attributed by docchat: the answer has no [n] marks)" \
            if grounding is not None and grounding.attributed else ""
        lines += [f"**Sources**{attributed}", ""] + [_source_line(c) for c in cited] + [""]
    if uncited:
        lines += [f"**{uncited_heading(facts.form)}** ({len(uncited)})", ""] + [_source_line(c) for c in uncited] + [""]
    return lines


def _source_line(cited: Citation) -> str:
    """One source, numbered as the answer cites it ([17] stays [17]: an ordered list's numbers
    would be renumbered 1, 2, 3 by any Markdown renderer): document, page or section, and the
    start of the passage on one line."""
    passage = " ".join(cited.text.split())
    if len(passage) > 200:
        passage = passage[:199] + "…"
    line = f"- [{cited.number}] {cited.document}"
    line += f", {cited.where}" if cited.where else ""
    return line + (f": “{passage}”" if passage else "")


def _readable(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")


# import

class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class _ConversationIn(_Strict):
    id: StrictStr = Field(min_length=1, max_length=36)
    title: StrictStr = Field(min_length=1, max_length=200)
    created_at: StrictStr
    updated_at: StrictStr
    pinned: StrictBool
    metadata: dict[str, Any]


Count = Annotated[StrictInt, Field(ge=0, le=MAX_STORED_INT)]
Position = Annotated[StrictInt, Field(ge=1, le=MAX_STORED_INT)]


class _MessageIn(_Strict):
    id: StrictStr = Field(min_length=1, max_length=36)
    seq: Position
    role: Literal["system", "user", "assistant"]
    content: StrictStr
    created_at: StrictStr
    status: Literal["complete", "truncated", "interrupted", "error"]
    token_count: Count | None
    tokenizer: StrictStr | None
    citations: list[dict[str, Any]]
    # What the answer cited and how its citations were checked; older exports have none.
    grounding: dict[str, Any] | None = None
    rewritten_query: StrictStr | None
    model: StrictStr | None
    usage: dict[str, Any] | None
    rating: Literal["up", "down"] | None = None
    version_of: StrictStr | None = Field(default=None, min_length=1, max_length=36)
    shown: StrictBool = True
    parent_id: StrictStr | None = Field(default=None, min_length=1, max_length=36)
    evidence: dict[str, Any] | None = None
    # How it was answered, and what it covered (version 5).
    plan: dict[str, Any] | None = None
    coverage: dict[str, Any] | None = None
    table: dict[str, Any] | None = None
    # How it was written (version 6); a form this version does not know is left out.
    answer_form: StrictStr | None = None


class _SummaryIn(_Strict):
    id: StrictStr = Field(min_length=1, max_length=36)
    version: Position
    first_seq: Position
    last_seq: Position
    content: StrictStr
    metadata: dict[str, Any]
    created_at: StrictStr
    token_count: Count | None = None
    tokenizer: StrictStr | None = None


class _ChecksumIn(_Strict):
    algorithm: Literal["sha256"]
    messages: StrictStr


class _DocumentIn(_Strict):
    schema_: Literal["docchat.conversation"] = Field(alias="schema")
    version: StrictInt
    exported_at: StrictStr
    app_version: StrictStr
    conversation: _ConversationIn
    messages: list[_MessageIn]
    summaries: list[_SummaryIn]
    checksum: _ChecksumIn


@dataclass(frozen=True)
class ImportedConversation:
    conversation: Conversation
    messages: list[Message]
    summaries: list[Summary]


def read_json(raw: bytes, *, source: str) -> object:
    """The file's JSON, or InvalidExport saying why it is not JSON at all."""
    try:
        # utf-8-sig: an export re-saved by an editor that adds a byte-order mark still reads.
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InvalidExport(f"{source}: not UTF-8 text, so not a conversation export") from None
    try:
        data = json.loads(text, parse_constant=_no_constant, parse_float=_finite, parse_int=_whole)
    except json.JSONDecodeError as error:
        raise InvalidExport(
            f"{source}: not valid JSON (truncated or damaged?): {error.msg}, line {error.lineno} column {error.colno}"
        ) from None
    except RecursionError:
        raise InvalidExport(f"{source}: not a conversation export: it nests more than {MAX_DEPTH} levels "
                            "deep") from None
    except ValueError as error:  # raised by the three readers of numbers below
        raise InvalidExport(f"{source}: not a conversation export docchat can store: {error}") from None
    _require_storable(data, source)
    return data


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is too large")
    return value


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:  # past Python's 4,300 digits
        raise ValueError(f"a number has {len(text):,} digits") from None


def _require_storable(data: object, source: str) -> None:
    """Refuses nesting past MAX_DEPTH and text the store cannot hold (an escaped lone surrogate or
    NUL: see docchat.text), walking the tree without recursion."""
    pending = [(data, 1)]
    while pending:
        value, depth = pending.pop()
        texts: Iterable[object]
        if depth > MAX_DEPTH:
            raise InvalidExport(f"{source}: not a conversation export: it nests more than {MAX_DEPTH} levels deep")
        if isinstance(value, dict):
            texts = value.keys()
            pending.extend((child, depth + 1) for child in value.values())
        elif isinstance(value, list):
            texts = ()
            pending.extend((child, depth + 1) for child in value)
        else:
            texts = (value,) if isinstance(value, str) else ()
        for text in texts:
            if (position := unstorable(text)) is None:
                continue
            if text[position] == NUL:
                raise InvalidExport(f"{source}: holds a NUL character (\\u0000), which docchat cannot store")
            raise InvalidExport(f"{source}: holds text that is not valid Unicode: "
                                f"\\u{ord(text[position]):04x}, a lone surrogate")


def document_from(data: object, *, source: str) -> ImportedConversation:
    """Validates docchat's own export, already read from JSON."""
    if not isinstance(data, dict):
        raise InvalidExport(f"{source}: not a docchat export: expected a JSON object")
    if data.get("schema") != SCHEMA:
        raise InvalidExport(f"{source}: not a docchat conversation export "
                            f"(schema is {one_line(repr(data.get('schema')))})")
    if data.get("version") not in READABLE:
        raise InvalidExport(
            f"{source}: unsupported export version {one_line(repr(data.get('version')))} "
            f"(this docchat reads versions {', '.join(map(str, READABLE))})"
        )
    try:
        document = _DocumentIn.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = one_line(".".join(str(part) for part in first["loc"])) or "document"
        raise InvalidExport(f"{source}: invalid export: {where}: {first['msg']}") from None
    expected = checksum(data["messages"])
    if document.checksum.messages != expected:
        raise InvalidExport(f"{source}: checksum mismatch: the messages were changed or the file is damaged")
    return _to_domain(document, source)


def _to_domain(document: _DocumentIn, source: str) -> ImportedConversation:
    try:
        c = document.conversation
        conversation = Conversation(
            id=c.id, title=c.title, created_at=_parse_iso(c.created_at), updated_at=_parse_iso(c.updated_at),
            pinned=c.pinned, settings=ConversationSettings.from_dict(c.metadata),
        )
        messages = [
            Message(
                id=m.id, conversation_id=c.id, seq=m.seq, role=Role(m.role), content=m.content,
                created_at=_parse_iso(m.created_at), status=Status(m.status), token_count=m.token_count,
                tokenizer=m.tokenizer, rewritten_query=m.rewritten_query,
                version_of=m.version_of, shown=m.shown, parent_id=m.parent_id,
                facts=AnswerFacts(citations=citation_wire.from_stored(m.citations),
                                  grounding=Grounding.from_dict(m.grounding), model=m.model, usage=m.usage,
                                  rating=Rating(m.rating) if m.rating else None,
                                  evidence=EvidenceStrength.from_dict(m.evidence),
                                  **plan_wire.from_kept({"plan": m.plan, "coverage": m.coverage, "table": m.table,
                                                         "answer_form": m.answer_form}, plan_key=plan_wire.EXPORT)),
            )
            for m in document.messages
        ]
        summaries = [
            Summary(
                id=s.id, conversation_id=c.id, version=s.version, first_seq=s.first_seq, last_seq=s.last_seq,
                content=s.content, created_at=_parse_iso(s.created_at), metadata=s.metadata,
                token_count=s.token_count, tokenizer=s.tokenizer,
            )
            for s in document.summaries
        ]
    except ValueError as error:
        raise InvalidExport(f"{source}: invalid export: bad timestamp: {error}") from None
    for expected_seq, message in enumerate(messages, start=1):
        if message.seq != expected_seq:
            raise InvalidExport(
                f"{source}: invalid export: messages must be numbered 1, 2, 3...; "
                f"message {expected_seq} has seq {message.seq}"
            )
    if len({m.id for m in messages}) != len(messages):
        raise InvalidExport(f"{source}: invalid export: two messages share one id")
    if len({s.id for s in summaries}) != len(summaries):
        raise InvalidExport(f"{source}: invalid export: two summaries share one id")
    if document.version < 3:
        messages = with_parents(messages)
    earlier: set[str] = set()
    for message in messages:
        if message.parent_id is not None and message.parent_id not in earlier:
            raise InvalidExport(f"{source}: invalid export: message {message.seq} follows a message that is "
                                f"not before it")
        earlier.add(message.id)
    return ImportedConversation(conversation, messages, summaries)


def with_parents(messages: list[Message]) -> list[Message]:
    """Exports before version 3 were linear: each message follows the last one shown before it,
    and a later version of an answer follows what its group's first version follows."""
    parents: dict[str, str | None] = {}
    last_shown = None
    for message in messages:
        parents[message.id] = parents.get(message.version_of) if message.version_of else last_shown
        if message.shown:
            last_shown = message.id
    return [replace(m, parent_id=parents[m.id]) for m in messages]

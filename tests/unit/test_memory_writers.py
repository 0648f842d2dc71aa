"""ConversationMemory beside other writers (another process, another tab, other threads) and
against bad input: what it holds follows the store, whoever wrote it, and a refusal stores nothing."""

from __future__ import annotations

import sys
import threading
from dataclasses import replace

import pytest

from docchat.errors import InvalidInput, NotFound
from docchat.services.conversation_log import ConversationLog

from .fakes import WordCounter
from .test_memory import CONVERSATION, SYSTEM, TURNS, add_all, counter, log, memory, pairs, stored, tokens  # noqa: F401


# other writers (another process, another tab)

def test_messages_another_writer_appends_to_the_log_are_seen_by_get(memory, log):
    add_all(memory, TURNS[:2])
    words = WordCounter()
    role, content = TURNS[2]

    log.append(stored(role, content, token_count=words.count_message(role, content), tokenizer=words.id))

    assert pairs(memory.get()) == TURNS[:3]
    assert memory.count() == 3


def test_add_after_another_writer_keeps_every_message_in_seq_order(memory, log):
    add_all(memory, TURNS[:2])
    log.append(stored(*TURNS[2], token_count=tokens(TURNS[2]), tokenizer="words+5:v1"))

    answer = memory.add(*TURNS[3])

    assert answer.seq == 4
    assert pairs(memory.get_all()) == TURNS[:4]
    assert [m.seq for m in memory.messages()] == [1, 2, 3, 4]


def test_a_message_another_writer_stored_without_a_count_is_counted_once(memory, log, counter):
    log.append(stored(*TURNS[0], token_count=None, tokenizer=None))

    memory.get()
    memory.get()

    assert counter.counted == [TURNS[0]]
    assert memory.token_total() == tokens(TURNS[0])


def test_a_clear_made_through_another_memory_is_seen_by_this_one(memory, log, counter):
    add_all(memory, TURNS)
    other_tab = ConversationLog(log, counter).memory(CONVERSATION)

    other_tab.clear()

    assert memory.get() == []


def test_a_memory_of_an_unknown_conversation_raises_not_found_when_read_or_added_to(log, counter):
    memory = ConversationLog(log, counter).memory("no-such-conversation")

    with pytest.raises(NotFound):
        memory.get()
    with pytest.raises(NotFound):
        memory.add("user", "When is the Determination Date?")
    assert log.appended == []


# invalid input

@pytest.mark.parametrize("role", ["tool", "Human", "", None])
def test_add_rejects_an_unknown_role_and_stores_nothing(memory, log, counter, role):
    with pytest.raises(InvalidInput, match="role"):
        memory.add(role, "When is the Determination Date?")

    assert log.appended == []
    assert memory.count() == 0
    assert counter.calls == 0


@pytest.mark.parametrize("content", [None, 15, b"When is the Determination Date?", ["Determination", "Date"]])
def test_add_rejects_content_that_is_not_text_and_stores_nothing(memory, log, content):
    with pytest.raises(InvalidInput, match="text"):
        memory.add("user", content)

    assert log.appended == []
    assert memory.count() == 0


# threads

@pytest.fixture
def frequent_thread_switches():
    """Makes the interpreter switch threads far more often, so races show up in a short test."""
    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(previous)


def _hammer(memories, threads: int, per_thread: int) -> list[BaseException]:
    start = threading.Barrier(threads)
    errors: list[BaseException] = []

    def writer(number: int) -> None:
        memory = memories[number % len(memories)]
        try:
            start.wait()
            for i in range(per_thread):
                memory.add("user" if i % 2 == 0 else "assistant",
                           f"worker {number} message {i}: Determination Date is the 15th " + "clause " * (i % 7))
                memory.get(token_limit=200)
        except BaseException as error:  # noqa: BLE001 - reported by the test below
            errors.append(error)

    workers = [threading.Thread(target=writer, args=(n,)) for n in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return errors


def test_eight_threads_adding_and_reading_at_once_leave_a_dense_consistent_history(
        memory, log, frequent_thread_switches):
    errors = _hammer([memory], threads=8, per_thread=50)

    assert errors == []
    in_log = log.messages(CONVERSATION)
    assert [m.seq for m in in_log] == list(range(1, 401))
    assert len({m.id for m in in_log}) == 400
    assert memory.count() == 400
    assert memory.token_total() == sum(m.token_count for m in in_log)
    assert [m.id for m in memory.messages()] == [m.id for m in in_log]


def test_each_thread_sees_its_own_messages_in_the_order_it_added_them(memory, log, frequent_thread_switches):
    _hammer([memory], threads=8, per_thread=50)

    contents = [m.content for m in memory.messages()]
    for number in range(8):
        mine = [c for c in contents if c.startswith(f"worker {number} ")]
        assert [int(c.split()[3].rstrip(":")) for c in mine] == list(range(50))


def test_two_memories_writing_one_log_at_once_both_end_with_the_whole_history(
        memory, log, counter, frequent_thread_switches):
    other_tab = ConversationLog(log, counter).memory(CONVERSATION)

    errors = _hammer([memory, other_tab], threads=8, per_thread=50)

    assert errors == []
    in_log = [m.id for m in log.messages(CONVERSATION)]
    assert [m.id for m in memory.messages()] == in_log
    assert [m.id for m in other_tab.messages()] == in_log
    assert memory.token_total() == other_tab.token_total() == sum(m.token_count for m in log.messages(CONVERSATION))


def test_a_version_chosen_by_another_writer_is_what_the_memory_holds_next(memory, log):
    add_all(memory, TURNS)
    assert pairs(memory.get()) == TURNS
    answer = log.messages(CONVERSATION)[1]

    # Another window shows another version: the first answer's branch leaves the path shown,
    # and nothing tells this memory but the conversation's path revision.
    log.reshape(CONVERSATION, lambda m: replace(m, shown=m.seq < answer.seq))

    assert pairs(memory.get()) == TURNS[:1]

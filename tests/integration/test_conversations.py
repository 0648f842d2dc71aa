"""Conversation use cases over a real store, on SQLite and on PostgreSQL."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest

from docchat.bootstrap import build_services
from docchat.config import Settings
from docchat.domain import utcnow
from docchat.errors import InvalidInput, NotFound
from docchat.store import search

from tests.integration.sample_data import TRUST_TURNS, set_updated_at, trust_conversation

pytestmark = pytest.mark.both_databases

UNKNOWN_ID = "5d1c2f0e-7a44-4c36-9a51-0d3b8e2f6a10"


def days_ago(days: int):
    return utcnow() - timedelta(days=days)


# listing


def test_list_shows_pinned_conversations_first_then_the_most_recently_updated(services):
    conversations = services.conversations
    messages = services.messages
    lease = conversations.create("Lease renewal for the Leeds office")
    trust = conversations.create("Hartley family trust agreement")
    report = conversations.create("Q3 2025 quarterly report")
    set_updated_at(services, lease.id, days_ago(30))
    set_updated_at(services, trust.id, days_ago(20))
    set_updated_at(services, report.id, days_ago(10))
    conversations.pin(lease.id)

    messages.append_message(trust.id, "user", "Who signs on behalf of the trustee?")

    assert [c.title for c in conversations.list()] == [
        "Lease renewal for the Leeds office",
        "Hartley family trust agreement",
        "Q3 2025 quarterly report",
    ]


# unknown ids and bad titles


@pytest.mark.parametrize(
    "change",
    [
        lambda c: c.rename(UNKNOWN_ID, "Board minutes, March"),
        lambda c: c.pin(UNKNOWN_ID),
        lambda c: c.unpin(UNKNOWN_ID),
        lambda c: c.delete(UNKNOWN_ID),
        lambda c: c.delete(UNKNOWN_ID, purge=True),
    ],
    ids=["rename", "pin", "unpin", "delete", "purge"],
)
def test_changing_a_conversation_that_does_not_exist_raises_not_found(services, change):
    with pytest.raises(NotFound, match=UNKNOWN_ID):
        change(services.conversations)


@pytest.mark.parametrize("title", ["", "   ", "\n\t"])
def test_renaming_to_an_empty_title_is_refused_and_keeps_the_old_title(services, title):
    conversation = services.conversations.create("Hartley family trust agreement")

    with pytest.raises(InvalidInput):
        services.conversations.rename(conversation.id, title)

    assert services.conversations.get(conversation.id).title == "Hartley family trust agreement"


# deleting


def test_a_soft_deleted_conversation_disappears_from_the_list(services):
    trust_id = trust_conversation(services)
    report = services.conversations.create("Q3 2025 quarterly report")

    services.conversations.delete(trust_id)

    assert [c.id for c in services.conversations.list()] == [report.id]


def test_a_soft_deleted_conversation_disappears_from_search(services):
    trust_id = trust_conversation(services)
    assert services.messages.search("beneficiary")

    services.conversations.delete(trust_id)

    assert services.messages.search("beneficiary") == []
    assert services.messages.search("Hartley") == []


def test_a_soft_deleted_conversation_stays_in_the_database_until_purged(services, database):
    trust_id = trust_conversation(services)

    services.conversations.delete(trust_id)
    assert database.rows("SELECT count(*) FROM messages WHERE conversation_id = ?", trust_id) == [(4,)]

    services.conversations.delete(trust_id, purge=True)
    assert database.rows("SELECT count(*) FROM conversations WHERE id = ?", trust_id) == [(0,)]
    assert database.rows("SELECT count(*) FROM messages WHERE conversation_id = ?", trust_id) == [(0,)]


# search


def test_search_returns_one_hit_per_conversation(services):
    conversations = services.conversations
    messages = services.messages
    report = conversations.create("Q3 2025 quarterly report")
    for text in ["The interim dividend is 12 pence a share.",
                 "Is the dividend covered by free cash flow?",
                 "The board kept the dividend policy unchanged."]:
        messages.append_message(report.id, "user", text)

    hits = messages.search("dividend")

    assert [hit.conversation_id for hit in hits] == [report.id]


def test_search_puts_the_conversation_most_about_the_words_first(services):
    conversations = services.conversations
    messages = services.messages
    estate = conversations.create("Estate questions")
    messages.append_message(estate.id, "user", "Fiduciary duty: what does a fiduciary owe, and when is a fiduciary liable?")
    report = conversations.create("Q3 2025 quarterly report")
    messages.append_message(
        report.id, "user",
        "The report covers revenue, margins, headcount, churn, the new Leeds office, the pension scheme, "
        "the bank covenants, and, in one line of the risk section, a fiduciary question about the pension trustees.",
    )
    for title, text in [("Lease renewal", "When does the break clause in the Leeds lease apply?"),
                        ("Board minutes", "Who seconded the motion on the share buyback?"),
                        ("Holiday policy", "How many days of annual leave carry over?")]:
        messages.append_message(conversations.create(title).id, "user", text)

    hits = messages.search("fiduciary")

    assert [hit.conversation_id for hit in hits] == [estate.id, report.id]


def test_search_snippets_mark_the_matched_word(services):
    trust_id = trust_conversation(services)

    [hit] = services.messages.search("maintenance")

    assert hit.conversation_id == trust_id
    assert "education, health and «maintenance», once a year" in hit.snippet


def test_search_finds_conversations_by_title(services):
    conversation = services.conversations.create("Hartley family trust agreement")

    [hit] = services.messages.search("Hartley")

    assert hit.conversation_id == conversation.id
    assert "«Hartley»" in hit.snippet


def test_search_finds_every_conversation_even_when_one_matches_hundreds_of_times(services):
    conversations = services.conversations
    messages = services.messages
    budget = conversations.create("Marketing plan")
    for line in range(220):
        messages.append_message(budget.id, "user", f"Line {line} of the plan: the budget for campaign {line}.")
    report = conversations.create("Q3 2025 quarterly report")
    messages.append_message(
        report.id, "user",
        "Among revenue, margins, headcount, churn and forecasts, the report says the travel budget was cut.",
    )

    hits = messages.search("budget")

    assert {hit.conversation_id for hit in hits} == {budget.id, report.id}


def test_a_word_in_more_messages_than_are_ranked_still_finds_the_other_conversations(services, monkeypatch):
    monkeypatch.setattr(search, "RANKED_MATCHES", 30)
    monkeypatch.setattr(search, "RANKED_PER_CONVERSATION", 5)
    conversations = services.conversations
    messages = services.messages
    older = [conversations.create(f"Campaign {n}") for n in range(15)]
    for conversation in older:
        messages.append_message(conversation.id, "user", "What was the budget for this one?")
    # The newest matches, four times as many as are ranked, in one conversation.
    plan = conversations.create("Marketing plan")
    for line in range(120):
        messages.append_message(plan.id, "user", f"Line {line}: the budget for campaign {line}.")

    hits = messages.search("budget")

    assert {hit.conversation_id for hit in hits} == {plan.id} | {conversation.id for conversation in older}
    assert all("«budget»" in hit.snippet for hit in hits)


@pytest.mark.parametrize("typed", ['AND (', '"', "NEAR", "trust*)", "beneficiaries NOT", "^(", "col:umn"])
def test_search_accepts_full_text_syntax_typed_by_users(services, typed):
    trust_conversation(services)

    hits = services.messages.search(typed)

    assert isinstance(hits, list)


def test_search_treats_operator_words_as_plain_words(services):
    trust_id = trust_conversation(services)

    hits = services.messages.search('"trustee AND beneficiary (')

    assert [hit.conversation_id for hit in hits] == [trust_id]


# cleanup


def test_cleanup_removes_unpinned_conversations_older_than_the_cutoff(services, database):
    stale_id = trust_conversation(services)
    recent = services.conversations.create("Q3 2025 quarterly report")
    set_updated_at(services, stale_id, days_ago(45))
    set_updated_at(services, recent.id, days_ago(5))

    report = services.trash.cleanup(older_than_days=30)

    assert [c.id for c in report.conversations] == [stale_id]
    assert [c.id for c in services.conversations.list()] == [recent.id]
    assert database.rows("SELECT count(*) FROM messages WHERE conversation_id = ?", stale_id) == [(0,)]


def test_cleanup_keeps_pinned_conversations_however_old(services):
    pinned = services.conversations.create("Hartley family trust agreement")
    services.conversations.pin(pinned.id)
    set_updated_at(services, pinned.id, days_ago(400))

    report = services.trash.cleanup(older_than_days=30)

    assert report.conversations == []
    assert [c.id for c in services.conversations.list()] == [pinned.id]


def test_cleanup_dry_run_removes_nothing_but_reports_what_a_real_run_removes(services, database):
    for title, age in [("Lease renewal", 90), ("Board minutes", 60), ("Holiday policy", 2)]:
        conversation = services.conversations.create(title)
        services.messages.append_message(conversation.id, "user", f"Question about the {title.lower()}")
        set_updated_at(services, conversation.id, days_ago(age))
    rows_before = database.rows("SELECT count(*) FROM conversations"), database.rows("SELECT count(*) FROM messages")

    dry = services.trash.cleanup(older_than_days=30, dry_run=True)

    assert dry.dry_run is True
    assert (database.rows("SELECT count(*) FROM conversations"), database.rows("SELECT count(*) FROM messages")) \
        == rows_before
    real = services.trash.cleanup(older_than_days=30)
    assert [c.title for c in dry.conversations] == [c.title for c in real.conversations] \
        == ["Lease renewal", "Board minutes"]


# messages


def test_posting_without_a_conversation_starts_one_titled_from_the_message(services):
    message = services.messages.post_user_message(
        None, "Summarise the termination clauses of the Leeds office lease, please."
    )

    conversation = services.conversations.get(message.conversation_id)
    assert conversation.title == "Summarise the termination clauses of the Leeds office…"
    assert [m.content for m in services.messages.history(conversation.id)] == [
        "Summarise the termination clauses of the Leeds office lease, please."
    ]


def test_a_first_question_that_cannot_be_stored_leaves_no_empty_conversation_behind(services, monkeypatch):
    from sqlalchemy.exc import OperationalError

    from docchat.store.repository import ConversationRepository

    def disk_full(self, message):
        raise OperationalError("INSERT INTO messages", {}, Exception("database or disk is full"))

    monkeypatch.setattr(ConversationRepository, "append_message", disk_full)
    with pytest.raises(OperationalError):
        services.messages.post_user_message(None, "Summarise the termination clauses of the Leeds office lease.")

    assert services.conversations.list() == []


def test_history_survives_a_restart(services, data_dir):
    trust_id = trust_conversation(services)
    before = services.messages.history(trust_id)

    restarted = build_services(Settings(data_dir=data_dir))

    after = restarted.messages.history(trust_id)
    assert after == before
    assert [(m.role.value, m.content) for m in after] == TRUST_TURNS
    assert restarted.messages.memory(trust_id).count() == len(TRUST_TURNS)


def test_eight_threads_appending_to_one_conversation_lose_no_message(services):
    conversation = services.conversations.create("Q3 2025 quarterly report")
    threads, per_thread = 8, 30
    errors = []

    def analyst(number: int) -> None:
        try:
            for question in range(per_thread):
                services.messages.append_message(
                    conversation.id, "user", f"Analyst {number}, question {question}: what drove the margin?"
                )
        except Exception as error:  # surfaced below: an exception in a thread does not fail the test
            errors.append(error)

    workers = [threading.Thread(target=analyst, args=(n,)) for n in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()

    assert errors == []
    history = services.messages.history(conversation.id)
    assert [m.seq for m in history] == list(range(1, threads * per_thread + 1))
    assert {m.content for m in history} == {
        f"Analyst {n}, question {q}: what drove the margin?" for n in range(threads) for q in range(per_thread)
    }


def test_two_app_instances_appending_at_once_keep_seq_dense(services, data_dir):
    conversation = services.conversations.create("Hartley family trust agreement")
    second = build_services(Settings(data_dir=data_dir))
    errors = []

    def writer(instance, name: str) -> None:
        try:
            for turn in range(40):
                instance.messages.append_message(conversation.id, "user", f"{name} asks question {turn}")
        except Exception as error:  # surfaced below
            errors.append(error)

    workers = [threading.Thread(target=writer, args=(services, "The browser tab")),
               threading.Thread(target=writer, args=(second, "The command line"))]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()

    assert errors == []
    history = services.messages.history(conversation.id)
    assert [m.seq for m in history] == list(range(1, 81))
    assert services.messages.memory(conversation.id).count() == 80

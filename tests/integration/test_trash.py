"""The trash: deleted conversations are listed, restored, purged one by one or all at once, and
cleaned up after the retention period, on SQLite and on PostgreSQL."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from docchat.domain import utcnow
from docchat.errors import NotFound

from tests.integration.sample_data import TRUST_TURNS, set_updated_at, trust_conversation

pytestmark = pytest.mark.both_databases

UNKNOWN_ID = "5d1c2f0e-7a44-4c36-9a51-0d3b8e2f6a10"


def days_ago(days: int) -> datetime:
    return utcnow() - timedelta(days=days)


def deleted(services, conversation_id: str, moment: datetime) -> str:
    """Deletes the conversation as if it had been deleted at `moment`."""
    services.conversations.delete(conversation_id)
    with services.conversations._uow(write=True) as uow:
        uow.conversations.set_deleted(conversation_id, moment)
        uow.commit()
    return conversation_id


def conversation_with(services, title: str, *questions: str) -> str:
    conversation = services.conversations.create(title)
    for question in questions:
        services.messages.append_message(conversation.id, "user", question)
    return conversation.id


# listing


def test_the_trash_lists_deleted_conversations_the_most_recently_deleted_first(services):
    trust_id = deleted(services, trust_conversation(services), days_ago(3))
    lease_id = deleted(services, conversation_with(services, "Lease renewal for the Leeds office",
                                                   "When can we break the lease?"), days_ago(1))
    conversation_with(services, "Q3 2025 quarterly report", "What was recurring revenue?")

    trash = services.trash.list()

    assert [(c.id, c.title, c.message_count) for c in trash] == [
        (lease_id, "Lease renewal for the Leeds office", 1),
        (trust_id, "Hartley family trust agreement", len(TRUST_TURNS)),
    ]
    assert all(c.deleted_at is not None for c in trash)


def test_the_trash_is_empty_when_nothing_was_deleted(services):
    conversation_with(services, "Q3 2025 quarterly report", "What was recurring revenue?")

    assert services.trash.list() == []


# restoring


def test_a_restored_conversation_is_listed_again_with_all_its_messages(services):
    trust_id = trust_conversation(services)
    report_id = conversation_with(services, "Q3 2025 quarterly report", "What was recurring revenue?")
    services.conversations.delete(trust_id)

    restored = services.trash.restore(trust_id)

    assert (restored.id, restored.deleted_at) == (trust_id, None)
    assert {c.id for c in services.conversations.list()} == {trust_id, report_id}
    assert [(m.role.value, m.content) for m in services.messages.history(trust_id)] == TRUST_TURNS
    assert services.trash.list() == []


def test_a_restored_conversation_keeps_its_place_by_its_last_update(services):
    trust_id = trust_conversation(services)
    report_id = conversation_with(services, "Q3 2025 quarterly report", "What was recurring revenue?")
    set_updated_at(services, trust_id, days_ago(20))
    services.conversations.delete(trust_id)

    services.trash.restore(trust_id)

    assert [c.id for c in services.conversations.list()] == [report_id, trust_id]


def test_a_restored_conversation_is_found_by_search_again(services):
    trust_id = trust_conversation(services)
    services.conversations.delete(trust_id)

    services.trash.restore(trust_id)

    assert [hit.conversation_id for hit in services.messages.search("beneficiary")] == [trust_id]


def test_restoring_an_unknown_conversation_says_it_is_not_in_the_trash(services):
    with pytest.raises(NotFound, match=f"no conversation with id {UNKNOWN_ID} in the trash"):
        services.trash.restore(UNKNOWN_ID)


def test_restoring_a_conversation_that_was_never_deleted_says_so_and_changes_nothing(services):
    trust_id = trust_conversation(services)
    before = services.conversations.get(trust_id)

    with pytest.raises(NotFound, match="“Hartley family trust agreement” .* is not in the trash"):
        services.trash.restore(trust_id)

    assert services.conversations.get(trust_id) == before


def test_a_purged_conversation_cannot_be_restored(services):
    trust_id = trust_conversation(services)
    services.conversations.delete(trust_id)
    services.conversations.delete(trust_id, purge=True)

    with pytest.raises(NotFound, match="in the trash"):
        services.trash.restore(trust_id)


# purging


def test_deleting_one_forever_from_the_trash_removes_it_and_its_messages(services, database):
    trust_id = deleted(services, trust_conversation(services), days_ago(1))
    lease_id = deleted(services, conversation_with(services, "Lease renewal for the Leeds office",
                                                   "When can we break the lease?"), days_ago(2))

    services.conversations.delete(trust_id, purge=True)

    assert [c.id for c in services.trash.list()] == [lease_id]
    assert database.rows("SELECT count(*) FROM messages WHERE conversation_id = ?", trust_id) == [(0,)]
    assert database.rows("SELECT count(*) FROM summaries WHERE conversation_id = ?", trust_id) == [(0,)]


def test_emptying_the_trash_purges_every_deleted_conversation_and_keeps_the_others(services, database):
    trust_id = deleted(services, trust_conversation(services), days_ago(1))
    lease_id = deleted(services, conversation_with(services, "Lease renewal for the Leeds office",
                                                   "When can we break the lease?"), days_ago(2))
    report_id = conversation_with(services, "Q3 2025 quarterly report", "What was recurring revenue?")

    purged = services.trash.empty()

    assert [c.id for c in purged] == [trust_id, lease_id]
    assert services.trash.list() == []
    assert [c.id for c in services.conversations.list()] == [report_id]
    assert database.rows("SELECT conversation_id FROM messages") == [(report_id,)]
    assert database.rows("SELECT count(*) FROM summaries") == [(0,)]


def test_emptying_an_empty_trash_removes_nothing(services):
    report_id = conversation_with(services, "Q3 2025 quarterly report", "What was recurring revenue?")

    assert services.trash.empty() == []
    assert [c.id for c in services.conversations.list()] == [report_id]


# clean-up


def test_cleanup_purges_conversations_in_the_trash_for_longer_than_the_period_pinned_or_not(services, database):
    trust_id = trust_conversation(services)
    services.conversations.pin(trust_id)
    deleted(services, trust_id, days_ago(45))
    lease_id = deleted(services, conversation_with(services, "Lease renewal for the Leeds office",
                                                   "When can we break the lease?"), days_ago(31))

    report = services.trash.cleanup(older_than_days=30)

    assert {c.id for c in report.conversations} == {trust_id, lease_id}
    assert services.trash.list() == []
    assert database.rows("SELECT count(*) FROM messages") == [(0,)]


def test_cleanup_keeps_a_conversation_deleted_recently_however_long_ago_it_was_updated(services):
    trust_id = trust_conversation(services)
    set_updated_at(services, trust_id, days_ago(400))
    deleted(services, trust_id, days_ago(2))

    report = services.trash.cleanup(older_than_days=30)

    assert report.conversations == []
    assert [c.id for c in services.trash.list()] == [trust_id]
    assert services.trash.restore(trust_id).id == trust_id


def test_cleanup_purges_old_trash_and_stale_conversations_in_one_run_and_keeps_pinned_active_ones(services):
    stale_id = conversation_with(services, "Board minutes, March", "Who seconded the motion?")
    set_updated_at(services, stale_id, days_ago(60))
    pinned_id = conversation_with(services, "Hartley family trust agreement", "Who is the trustee?")
    services.conversations.pin(pinned_id)
    set_updated_at(services, pinned_id, days_ago(400))
    old_trash_id = deleted(services, conversation_with(services, "Lease renewal for the Leeds office",
                                                       "When can we break the lease?"), days_ago(40))
    recent_id = conversation_with(services, "Q3 2025 quarterly report", "What was recurring revenue?")

    dry = services.trash.cleanup(older_than_days=30, dry_run=True)
    real = services.trash.cleanup(older_than_days=30)

    assert [c.id for c in dry.conversations] == [c.id for c in real.conversations] == [stale_id, old_trash_id]
    assert [c.id for c in services.conversations.list()] == [pinned_id, recent_id]
    assert services.trash.list() == []

"""The store, on SQLite and on PostgreSQL: migrations, connection settings, append-only
messages, purge."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import inspect, text
from sqlalchemy.exc import IntegrityError

from docchat.store.engine import make_engine
from docchat.store.migrate import current_revision, upgrade
from docchat.store.unit_of_work import SqlUnitOfWorkFactory

from tests.databases import head_revision
from tests.integration.sample_data import TRUST_TURNS, add_summary, trust_conversation

pytestmark = pytest.mark.both_databases

# What each database searches with: FTS5 tables on SQLite (and the log its word index follows
# the chunks by: docchat.documents.index.word_index), GIN indexes on PostgreSQL.
FULL_TEXT_INDEXES = {
    "sqlite": ("SELECT name FROM sqlite_master WHERE type = 'table'",
               {"messages_fts", "conversations_fts", "chunk_changes"}),
    "postgresql": ("SELECT indexname FROM pg_indexes",
                   {"ix_messages_search", "ix_conversations_search", "ix_chunks_search"}),
}


@pytest.fixture
def engine(database):
    engine = make_engine(database.url, busy_timeout_s=2.5)
    yield engine
    engine.dispose()


def pragma(engine, name: str):
    with engine.connect() as connection:
        return connection.execute(text(f"PRAGMA {name}")).scalar()


# migrations


def test_migrating_an_empty_database_creates_the_conversation_and_document_tables(engine):
    upgrade(engine)

    tables = set(inspect(engine).get_table_names())
    assert {"conversations", "messages", "summaries", "documents", "chunks", "citations", "folders",
            "folder_files"} <= tables


def test_migrating_an_empty_database_creates_the_full_text_indexes(engine, database):
    upgrade(engine)

    query, indexes = FULL_TEXT_INDEXES[database.kind]
    assert indexes <= {name for (name,) in database.rows(query)}


def test_migrating_an_empty_database_records_the_head_revision(engine):
    assert current_revision(engine) is None

    upgrade(engine)

    assert current_revision(engine) == head_revision() == "0014"


def test_running_the_migrations_twice_keeps_the_revision_and_the_data(engine):
    upgrade(engine)
    with engine.begin() as connection:
        connection.execute(text(
            "INSERT INTO conversations (id, title, created_at, updated_at, pinned, archived, "
            "memory_start_seq, pruned_before_seq, metadata) "
            "VALUES ('c0ffee00-0000-4000-8000-000000000001', 'Lease renewal for the Leeds office', "
            "'2026-01-05 09:00:00', '2026-01-05 09:00:00', false, false, 1, 1, '{}')"
        ))

    upgrade(engine)

    assert current_revision(engine) == head_revision()
    with engine.connect() as connection:
        titles = connection.execute(text("SELECT title FROM conversations")).scalars().all()
    assert titles == ["Lease renewal for the Leeds office"]


# connection settings


@pytest.mark.sqlite_only
def test_the_database_file_runs_in_wal_mode(engine):
    assert pragma(engine, "journal_mode") == "wal"


@pytest.mark.sqlite_only
def test_foreign_keys_are_enforced(engine):
    assert pragma(engine, "foreign_keys") == 1


@pytest.mark.sqlite_only
def test_a_writer_waits_for_the_lock_for_the_configured_busy_timeout(engine):
    assert pragma(engine, "busy_timeout") == 2500


def test_a_message_for_a_conversation_that_does_not_exist_is_refused(engine):
    upgrade(engine)

    with pytest.raises(IntegrityError), engine.begin() as connection:
        connection.execute(text(
            "INSERT INTO messages (id, conversation_id, seq, role, content, created_at, status, citations) "
            f"VALUES ('{uuid.uuid4()}', 'no-such-conversation', 1, 'user', 'Orphaned question', "
            "'2026-01-05 09:00:00', 'complete', '[]')"
        ))


# messages


def test_messages_get_dense_seq_numbers_per_conversation(services):
    conversations = services.conversations
    messages = services.messages
    trust = conversations.create("Hartley family trust agreement")
    report = conversations.create("Q3 2025 quarterly report")
    for turn in range(5):
        messages.append_message(trust.id, "user", f"Trust question {turn}: who is the successor trustee?")
        messages.append_message(report.id, "user", f"Report question {turn}: what was the EBITDA margin?")
    messages.append_message(trust.id, "assistant", "The successor trustee is Margaret Hartley.")

    assert [m.seq for m in messages.history(trust.id)] == [1, 2, 3, 4, 5, 6]
    assert [m.seq for m in messages.history(report.id)] == [1, 2, 3, 4, 5]


def test_pruning_memory_rewrites_and_deletes_no_message(services, database):
    conversation_id = trust_conversation(services)
    before = database.table_contents()["messages"]
    memory = services.messages.memory(conversation_id)

    dropped = memory.prune(max_tokens=40)

    assert dropped > 0, "the prune must actually drop something for this test to mean anything"
    assert database.table_contents()["messages"] == before
    assert len(services.messages.history(conversation_id)) == len(TRUST_TURNS)


def test_clearing_memory_rewrites_and_deletes_no_message(services, database):
    conversation_id = trust_conversation(services)
    before = database.table_contents()["messages"]
    memory = services.messages.memory(conversation_id)

    memory.clear()

    assert memory.count() == 0
    assert database.table_contents()["messages"] == before
    assert [m.content for m in services.messages.history(conversation_id)] == [c for _, c in TRUST_TURNS]


# purge


def test_purging_a_conversation_removes_its_messages_and_summaries(services, database):
    conversation_id = trust_conversation(services)

    services.conversations.delete(conversation_id, purge=True)

    assert database.rows("SELECT count(*) FROM messages WHERE conversation_id = ?", conversation_id) == [(0,)]
    assert database.rows("SELECT count(*) FROM summaries WHERE conversation_id = ?", conversation_id) == [(0,)]


@pytest.mark.sqlite_only
def test_purged_messages_and_titles_are_gone_from_the_full_text_index(services, database):
    conversation_id = trust_conversation(services)
    assert database.rows("SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'beneficiary'")

    services.conversations.delete(conversation_id, purge=True)

    assert database.rows("SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'beneficiary'") == []
    assert database.rows("SELECT rowid FROM conversations_fts WHERE conversations_fts MATCH 'Hartley'") == []
    assert services.messages.search("beneficiary") == []


@pytest.mark.sqlite_only
def test_the_database_passes_integrity_checks_after_a_purge(services, database):
    kept = trust_conversation(services)
    purged = trust_conversation(services)
    add_summary(services, purged, "A second summary of the same trust.", last_seq=4, version=2)

    services.conversations.delete(purged, purge=True)

    assert database.rows("PRAGMA integrity_check") == [("ok",)]
    # FTS5's own check raises when the index disagrees with the content table.
    database.rows("INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)")
    database.rows("INSERT INTO conversations_fts(conversations_fts, rank) VALUES ('integrity-check', 1)")
    assert services.health.store().integrity == "ok"
    assert [c.id for c in services.conversations.list()] == [kept]


def database_at(database, revision: str, *statements: str):
    """The test's database left at an older schema revision, holding the rows the statements add."""
    url = database.url
    engine = make_engine(url)
    upgrade(engine, revision)
    with engine.begin() as connection:
        for statement in statements:
            connection.execute(text(statement))
    return url, engine


def test_a_database_at_the_first_schema_upgrades_to_the_newest_keeping_its_conversations(tmp_path, database):
    from docchat.bootstrap import build_services
    from docchat.config import Settings

    url, old = database_at(database, "0001", (
        "INSERT INTO conversations (id, title, created_at, updated_at, pinned, archived, metadata) "
        "VALUES ('5f0c1d2e-0000-4000-8000-000000000001', 'Lease renewal from last year', "
        "'2025-11-01 09:00:00.000000', '2025-11-01 09:00:00.000000', false, false, '{}')"))
    old.dispose()

    services = build_services(Settings(data_dir=tmp_path, database_url=url))

    assert current_revision(make_engine(url)) == head_revision()
    assert {"documents", "chunks", "citations"} <= set(inspect(make_engine(url)).get_table_names())
    assert [c.title for c in services.conversations.list()] == ["Lease renewal from last year"]


def test_chunks_stored_before_the_keyword_index_existed_are_found_by_it_after_the_upgrade(database, tmp_path):
    from docchat.documents.index.word_index import TantivyWordIndex
    from docchat.store.documents import DocumentRepository

    _, old = database_at(database, "0002", (
        "INSERT INTO documents (id, name, kind, path, size, content_hash, pages, chunks, status, added_at) "
        "VALUES ('d0c00000-0000-4000-8000-000000000001', 'lease.md', 'markdown', 'documents/lease.md', 90, "
        "'ab12', NULL, 1, 'ready', '2025-11-01 09:00:00.000000')"), (
        "INSERT INTO chunks (id, document_id, position, label, page, text, token_count) "
        "VALUES ('c0c00000-0000-4000-8000-000000000001', 'd0c00000-0000-4000-8000-000000000001', 0, "
        "'Rent review', NULL, 'The rent is reviewed every fifth year on the Review Date.', 14)"))

    upgrade(old)

    if database.kind == "sqlite":  # its word index, built from the rows at its first search
        found = TantivyWordIndex(tmp_path / "words", old).search(["review", "date"], limit=5)
    else:
        with old.connect() as connection:
            found = DocumentRepository(connection).keyword_search(["review", "date"], limit=5)
    old.dispose()
    assert found == [("c0c00000-0000-4000-8000-000000000001", "d0c00000-0000-4000-8000-000000000001")]


def test_settings_written_by_an_earlier_version_read_back_and_a_change_keeps_the_rest(tmp_path, database):
    from docchat.bootstrap import build_services
    from docchat.config import Settings
    from docchat.domain import TitleSource

    url, old = database_at(database, "0001", (
        "INSERT INTO conversations (id, title, created_at, updated_at, pinned, archived, metadata) "
        "VALUES ('5f0c1d2e-0000-4000-8000-000000000002', 'Trust questions', "
        "'2025-11-01 09:00:00.000000', '2025-11-01 09:00:00.000000', false, false, "
        "'{\"title_source\": \"user\", \"document_scope\": [\"d1\"], \"compactions\": 2, "
        "\"session\": {\"resolved_terms\": {\"Servicer\": \"The bank.\"}, \"turns\": 4}, \"turns\": \"junk\"}')"))
    old.dispose()
    services = build_services(Settings(data_dir=tmp_path, database_url=url))
    conversation_id = "5f0c1d2e-0000-4000-8000-000000000002"

    services.conversations.set_document_scope(conversation_id, ["d1", "d2"])
    services.conversations.rename(conversation_id, "An automatic title", source=TitleSource.MODEL)

    settings = build_services(Settings(data_dir=tmp_path, database_url=url)).conversations.get(conversation_id).settings
    assert settings.document_scope == ("d1", "d2")
    assert settings.title_source is TitleSource.USER
    assert (settings.compactions, settings.session.turns) == (2, 4)
    assert settings.session.resolved_terms == {"Servicer": "The bank."}


def test_switching_the_version_shown_is_stored_and_the_memory_follows_it(services):
    from dataclasses import replace

    conversations = services.conversations

    messages = services.messages
    conversation = conversations.create("Capital")
    messages.append_message(conversation.id, "user", "What is the capital of France?")
    first = messages.append_message(conversation.id, "assistant", "Paris.")
    messages.show_version(conversation.id, None, group=first.id)
    with conversations._uow(write=True) as uow:  # as a regenerated answer is stored
        uow.conversations.append_message(replace(first, id=str(uuid.uuid4()), content="It is Paris, on the Seine.",
                                                 version_of=first.id, shown=True))
        uow.commit()
    assert [m.content for m in messages.memory(conversation.id).get_all()][-1] == "It is Paris, on the Seine."

    messages.show_version(conversation.id, first.id)

    assert [(m.content, m.shown) for m in messages.history(conversation.id)[1:]] == [
        ("Paris.", True), ("It is Paris, on the Seine.", False)]
    assert [m.content for m in messages.memory(conversation.id).get_all()] == [
        "What is the capital of France?", "Paris."]


def _two_turns(messages, conversation_id):
    return [messages.append_message(conversation_id, role, text) for role, text in (
        ("user", "Who is the trustee?"), ("assistant", "Harbour Street Bank."),
        ("user", "When is the Determination Date?"), ("assistant", "The 15th of each month."))]


def _first_question_edited(services):
    """Two turns, then the first question edited and answered: (conversation, first question,
    its edit, the edit's answer)."""
    messages = services.messages
    conversation = services.conversations.create("Trust")
    question, *_ = _two_turns(messages, conversation.id)
    messages.show_version(conversation.id, None, group=question.id)
    edited = messages.post_user_message(conversation.id, "Who is the servicer?", version_of=question.id)
    answer = messages.append_message(conversation.id, "assistant", "Northgate Servicing.")
    return conversation, question, edited, answer


def test_an_edited_question_starts_a_branch_and_switching_back_brings_its_turns_back(services):
    messages = services.messages
    conversation, question, edited, _ = _first_question_edited(services)

    def shown():
        return [m.content for m in messages.history(conversation.id) if m.shown]

    assert shown() == ["Who is the servicer?", "Northgate Servicing."]
    assert edited.parent_id is None  # it was the first question: it starts the conversation too
    messages.show_version(conversation.id, question.id)
    assert shown() == ["Who is the trustee?", "Harbour Street Bank.", "When is the Determination Date?",
                       "The 15th of each month."]
    assert [m.content for m in messages.memory(conversation.id).get_all()] == shown()
    messages.show_version(conversation.id, edited.id)
    assert shown() == ["Who is the servicer?", "Northgate Servicing."]


def test_the_latest_messages_shown_come_with_every_version_of_each(services):
    messages = services.messages
    conversation, _, edited, answer = _first_question_edited(services)
    for role, said in (("user", "Since when?"), ("assistant", "Since 2019.")):
        messages.append_message(conversation.id, role, said)

    recent = messages.recent(conversation.id, 3)

    assert [m.content for m in recent.messages] == ["Northgate Servicing.", "Since when?", "Since 2019."]
    assert recent.shown == 4
    assert recent.messages == [m for m in messages.history(conversation.id) if m.shown][-3:]
    assert [m.content for m in recent.versions[answer.group]] == ["Northgate Servicing."]
    assert [m.content for m in messages.recent(conversation.id, 4).versions[edited.group]] == [
        "Who is the trustee?", "Who is the servicer?"]


def test_a_summary_is_used_only_on_the_branch_it_summarises(services):
    conversations = services.conversations
    messages = services.messages
    conversation = conversations.create("Trust")
    question, *_ = _two_turns(messages, conversation.id)
    add_summary(services, conversation.id, "The trustee is Harbour Street Bank.", last_seq=2)

    def latest():
        with conversations._uow() as uow:
            return uow.conversations.latest_summary(conversation.id)

    assert latest().content == "The trustee is Harbour Street Bank."
    messages.show_version(conversation.id, None, group=question.id)
    messages.post_user_message(conversation.id, "Who is the servicer?", version_of=question.id)
    assert latest() is None
    # A summary made on the new branch takes the next free version.
    add_summary(services, conversation.id, "The servicer question.", last_seq=5, version=1)
    assert (latest().content, latest().version) == ("The servicer question.", 2)

    messages.show_version(conversation.id, question.id)
    assert latest().content == "The trustee is Harbour Street Bank."


def test_migrating_a_store_with_regenerated_answers_gives_each_message_the_one_it_follows(engine):
    upgrade(engine, "0004")
    rows = [("q1", 1, "user", None, True), ("a1", 2, "assistant", None, False), ("a2", 3, "assistant", "a1", True),
            ("q2", 4, "user", None, True), ("a3", 5, "assistant", None, True)]
    with engine.begin() as connection:
        connection.execute(text(
            "INSERT INTO conversations (id, title, created_at, updated_at, pinned, archived, "
            "memory_start_seq, pruned_before_seq, metadata) "
            "VALUES ('c1', 'Capital', '2026-01-05 09:00:00', '2026-01-05 09:00:00', false, false, 1, 1, '{}')"))
        for id, seq, role, version_of, shown in rows:
            connection.execute(text(
                "INSERT INTO messages (id, conversation_id, seq, role, content, created_at, status, citations, "
                "version_of, shown) VALUES (:id, 'c1', :seq, :role, :content, '2026-01-05 09:00:00', 'complete', "
                "'[]', :version_of, :shown)"),
                dict(id=id, seq=seq, role=role, content=id, version_of=version_of, shown=shown))

    upgrade(engine)

    with engine.connect() as connection:
        parents = dict(connection.execute(text("SELECT id, parent_id FROM messages")).all())
    assert parents == {"q1": None, "a1": "q1", "a2": "q1", "q2": "a2", "a3": "q2"}


def test_messages_stored_before_the_prefix_index_are_found_by_two_letters_typed_and_so_are_new_ones(engine):
    upgrade(engine, "0006")
    insert_message = text(
        "INSERT INTO messages (id, conversation_id, seq, role, content, created_at, status, citations, shown) "
        "VALUES (:id, 'c1', :seq, 'user', :content, '2026-01-05 09:00:00', 'complete', '[]', true)")
    with engine.begin() as connection:
        connection.execute(text(
            "INSERT INTO conversations (id, title, created_at, updated_at, pinned, archived, "
            "memory_start_seq, pruned_before_seq, metadata) "
            "VALUES ('c1', 'Capital', '2026-01-05 09:00:00', '2026-01-05 09:00:00', false, false, 1, 1, '{}')"))
        connection.execute(insert_message, dict(id="m1", seq=1, content="Who is the trustee of the fund?"))

    upgrade(engine)
    with engine.begin() as connection:
        connection.execute(insert_message, dict(id="m2", seq=2, content="The trustee is Harbour Street Bank."))

    with SqlUnitOfWorkFactory(engine)() as unit:
        [hit] = unit.conversations.search("tr", limit=5)
        assert hit.conversation_id == "c1"
        assert "«trustee»" in hit.snippet
        assert [h.seq for h in unit.conversations.search("harbour st", limit=5)] == [2]


def test_citations_kept_before_the_check_count_only_the_passages_the_answer_marked(engine):
    """"Cited in" counted every passage an answer was given; after the upgrade, those it cites."""
    upgrade(engine, "0011")
    with engine.begin() as connection:
        connection.execute(text(
            "INSERT INTO conversations (id, title, created_at, updated_at, pinned, archived, "
            "memory_start_seq, pruned_before_seq, metadata) "
            "VALUES ('c1', 'Lease questions', '2026-01-05 09:00:00', '2026-01-05 09:00:00', false, false, 1, 1, '{}')"))
        for id, seq, content in (("a1", 1, "The rent is reviewed every fifth year [2], upwards only [2, 3]."),
                                 ("a2", 2, "The tenant may leave on the tenth anniversary.")):
            connection.execute(text(
                "INSERT INTO messages (id, conversation_id, seq, role, content, created_at, status, citations, shown) "
                "VALUES (:id, 'c1', :seq, 'assistant', :content, '2026-01-05 09:00:00', 'complete', '[]', true)"),
                dict(id=id, seq=seq, content=content))
            for number in (1, 2, 3, 17):
                connection.execute(text(
                    "INSERT INTO citations (message_id, conversation_id, document_id, chunk_id, number, score) "
                    "VALUES (:id, 'c1', 'd1', :chunk, :number, 0.5)"), dict(id=id, chunk=f"k{number}", number=number))

    upgrade(engine)

    with engine.connect() as connection:
        kept = connection.execute(text("SELECT message_id, number FROM citations ORDER BY message_id, number")).all()
    assert [tuple(row) for row in kept] == [("a1", 2), ("a1", 3)]

"""Upgrades from every shipped schema: a database an older docchat really wrote, opened by
today's, shows what it showed then.

Each fixture (tests/fixtures/upgrade/<revision>) is the data folder of the docchat whose newest
migration was that revision, written and recorded by its own code (tests/upgrade/make_fixtures.py):
its SQLite database and Qdrant folder, the export of every conversation, its document library,
its conversation search and document retrieval results. On SQLite the test opens a copy; on
PostgreSQL it runs docchat's migrations to that revision and inserts the fixture's rows. Then
today's start-up path upgrades to the newest schema and everything is compared; the only
differences allowed are listed, with the revision that made them, in tests/upgrade/expected.py.
"""

from __future__ import annotations

import json
import shutil

import pytest

from docchat.bootstrap import build_services
from docchat.config import Settings
from docchat.store.migrate import newest_revision

from tests.conftest import DATABASES, NO_SERVER
from tests.databases import StoreDatabase
from tests.upgrade import expected
from tests.upgrade.make_fixtures import CONVERSATION_SEARCHES, DOCUMENT_QUERIES, cited_sources, passage, plain
from tests.upgrade.rows import rebuild_on_postgresql

UPGRADES = [(revision, kind) for revision in expected.REVISIONS for kind in DATABASES]


@pytest.fixture(scope="module", params=UPGRADES, ids=[f"{r}-{k}" for r, k in UPGRADES])
def upgraded(request, tmp_path_factory, shared_embedder):
    """Today's docchat over a revision's data, upgraded at start-up; one per revision and
    database, shared by this module's tests, which only read."""
    revision, kind = request.param
    saved = expected.fixture(revision) / "data"
    data_dir = tmp_path_factory.mktemp(f"upgrade-{revision}-{kind}") / "data"
    if kind == "sqlite":
        shutil.copytree(saved, data_dir)
        database = StoreDatabase(f"sqlite:///{data_dir / 'docchat.db'}")
    else:
        cluster = request.getfixturevalue("postgres")
        database = StoreDatabase(cluster.create_database())
        request.addfinalizer(lambda: cluster.drop_database(database.url))
        shutil.copytree(saved, data_dir, ignore=shutil.ignore_patterns("docchat.db"))
        copied = rebuild_on_postgresql(saved / "docchat.db", database.url, revision)
        assert copied["messages"] > 0
    assert database.rows("SELECT version_num FROM alembic_version") == [(revision,)]
    services = build_services(Settings(data_dir=data_dir, database_url=database.url, llm_url=NO_SERVER),
                              embedder=shared_embedder)
    yield revision, services, database
    services.index.close()


def test_the_database_reaches_the_newest_schema(upgraded):
    _, _, database = upgraded
    assert database.rows("SELECT version_num FROM alembic_version") == [(newest_revision(),)]


def test_every_conversation_exports_as_it_did(upgraded):
    revision, services, _ = upgraded
    conversations = {c.id for c in services.conversations.list()}
    assert conversations == set(expected.conversation_ids(revision))
    for conversation_id in sorted(conversations):
        saved = expected.fixture(revision) / "exports" / conversation_id
        was = json.loads(saved.with_suffix(".json").read_text())
        now = json.loads(services.transfer.export_json(conversation_id))
        assert expected.json_export_differences(was, now) == [], conversation_id
        markdown = services.transfer.export_markdown(conversation_id)
        assert expected.markdown_lines_lost(saved.with_suffix(".md").read_text(), markdown) == [], conversation_id


def test_todays_export_of_an_upgraded_conversation_imports_elsewhere(upgraded, tmp_path):
    """The checksum of today's export covers the fields added since: an import verifies it."""
    _, services, _ = upgraded
    elsewhere = build_services(Settings(data_dir=tmp_path / "elsewhere", llm_url=NO_SERVER))
    reports = elsewhere.transfer.import_bytes(services.transfer.export_all_zip(), name="all.zip")
    assert len(reports) == len(services.conversations.list())
    assert {c.id for c in elsewhere.conversations.list()} == {c.id for c in services.conversations.list()}


def test_the_conversations_list_and_search_show_what_they_did(upgraded):
    revision, services, database = upgraded
    was = expected.shown(revision)
    now = [plain(c) for c in services.conversations.list()]
    assert [(c["id"], c["title"], c["pinned"], c["message_count"]) for c in now] == \
        [(c["id"], c["title"], c["pinned"], c["message_count"]) for c in was["conversations"]]
    for query in CONVERSATION_SEARCHES:
        hits = [{k: v for k, v in plain(hit).items() if k != "rank"} for hit in services.messages.search(query)]
        assert expected.search_as_compared(hits, database.kind) == \
            expected.search_as_compared(was["search"][query], database.kind), query


def test_the_document_library_and_its_search_show_what_they_did(upgraded):
    revision, services, _ = upgraded
    was = expected.shown(revision)
    if "library" not in was:
        pytest.skip(f"revision {revision} had no document library")
    library = services
    now = [plain(d) for d in library.documents.list()]
    assert [{k: d.get(k) for k in old} for old, d in zip(was["library"], now)] == was["library"]
    assert len(now) == len(was["library"])
    for query in DOCUMENT_QUERIES:
        assert [passage(found) for found in services.retrieval.retrieve(query, top_k=3)] == was["retrieval"][query], query


def test_each_document_is_cited_in_the_conversations_it_was(upgraded):
    """Counts as that revision showed them, but for migration 0012's change (expected.py)."""
    revision, services, _ = upgraded
    if "usage" not in expected.shown(revision):
        pytest.skip(f"revision {revision} had no document library")
    now = {document.id: sorted((use.conversation_id, use.title, use.citations)
                               for use in services.documents.usage(document.id))
           for document in services.documents.list()}
    assert now == expected.usage_expected(revision)
    assert any(now.values())


def test_every_cited_passage_opens_in_its_source_as_it_did(upgraded):
    """The source view reads the chunks around the passage and the stored original."""
    revision, services, _ = upgraded
    was = expected.shown(revision)
    if "sources" not in was:
        pytest.skip(f"revision {revision} had no source view")
    assert was["sources"]
    assert cited_sources(services, services.conversations.list()) == was["sources"]


def test_the_library_check_finds_every_chunk_in_both_indexes(upgraded):
    """What `docchat doctor` reads: rows, keyword index (rebuilt by 0009) and vectors agree."""
    revision, services, _ = upgraded
    if "library" not in expected.shown(revision):
        pytest.skip(f"revision {revision} had no document library")
    check = services.index.check()
    chunks = sum(document["chunks"] for document in expected.shown(revision)["library"])
    assert (check.chunks, check.vectors, check.agrees) == (chunks, chunks, True)

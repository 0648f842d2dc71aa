"""Backup and restore of a data dir: real SQLite files, real migrations, MiniLM, Qdrant Edge.

The backups are made while the services of the data dir are open, as the running app holds
them (the document index locked by this process), and one while another connection writes.
"""

from __future__ import annotations

import io
import json
import sqlite3
import threading
import zipfile
from contextlib import closing
from pathlib import Path

import pytest

from docchat.bootstrap import build_backup, build_services
from docchat.config import Settings
from docchat.errors import DocchatError, InvalidBackup, InvalidInput
from docchat.services.backup import BackupStatus
from docchat.store.engine import make_engine
from docchat.store.migrate import current_revision, upgrade
from docchat.store.sheet_tables import SqliteSheetTables

from tests.databases import head_revision
from tests.integration.sample_data import quarterly_conversation, trust_conversation
from tests.integration.sample_documents import COOKERY_PASSAGES, TRUST_PASSAGES, markdown
from tests.integration.test_cli import docchat, one_error_line, succeeded  # noqa: F401 (the fixture)

QUESTIONS = [
    "When is the Determination Date?",
    "How long should bread dough rise?",
    "ZX-4471",
    "Which courts decide a dispute about the trust?",
]


@pytest.fixture
def filled(services):
    """The data dir as a user leaves it: two conversations, one deleted, three documents (one a sheet)."""
    library = services
    trust_conversation(services)
    services.conversations.delete(quarterly_conversation(services))
    library.ingestion.ingest("harbour-trust.md", markdown(TRUST_PASSAGES))
    library.ingestion.ingest("kitchen-notebook.md", markdown(COOKERY_PASSAGES))
    library.ingestion.ingest("pantry.csv", b"Item,Jars\nJam,12\nPickles,5\nTotal,17\n")
    return services


def restored_services(data_dir: Path, embedder):
    return build_services(Settings(data_dir=data_dir), embedder=embedder)


def exported(services) -> dict[str, dict]:
    """`export --all`, conversation by conversation, without the moment of the export."""
    with zipfile.ZipFile(io.BytesIO(services.transfer.export_all_zip())) as archive:
        documents = {name: json.loads(archive.read(name)) for name in archive.namelist()}
    for document in documents.values():
        document.pop("exported_at")
    return documents


def found(services) -> list[list[tuple[str, str, float]]]:
    return [[(hit.chunk.id, hit.document, hit.score) for hit in services.retrieval.retrieve(question, top_k=5)]
            for question in QUESTIONS]


def tree(folder: Path) -> dict[str, bytes | None]:
    """Every path under `folder` with its bytes (None for a folder)."""
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None) for p in sorted(folder.rglob("*"))}


def rewritten(archive: Path, target: Path, replace: dict[str, bytes]) -> Path:
    """A copy of the archive with some entries' bytes replaced."""
    with zipfile.ZipFile(archive) as source, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as copy:
        for info in source.infolist():
            copy.writestr(info.filename, replace.get(info.filename, source.read(info.filename)))
    return target


def manifest_of(archive: Path) -> dict:
    with zipfile.ZipFile(archive) as opened:
        return json.loads(opened.read("manifest.json"))


# a faithful copy


def test_a_restored_backup_exports_the_same_conversations_and_finds_the_same_passages(
        filled, data_dir, tmp_path, shared_embedder):
    archive = tmp_path / "friday.zip"
    # The services stay open, the index locked by them: as while the app runs.
    build_backup(Settings(data_dir=data_dir)).backup(archive)
    elsewhere = tmp_path / "new-laptop"

    report = build_backup(Settings(data_dir=elsewhere), embedder=shared_embedder).restore(archive)

    restored = restored_services(elsewhere, shared_embedder)
    assert exported(restored) == exported(filled)
    assert found(restored) == found(filled)
    assert found(restored)[0][0][1] == "harbour-trust.md"
    assert restored.trash.list()[0].title == "Q3 2025 quarterly report"
    assert [d.name for d in restored.documents.list()] == [d.name for d in filled.documents.list()]
    assert tree(elsewhere / "documents") == tree(data_dir / "documents")
    assert report.chunks_indexed == restored.index.open().count() == sum(d.chunks for d in filled.documents.list())
    assert restored.index.health().problem is None
    # The spreadsheet's sheet is kept as a table again, read from its restored file.
    assert [shape.sheet for shape in SqliteSheetTables(elsewhere).shapes()] == ["pantry"]
    assert restored.index.check().agrees


def test_the_manifest_says_what_the_backup_holds(filled, data_dir, tmp_path):
    archive = tmp_path / "friday.zip"

    report = build_backup(Settings(data_dir=data_dir)).backup(archive)

    manifest = manifest_of(archive)
    assert (manifest["format"], manifest["version"], manifest["schema_revision"]) == (
        "docchat-backup", 1, head_revision())
    assert manifest["counts"] == {"conversations": 1, "deleted_conversations": 1, "messages": 8, "summaries": 2,
                                  "documents": 3, "chunks": len(TRUST_PASSAGES) + len(COOKERY_PASSAGES) + 1,
                                  "files": 3}
    assert manifest["made_at"] == report.made_at.isoformat()
    with zipfile.ZipFile(archive) as opened:
        assert "docchat.db" in opened.namelist() and not any(n.startswith(("vectors", "qdrant")) for n in opened.namelist())


def test_a_backup_taken_while_another_connection_writes_is_one_consistent_moment(services, data_dir, tmp_path,
                                                                                shared_embedder):
    conversation = services.conversations.create("Minutes of the trustees' meeting")
    for n in range(300):
        services.messages.append_message(conversation.id, "user", f"Item {n}: the trustees noted the accounts.")
    stop = threading.Event()

    def write() -> None:
        n = 300
        while not stop.is_set():
            services.messages.append_message(conversation.id, "user", f"Item {n}: a motion was carried.")
            n += 1

    def committed() -> int:
        return len(services.messages.history(conversation.id))

    writer = threading.Thread(target=write)
    writer.start()
    try:
        takes = []
        for take in range(3):
            archive, before = tmp_path / f"during-{take}.zip", committed()
            build_backup(Settings(data_dir=data_dir)).backup(archive)
            takes.append((archive, before, committed()))
    finally:
        stop.set()
        writer.join()

    live = services.messages.history(conversation.id)
    assert len(live) > takes[-1][1]
    for take, (archive, before, after) in enumerate(takes):
        restored_dir = tmp_path / f"restored-{take}"
        build_backup(Settings(data_dir=restored_dir), embedder=shared_embedder).restore(archive)
        restored = restored_services(restored_dir, shared_embedder)
        messages = restored.messages.history(conversation.id)
        # What the writer had committed at one moment while the copy was made, whole and in order.
        assert before <= len(messages) <= after
        assert [(m.id, m.seq, m.content) for m in messages] == [(m.id, m.seq, m.content) for m in live[:len(messages)]]
        assert restored.health.store().integrity == "ok"


def test_an_older_backup_is_upgraded_to_the_current_schema_on_restore(services, data_dir, tmp_path, shared_embedder):
    archive = tmp_path / "current.zip"
    build_backup(Settings(data_dir=data_dir)).backup(archive)
    older_db = tmp_path / "older.db"
    engine = make_engine(f"sqlite:///{older_db}")
    upgrade(engine, "0004")
    engine.dispose()
    with closing(sqlite3.connect(older_db)) as db:
        db.execute("PRAGMA journal_mode=DELETE")
    older = rewritten(archive, tmp_path / "older.zip", {
        "docchat.db": older_db.read_bytes(),
        "manifest.json": json.dumps({**manifest_of(archive), "schema_revision": "0004"}).encode(),
    })
    elsewhere = tmp_path / "restored"

    build_backup(Settings(data_dir=elsewhere), embedder=shared_embedder).restore(older)

    engine = make_engine(f"sqlite:///{elsewhere / 'docchat.db'}")
    assert current_revision(engine) == head_revision()
    engine.dispose()
    assert restored_services(elsewhere, shared_embedder).conversations.list() == []


# what a restore refuses


def test_restoring_over_a_data_dir_that_holds_data_is_refused_and_changes_nothing(filled, data_dir, tmp_path,
                                                                                 shared_embedder):
    archive = tmp_path / "friday.zip"
    build_backup(Settings(data_dir=data_dir)).backup(archive)
    other = build_services(Settings(data_dir=tmp_path / "other"))
    other.conversations.create("Leeds office lease renewal")
    before = tree(tmp_path / "other")

    with pytest.raises(InvalidInput, match="already holds docchat data .*--force"):
        build_backup(Settings(data_dir=tmp_path / "other"), embedder=shared_embedder).restore(archive)

    assert tree(tmp_path / "other") == before


def test_restoring_with_force_moves_the_data_there_aside(filled, data_dir, tmp_path, shared_embedder):
    archive = tmp_path / "friday.zip"
    build_backup(Settings(data_dir=data_dir)).backup(archive)
    other_dir = tmp_path / "other"
    other = build_services(Settings(data_dir=other_dir))
    lease = other.conversations.create("Leeds office lease renewal")
    other.close()
    other.conversations._uow.engine.dispose()  # as the app stopped: nothing holds the database

    report = build_backup(Settings(data_dir=other_dir), embedder=shared_embedder).restore(archive, force=True)

    restored = restored_services(other_dir, shared_embedder)
    assert exported(restored) == exported(filled)
    assert report.put_aside.parent == other_dir and report.put_aside.name.startswith("before-restore-")
    with closing(sqlite3.connect(report.put_aside / "docchat.db")) as db:
        assert db.execute("SELECT title FROM conversations WHERE id = ?", (lease.id,)).fetchone() == (lease.title,)


def test_restoring_with_force_under_a_running_app_is_refused(filled, data_dir, tmp_path, shared_embedder):
    archive = tmp_path / "friday.zip"
    build_backup(Settings(data_dir=data_dir)).backup(archive)
    running = build_services(Settings(data_dir=tmp_path / "other"))
    running.conversations.create("Leeds office lease renewal")
    before = tree(tmp_path / "other")

    with pytest.raises(DocchatError, match="open in another docchat process"):
        build_backup(Settings(data_dir=tmp_path / "other"), embedder=shared_embedder).restore(archive, force=True)

    assert tree(tmp_path / "other") == before


@pytest.fixture
def backup_archive(filled, data_dir, tmp_path) -> Path:
    archive = tmp_path / "friday.zip"
    build_backup(Settings(data_dir=data_dir)).backup(archive)
    return archive


def refused(archive: Path, target: Path, embedder) -> str:
    """Restores into `target`, expecting a refusal; returns its message once nothing was written."""
    with pytest.raises(InvalidBackup) as refusal:
        build_backup(Settings(data_dir=target), embedder=embedder).restore(archive)
    assert not target.exists()
    message = str(refusal.value)
    assert "\n" not in message and message.endswith("nothing was restored")
    return message


def test_a_truncated_archive_is_refused_and_nothing_is_written(backup_archive, tmp_path, shared_embedder):
    cut = tmp_path / "cut.zip"
    cut.write_bytes(backup_archive.read_bytes()[: backup_archive.stat().st_size // 2])

    assert refused(cut, tmp_path / "restored", shared_embedder).startswith("cut.zip is not a docchat backup")


def test_an_archive_whose_database_was_damaged_is_refused_and_nothing_is_written(backup_archive, tmp_path,
                                                                               shared_embedder):
    damaged = bytearray(backup_archive.read_bytes())
    with zipfile.ZipFile(backup_archive) as opened:
        info = opened.getinfo("docchat.db")
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    for offset in range(start + 200, start + info.compress_size - 200, 997):
        damaged[offset] ^= 0x5A
    (tmp_path / "damaged.zip").write_bytes(bytes(damaged))

    message = refused(tmp_path / "damaged.zip", tmp_path / "restored", shared_embedder)

    assert message.startswith("damaged.zip is damaged (docchat.db: ")


def test_an_archive_whose_database_is_not_a_database_is_refused(backup_archive, tmp_path, shared_embedder):
    bad = rewritten(backup_archive, tmp_path / "bad.zip", {"docchat.db": b"Minutes of the trustees' meeting\n" * 200})

    assert "its database cannot be read" in refused(bad, tmp_path / "restored", shared_embedder)


def test_a_conversations_export_is_not_taken_for_a_backup(filled, tmp_path, shared_embedder):
    export = tmp_path / "conversations.zip"
    export.write_bytes(filled.transfer.export_all_zip())

    assert refused(export, tmp_path / "restored", shared_embedder) == (
        "conversations.zip is not a docchat backup (no manifest.json); nothing was restored")


def test_a_backup_from_a_newer_docchat_is_refused(backup_archive, tmp_path, shared_embedder):
    manifest = {**manifest_of(backup_archive), "schema_revision": "0999"}
    newer = rewritten(backup_archive, tmp_path / "newer.zip", {"manifest.json": json.dumps(manifest).encode()})

    assert "made by a newer docchat (schema 0999)" in refused(newer, tmp_path / "restored", shared_embedder)


def test_an_archive_entry_that_would_land_outside_the_data_dir_is_refused(backup_archive, tmp_path, shared_embedder):
    hostile = tmp_path / "hostile.zip"
    hostile.write_bytes(backup_archive.read_bytes())
    with zipfile.ZipFile(hostile, "a") as archive:
        archive.writestr("documents/../../outside.txt", "escaped")

    assert "unexpected entry 'documents/../../outside.txt'" in refused(hostile, tmp_path / "restored", shared_embedder)
    assert not (tmp_path / "outside.txt").exists()


def test_backup_and_restore_point_to_pg_dump_for_postgresql(tmp_path):
    backup = build_backup(Settings(data_dir=tmp_path / "data", database_url="postgresql://docchat@127.0.0.1/docchat"))

    for attempt in (lambda: backup.backup(tmp_path / "friday.zip"), lambda: backup.restore(tmp_path / "friday.zip")):
        with pytest.raises(DocchatError, match="SQLite database only; for PostgreSQL .* use pg_dump"):
            attempt()


# the command


def test_the_cli_backs_up_restores_and_doctor_says_when_the_last_backup_was_made(docchat, services, data_dir,
                                                                                 tmp_path):
    trust_conversation(services)
    archive = tmp_path / "friday.zip"
    assert build_backup(Settings(data_dir=data_dir)).status() == BackupStatus(last_backup=None, file=None)

    out = succeeded(docchat("backup", str(archive)))

    assert out.startswith(f"backed up 1 conversation (4 messages) and 0 documents (0 files) to {archive}")
    backup = json.loads(succeeded(docchat("doctor", "--json")))["backup"]
    assert backup == {"last_backup": manifest_of(archive)["made_at"], "file": str(archive), "before_upgrade": None}
    assert "already holds docchat data" in one_error_line(docchat("restore", str(archive)))
    elsewhere = tmp_path / "new-laptop"
    assert "restored 1 conversation (4 messages)" in succeeded(docchat("restore", str(archive), data=elsewhere))
    assert exported(build_services(Settings(data_dir=elsewhere))) == exported(services)

"""Opening a database of another docchat version: an older one is backed up, then upgraded all
at once or not at all; a newer one is refused and left untouched. On a real SQLite file and on
PostgreSQL, with a library and conversations as docchat 0008 wrote them."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing
from datetime import datetime, timezone
from pathlib import Path

import pytest

from docchat import __version__
from docchat.bootstrap import build_services
from docchat.cli import main
from docchat.config import Settings
from docchat.store import migrate
from docchat.store.upgrade import NewerDatabase, UpgradeFailed, upgrade_database
from docchat.upgrade_backups import automatic_backups, new_name, prune
from docchat_bench.crash_migrate import build_old_database, whole_digest

from tests.databases import StoreDatabase

BOTH = pytest.mark.parametrize("database", ["sqlite", "postgresql"], indirect=True)
HEAD = migrate.newest_revision()
OWN_MIGRATIONS = migrate.MIGRATIONS
# A revision after the newest that changes the library, then fails: as a bug in a migration
# would, or a full disk part-way.
BROKEN = '''
import sqlalchemy as sa
from alembic import op

revision = "9001"
down_revision = "{head}"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("documents", sa.Column("shelf", sa.Text, nullable=True))
    op.execute("UPDATE documents SET shelf = 'leases'")
    op.execute("DELETE FROM messages WHERE seq > 2")
    raise RuntimeError("the disk filled up while shelving the documents")
'''


def everything(database: StoreDatabase) -> dict[str, list]:
    """Every table's columns and rows, read with the database's own driver."""
    if database.kind == "sqlite":
        tables = [row[0] for row in database.rows("SELECT name FROM sqlite_master WHERE type = 'table'")]
        columns = {t: database.rows(f"PRAGMA table_info({t})") for t in tables}
    else:
        tables = [row[0] for row in database.rows(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'")]
        columns = {t: database.rows("SELECT column_name, data_type FROM information_schema.columns "
                                    "WHERE table_name = ? ORDER BY ordinal_position", t) for t in tables}
    return {t: [columns[t], sorted(database.rows(f"SELECT * FROM {t}"), key=repr)] for t in sorted(tables)}


def revision(database: StoreDatabase) -> str:
    return database.rows("SELECT version_num FROM alembic_version")[0][0]


@pytest.fixture
def old_library(database, data_dir) -> StoreDatabase:
    """The test's database at schema 0008: 1,200 chunks in 3 documents, 20 conversations."""
    build_old_database(database.url, chunks=1200)
    return database


@pytest.fixture
def broken_migration(monkeypatch, tmp_path) -> None:
    """This docchat's migrations and, after them, one that fails part-way."""
    scripts = tmp_path / "migrations"
    shutil.copytree(migrate.MIGRATIONS, scripts, ignore=shutil.ignore_patterns("__pycache__"))
    (scripts / "versions" / "9001_broken.py").write_text(BROKEN.format(head=HEAD), encoding="utf-8")
    monkeypatch.setattr(migrate, "MIGRATIONS", scripts)


def test_opening_an_older_sqlite_database_backs_it_up_then_upgrades_it(old_library, data_dir):
    before = whole_digest(data_dir / "docchat.db")

    services = build_services(Settings(data_dir=data_dir))

    backups = automatic_backups(data_dir / "backups")
    assert [b.name[:12] for b in backups] == [f"before-{HEAD}-"]
    assert whole_digest(backups[0]) == before  # the database as 0008 left it, schema and rows
    assert services.upgraded == f"upgraded the database from schema 0008 to {HEAD}; the database as it was " \
                                f"is in {backups[0]}"
    assert revision(old_library) == HEAD
    assert services.health.report().backup.before_upgrade == str(backups[0])
    assert build_services(Settings(data_dir=data_dir)).upgraded is None  # the next start: nothing to do
    assert len(automatic_backups(data_dir / "backups")) == 1


def test_a_command_that_upgrades_says_where_the_backup_is_and_doctor_names_it(old_library, data_dir, capsys):
    assert main(["conversations", "list", "--json"]) == 0
    said = capsys.readouterr()
    backup = automatic_backups(data_dir / "backups")[0]
    assert said.err == f"docchat: upgraded the database from schema 0008 to {HEAD}; the database as it was " \
                       f"is in {backup}\n"
    assert len(json.loads(said.out)) == 20

    main(["doctor", "--json"])
    said = capsys.readouterr()
    assert json.loads(said.out)["backup"]["before_upgrade"] == str(backup)
    assert said.err == ""


def test_an_upgrade_whose_backup_cannot_be_written_stops_before_changing_anything(old_library, data_dir):
    (data_dir / "backups").write_text("a file where the backups folder would go")
    before = whole_digest(data_dir / "docchat.db")

    with pytest.raises(UpgradeFailed) as failed:
        build_services(Settings(data_dir=data_dir))

    assert str(failed.value).startswith(f"the database could not be backed up before its upgrade from schema 0008 "
                                        f"to {HEAD} (")
    assert str(failed.value).endswith("); nothing was changed")
    assert whole_digest(data_dir / "docchat.db") == before


@pytest.mark.parametrize("database", ["postgresql"], indirect=True)
def test_a_server_database_is_upgraded_in_one_transaction_and_its_backup_left_to_its_operator(old_library,
                                                                                              data_dir):
    services = build_services(Settings(data_dir=data_dir))

    assert services.upgraded == (f"upgraded the database from schema 0008 to {HEAD} in one transaction; docchat "
                                 "makes no backup of a server database: back it up yourself (pg_dump) before "
                                 "upgrading docchat")
    assert revision(old_library) == HEAD
    assert not (data_dir / "backups").exists()


def test_only_the_last_three_automatic_backups_are_kept_and_a_users_own_file_stays(tmp_path):
    folder = tmp_path / "backups"
    folder.mkdir()
    made = []
    for day in range(1, 6):
        path = new_name(folder, "0013", datetime(2026, 11, day, 7, 12, tzinfo=timezone.utc))
        path.write_bytes(b"a database")
        made.append(path)
    mine = folder / "before-my-holiday.db"
    mine.write_bytes(b"my own copy")

    prune(folder)

    assert automatic_backups(folder) == made[-3:]
    assert sorted(folder.iterdir()) == sorted([*made[-3:], mine])


def test_two_backups_in_the_same_second_keep_both(tmp_path):
    moment = datetime(2026, 11, 26, 7, 12, 3, tzinfo=timezone.utc)
    first = new_name(tmp_path, "0013", moment)
    first.write_bytes(b"one")

    assert new_name(tmp_path, "0013", moment).name == "before-0013-2026-11-26T071203-2.db"


@BOTH
def test_a_failed_migration_changes_nothing_and_the_next_start_upgrades(old_library, data_dir, broken_migration,
                                                                          monkeypatch):
    before = everything(old_library)
    dump = whole_digest(data_dir / "docchat.db") if old_library.kind == "sqlite" else None

    with pytest.raises(UpgradeFailed) as failed:
        build_services(Settings(data_dir=data_dir))

    assert everything(old_library) == before  # every table: columns and rows
    if dump is not None:  # and the schema as SQLite keeps it: tables, FTS5 tables, triggers, indexes
        assert whole_digest(data_dir / "docchat.db") == dump
    assert revision(old_library) == "0008"
    backups = automatic_backups(data_dir / "backups")
    line = str(failed.value)
    assert line.startswith("the upgrade of the database from schema 0008 to 9001 failed at 9001 (RuntimeError: "
                           "the disk filled up while shelving the documents); nothing was changed")
    assert line.endswith((f"; a backup made before it is in {backups[0]}" if backups else "")
                         + "; the next start tries again")
    assert "\n" not in line
    assert len(backups) == (1 if old_library.kind == "sqlite" else 0)  # a server database: the operator's

    monkeypatch.setattr(migrate, "MIGRATIONS", OWN_MIGRATIONS)  # the migration fixed: this docchat's own again
    services = build_services(Settings(data_dir=data_dir))
    assert revision(old_library) == HEAD
    assert len(services.conversations.list()) == 20


def test_a_failed_migration_stops_a_command_with_one_line(old_library, data_dir, broken_migration, capsys):
    assert main(["conversations", "list"]) == 1

    said = capsys.readouterr()
    assert said.out == ""
    assert said.err.count("\n") == 1 and "Traceback" not in said.err
    assert said.err.startswith("docchat: the upgrade of the database from schema 0008 to 9001 failed at 9001")
    assert "nothing was changed" in said.err


def _written_by_a_newer_docchat(database: StoreDatabase) -> None:
    upgrade_database(database.url, Path(os.environ["DOCCHAT_DATA_DIR"]))
    database.write("UPDATE alembic_version SET version_num = '0015'")
    database.write("INSERT INTO schema_upgrades (revision, docchat_version, upgraded_at) "
                   "VALUES ('0015', '0.3.0', ?)", datetime(2027, 1, 5, tzinfo=timezone.utc).isoformat(" "))


@BOTH
def test_a_database_written_by_a_newer_docchat_is_refused_and_left_as_it_was(database, data_dir):
    _written_by_a_newer_docchat(database)
    before = everything(database)

    with pytest.raises(NewerDatabase) as refused:
        build_services(Settings(data_dir=data_dir))

    assert str(refused.value) == (f"the database was written by docchat 0.3.0 (schema 0015); this is docchat "
                                  f"{__version__} (schema {HEAD}). Nothing was changed: open it with docchat 0.3.0 "
                                  "or newer")
    assert everything(database) == before
    assert not (data_dir / "backups").exists()


@pytest.mark.parametrize("journal", ["wal", "delete"])
def test_a_newer_sqlite_file_is_not_written_at_all(database, data_dir, capsys, journal):
    _written_by_a_newer_docchat(database)
    path = data_dir / "docchat.db"
    with closing(sqlite3.connect(path, isolation_level=None)) as db:
        # A restored backup is in rollback-journal mode; docchat's connections would make it WAL.
        db.execute(f"PRAGMA journal_mode={journal}")
    files = sorted(p.name for p in data_dir.iterdir())
    content, modified = path.read_bytes(), path.stat().st_mtime_ns

    assert main(["doctor"]) == 1

    said = capsys.readouterr().err
    assert said.startswith("docchat: the database was written by docchat 0.3.0 (schema 0015)")
    assert said.count("\n") == 1
    assert path.read_bytes() == content and path.stat().st_mtime_ns == modified
    assert sorted(p.name for p in data_dir.iterdir()) == files  # no -wal, -shm or backups left


def test_the_version_that_migrated_is_kept_beside_the_revision(database, data_dir):
    build_services(Settings(data_dir=data_dir))

    assert database.rows("SELECT revision, docchat_version FROM schema_upgrades") == [(HEAD, __version__)]


def test_docchat_run_refuses_a_newer_database_before_starting_anything(database, data_dir):
    _written_by_a_newer_docchat(database)
    environment = {**os.environ, "DOCCHAT_LLM_URL": "http://127.0.0.1:9/v1"}

    run = subprocess.run([sys.executable, "-m", "docchat.cli", "run", "--no-llm", "--no-api", "--port", "9"],
                         capture_output=True, text=True, env=environment, timeout=120)

    assert run.returncode == 1
    assert run.stdout == ""
    assert run.stderr.startswith("docchat: the database was written by docchat 0.3.0 (schema 0015)")
    assert run.stderr.count("\n") == 1

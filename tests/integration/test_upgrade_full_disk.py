"""A disk that really fills during an upgrade. The real command runs in its own process over a
copy of the data folder docchat 0008 wrote (tests/fixtures/upgrade/0008), grown with 20,000
chunks so that the upgrade has a lot to write (0009 fills a heading into every chunk and rebuilds
the keyword index, 0014 drops it again for the word index beside the store), under a file size
limit (RLIMIT_FSIZE, SIGXFSZ ignored): a write past the limit fails with EFBIG, as a write to a
full disk fails with ENOSPC. SQLite reports EFBIG as
"disk I/O error" (SQLITE_IOERR_WRITE: its VFS turns only ENOSPC into "database or disk is full").

Figures (SQLite 4 KiB pages): the grown database is 8,359,936 bytes, and so is its backup. Up to
0013 the upgrade's transaction grew the WAL to 9,138,192 bytes (9.3 % more than the database:
every chunk rewritten, the keyword index built again) and failed at its commit under a limit of
the database's size plus 5 %; 0014, which drops FTS5's chunk table, writes more before the
commit, and the same limit now stops the WAL in 0014. Either way the backup gets through and the
transaction, not yet committed, is rolled back. Half the
database's size stops the backup itself, before anything else happens. Between the WAL's size
and the upgraded database's, the commit is written whole and the checkpoint after it stops at the
limit: the WAL keeps the upgrade until a later open has room to finish it.

Where the tests may mount a file system (root), a tmpfs filled but for the backup and 2 MiB gives
a full disk itself: ENOSPC, "database or disk is full", part-way through 0009 (SQLite spills the
transaction's pages to the WAL as its cache fills, so the disk fills before the commit).
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from docchat.store.migrate import newest_revision
from docchat.upgrade_backups import automatic_backups
from docchat_bench.crash_migrate import build_old_database, whole_digest

from tests.conftest import NO_SERVER
from tests.upgrade.expected import FIXTURES

HEAD = newest_revision()
CHUNKS = 20_000
CONVERSATIONS = 3 + 20  # the fixture's, and the ones build_old_database adds


@pytest.fixture
def grown_0008(tmp_path) -> Path:
    """The data folder docchat 0008 wrote, its database grown with CHUNKS chunks in 0008's
    tables, checkpointed into the one file."""
    data = tmp_path / "data"
    shutil.copytree(FIXTURES / "0008" / "data", data)
    database = data / "docchat.db"
    build_old_database(f"sqlite:///{database}", chunks=CHUNKS)
    with closing(sqlite3.connect(database)) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return data


def start(data: Path, *, file_size_limit: int | None = None) -> subprocess.CompletedProcess:
    """The first command of a newer docchat over `data`, each file it writes capped at
    `file_size_limit` bytes."""
    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_size_limit, file_size_limit))
        # Otherwise the kernel's answer to a write past the limit is this signal, which kills.
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

    environment = {**os.environ, "DOCCHAT_DATA_DIR": str(data), "DOCCHAT_LLM_URL": NO_SERVER}
    environment.pop("DOCCHAT_DATABASE_URL", None)
    return subprocess.run([sys.executable, "-m", "docchat.cli", "conversations", "list", "--json"],
                          capture_output=True, text=True, env=environment, timeout=300,
                          preexec_fn=limited if file_size_limit else None)


def looked_at(database: Path) -> dict:
    """What the database holds: every byte, then, read with sqlite3, its revision, counts and
    integrity. (Read-write: a read-only connection would leave -wal and -shm files behind; this
    one, the last to close, removes them. It only reads.)"""
    found = {"sha256": hashlib.sha256(database.read_bytes()).hexdigest()}
    with closing(sqlite3.connect(f"{database.as_uri()}?mode=rw", uri=True)) as db:
        found |= {"revision": db.execute("SELECT version_num FROM alembic_version").fetchone()[0],
                  "integrity": db.execute("PRAGMA integrity_check").fetchone()[0]}
        for table in ("conversations", "messages", "documents", "chunks", "citations"):
            found[table] = db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
    return found


def test_a_disk_that_fills_during_the_upgrade_leaves_the_database_as_it_was_and_the_next_start_upgrades_it(
        grown_0008):
    database = grown_0008 / "docchat.db"
    size = database.stat().st_size
    before, dump, files = looked_at(database), whole_digest(database), sorted(os.listdir(grown_0008))
    assert before["revision"] == "0008" and before["chunks"] == CHUNKS + 5

    failed = start(grown_0008, file_size_limit=size * 105 // 100)

    [backup] = automatic_backups(grown_0008 / "backups")
    assert failed.returncode == 1
    assert failed.stdout == ""
    assert failed.stderr == (f"docchat: the upgrade of the database from schema 0008 to {HEAD} failed at 0014 "
                             f"(OperationalError: disk I/O error); nothing was changed; a backup made before it is in "
                             f"{backup}; the next start tries again\n")
    # No -wal file left to hold anything of the upgrade, and not a byte of the database changed.
    assert sorted(os.listdir(grown_0008)) == sorted([*files, "backups"])
    assert looked_at(database) == before
    assert backup.stat().st_size == size and whole_digest(backup) == dump

    upgraded = start(grown_0008)

    [_, second] = automatic_backups(grown_0008 / "backups")
    assert upgraded.returncode == 0
    assert upgraded.stderr == (f"docchat: upgraded the database from schema 0008 to {HEAD}; the database as it was "
                               f"is in {second}\n")
    assert len(json.loads(upgraded.stdout)) == CONVERSATIONS
    after = looked_at(database)
    assert (after["revision"], after["integrity"], after["chunks"], after["messages"]) == (
        HEAD, "ok", before["chunks"], before["messages"])


def test_a_disk_too_full_for_the_backup_stops_the_upgrade_before_it_begins(grown_0008):
    database = grown_0008 / "docchat.db"
    before, files = looked_at(database), sorted(os.listdir(grown_0008))

    failed = start(grown_0008, file_size_limit=database.stat().st_size // 2)

    assert failed.returncode == 1
    assert failed.stdout == ""
    assert failed.stderr == (f"docchat: the database could not be backed up before its upgrade from schema 0008 to "
                             f"{HEAD} (disk I/O error); nothing was changed\n")
    assert sorted(os.listdir(grown_0008)) == sorted([*files, "backups"])
    assert looked_at(database) == before
    assert list((grown_0008 / "backups").iterdir()) == []  # the half-written copy removed

    assert start(grown_0008).returncode == 0
    assert looked_at(database)["revision"] == HEAD


def test_a_disk_that_fills_as_the_upgraded_database_is_checkpointed_loses_nothing(grown_0008):
    database = grown_0008 / "docchat.db"
    limit = database.stat().st_size * 115 // 100  # the WAL fits; the database grown by the checkpoint does not
    before = looked_at(database)

    upgraded = start(grown_0008, file_size_limit=limit)

    # The commit was written whole to the WAL; the checkpoint that copies it into the database
    # stopped at the limit, and the WAL, which SQLite reads first, keeps what it did not copy.
    assert upgraded.returncode == 0
    assert upgraded.stderr.startswith(f"docchat: upgraded the database from schema 0008 to {HEAD}; ")
    assert database.stat().st_size == limit
    assert database.with_name("docchat.db-wal").stat().st_size > 0
    after = looked_at(database)  # the next open, with room, finishes the checkpoint
    assert (after["revision"], after["integrity"], after["chunks"], after["messages"]) == (
        HEAD, "ok", before["chunks"], before["messages"])
    assert not database.with_name("docchat.db-wal").exists()


@pytest.fixture
def small_disk(tmp_path):
    """A file system of its own (tmpfs, 48 MiB), where a write past its free space fails with
    ENOSPC as on a full disk. Mounting needs root: skipped without it."""
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48m", "tmpfs", str(mount_point)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"no tmpfs of our own here (mounting needs root): {mounted.stderr.strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", str(mount_point)], check=True)


def test_a_full_disk_stops_the_upgrade_mid_migration_and_freeing_space_lets_the_next_start_finish_it(
        grown_0008, small_disk):
    data = small_disk / "data"
    shutil.copytree(grown_0008, data)
    database = data / "docchat.db"
    before, files = looked_at(database), sorted(os.listdir(data))
    # Fill the disk but for room for the backup and 2 MiB: the upgrade's WAL needs 9.1 MB.
    filler = small_disk / "a film the user downloaded"
    filler.write_bytes(b"\0" * (shutil.disk_usage(small_disk).free - database.stat().st_size - 2 * 2**20))

    failed = start(data)

    [backup] = automatic_backups(data / "backups")
    assert failed.returncode == 1
    assert failed.stderr == (f"docchat: the upgrade of the database from schema 0008 to {HEAD} failed at 0009 "
                             f"(OperationalError: database or disk is full); nothing was changed; a backup made "
                             f"before it is in {backup}; the next start tries again\n")
    assert sorted(os.listdir(data)) == sorted([*files, "backups"])
    assert looked_at(database) == before

    filler.unlink()
    upgraded = start(data)

    assert upgraded.returncode == 0
    assert looked_at(database)["revision"] == HEAD

"""The crash campaign's migrate stage: SIGKILL at random moments of a schema upgrade.

A database at schema 0008 is built once with a large library (100,000 chunks by default, so
that 0009's heading fill and keyword-index rebuild has real work) and a few conversations. Each
round copies it into a data dir, starts the upgrade there in a forked process, as the first
start of a newer docchat would (docchat.store.upgrade.upgrade_database: backup, then every
revision in one transaction), and kills it with SIGKILL at a random moment of the upgrade's
measured length. Then the next start looks, before doing anything: the database must be either
exactly as it was (its revision and a dump of every table and index, schema included, the same)
or upgraded (the newest revision, the user's rows the same, the new column filled, integrity
ok), never in between. Then it starts for real, in another process: the upgrade must finish.
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import signal
import sqlite3
import tempfile
import time
from collections import Counter
from contextlib import closing
from datetime import datetime, timezone
from pathlib import Path

from docchat.errors import DocchatError
from docchat.upgrade_backups import automatic_backups

OLD_REVISION = "0008"
DATABASE = "docchat.db"
# The user's rows, in columns every revision from 0008 on has: the same before and after.
USER_ROWS = {
    "conversations": "id, title, created_at, updated_at, pinned, deleted_at",
    "messages": "id, conversation_id, seq, role, content, status",
    "documents": "id, name, path, size, content_hash, chunks, status",
    "chunks": "id, document_id, position, label, page, text",
}
CHUNKS_PER_DOCUMENT = 500
_WORDS = ("tenant", "landlord", "repair", "deposit", "notice", "rent", "clause", "insurance", "boiler",
          "window", "garden", "lease", "arrears", "inventory", "keys", "meter")


def build_old_database(url: str, *, chunks: int, conversations: int = 20, messages: int = 30) -> None:
    """A database at schema 0008 holding `chunks` chunks (in documents of 500) and conversations,
    written as docchat of that revision wrote them: its migrations, then rows in its tables."""
    from sqlalchemy import text

    from docchat.store.engine import make_engine
    from docchat.store.migrate import upgrade

    engine = make_engine(url)
    try:
        upgrade(engine, OLD_REVISION)
        with engine.begin() as connection:
            # As UTCDateTime writes a moment: SQLite's text without an offset, PostgreSQL's timestamptz.
            moment = datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc)
            at = moment.replace(tzinfo=None).isoformat(" ", "microseconds") if engine.dialect.name == "sqlite" else moment
            connection.execute(text(
                "INSERT INTO conversations (id, title, created_at, updated_at, pinned, archived, metadata) "
                "VALUES (:id, :title, :at, :at, false, false, '{}')"),
                [{"id": f"c{n:04d}", "title": f"Flat {n} lease questions", "at": at} for n in range(conversations)])
            connection.execute(text(
                "INSERT INTO messages (id, conversation_id, seq, role, content, created_at, status, citations) "
                "VALUES (:id, :conversation, :seq, :role, :content, :at, 'complete', '[]')"),
                [{"id": f"m{n:04d}-{seq}", "conversation": f"c{n:04d}", "seq": seq,
                  "role": "user" if seq % 2 else "assistant", "at": at,
                  "content": f"Turn {seq} of flat {n}: who fixes the {_WORDS[seq % len(_WORDS)]}?"}
                 for n in range(conversations) for seq in range(1, messages + 1)])
            documents = max(1, -(-chunks // CHUNKS_PER_DOCUMENT))
            connection.execute(text(
                "INSERT INTO documents (id, name, kind, path, size, content_hash, pages, chunks, status, added_at) "
                "VALUES (:id, :name, 'txt', :path, 1000, :hash, null, :chunks, 'ready', :at)"),
                [{"id": f"d{n:04d}", "name": f"lease-{n}.txt", "path": f"documents/d{n:04d}/lease-{n}.txt",
                  "hash": hashlib.sha256(str(n).encode()).hexdigest(), "at": at,
                  "chunks": min(CHUNKS_PER_DOCUMENT, chunks - n * CHUNKS_PER_DOCUMENT)} for n in range(documents)])
            connection.execute(text(
                "INSERT INTO chunks (id, document_id, position, label, page, text, token_count) "
                "VALUES (:id, :document, :position, :label, null, :text, 40)"),
                [{"id": f"k{n:06d}", "document": f"d{n // CHUNKS_PER_DOCUMENT:04d}",
                  "position": n % CHUNKS_PER_DOCUMENT, "label": f"section {n % CHUNKS_PER_DOCUMENT + 1}",
                  "text": " ".join(_WORDS[(n * 7 + i) % len(_WORDS)] for i in range(30)) + f" item {n}"}
                 for n in range(chunks)])
    finally:
        engine.dispose()


def user_rows_digest(path: Path) -> str:
    """A checksum of the user's rows (USER_ROWS), the same at every revision from 0008 on."""
    digest = hashlib.sha256()
    with closing(sqlite3.connect(path)) as db:
        for table, columns in USER_ROWS.items():
            for row in db.execute(f"SELECT {columns} FROM {table} ORDER BY pk"):
                digest.update(repr(row).encode())
    return digest.hexdigest()


def whole_digest(path: Path) -> str:
    """A checksum of everything the database holds: its schema and every row of every table."""
    digest = hashlib.sha256()
    with closing(sqlite3.connect(path)) as db:
        for line in db.iterdump():
            digest.update(line.encode())
    return digest.hexdigest()


def state(path: Path) -> dict:
    """What the next start finds, read before it changes anything."""
    with closing(sqlite3.connect(path)) as db:
        revision = db.execute("SELECT version_num FROM alembic_version").fetchone()[0]
        integrity = db.execute("PRAGMA integrity_check").fetchone()[0]
        columns = {row[1] for row in db.execute("PRAGMA table_info(chunks)")}
        headless = (db.execute("SELECT COUNT(*) FROM chunks WHERE heading = ''").fetchone()[0]
                    if "heading" in columns else None)
    return {"revision": revision, "integrity": integrity, "headless_chunks": headless}


def run_migrate_stage(*, kills: int, chunks: int, rng: random.Random, say) -> dict:
    """The stage's rounds; its figures as a dict (see _Tally.result)."""
    from docchat.store.migrate import newest_revision

    newest = newest_revision()
    with tempfile.TemporaryDirectory(prefix="docchat-bench-migrate-") as tmp:
        root = Path(tmp)
        original = root / "original.db"
        started = time.monotonic()
        build_old_database(f"sqlite:///{original}", chunks=chunks)
        say(f"migrate: a database at schema {OLD_REVISION} with {chunks:,} chunks, built in "
            f"{time.monotonic() - started:.1f} s; upgrading it to {newest}")
        before = {"whole": whole_digest(original), "user": user_rows_digest(original)}
        data = root / "data"
        seconds = _calibrate(original, data, before, newest)
        say(f"  the upgrade, unkilled: {seconds:.2f} s (its backup included)")
        tally = _Tally(seconds)
        while tally.kills < kills:
            _fresh_copy(original, data)
            delay = rng.uniform(0, seconds)
            finished, moment = _killed_upgrade(data, delay)
            found = _found(data, before, newest)
            if found["outcome"] == "upgraded" and not finished:
                moment = "after the commit, before the process ended"
            failed = _start(data)
            tally.add(finished, moment, found, _after_again(data, before, newest) if failed is None else failed)
            if not finished:
                say(f"kill {tally.kills:3d}/{kills}  migrate  at {delay:5.2f} s  {moment:<26} the next start found "
                    f"it {found['outcome']}, then {tally.last_then}")
        tally.backups_kept = len(automatic_backups(data / "backups"))
        return tally.result()


def _calibrate(original: Path, data: Path, before: dict, newest: str | None) -> float:
    _fresh_copy(original, data)
    started = time.monotonic()
    failed = _start(data)
    seconds = time.monotonic() - started
    if failed is not None:
        raise DocchatError(f"the upgrade failed with no kill at all: {failed}")
    problem = _after_again(data, before, newest)
    if problem != "upgraded":
        raise DocchatError(f"the upgrade with no kill left {problem}")
    return seconds


def _fresh_copy(original: Path, data: Path) -> None:
    """The old database (closed: a file copy is whole) into the data dir; its earlier automatic
    backups stay, so the pruning runs too."""
    data.mkdir(exist_ok=True)
    for leftover in data.glob(f"{DATABASE}*"):
        leftover.unlink()
    shutil.copyfile(original, data / DATABASE)


def _upgrade_in_this_process(data: Path) -> None:
    from docchat.store.upgrade import upgrade_database

    upgrade_database(f"sqlite:///{data / DATABASE}", data)


def _killed_upgrade(data: Path, delay: float) -> tuple[bool, str]:
    """Starts the upgrade in a forked process and kills it `delay` seconds later; (whether it
    had ended by then, where the kill landed)."""
    backups = data / "backups"
    made_before = set(backups.glob("*.db"))
    pid = _fork(lambda: _upgrade_in_this_process(data))
    deadline = time.monotonic() + delay
    while time.monotonic() < deadline:
        finished, _ = os.waitpid(pid, os.WNOHANG)
        if finished:
            return True, "after the upgrade ended"
        time.sleep(0.002)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    if any(backups.glob("*.partial")):
        return False, "during the backup"
    if not set(backups.glob("*.db")) - made_before:
        return False, "before the backup began"
    return False, "migrating, the backup made"


def _found(data: Path, before: dict, newest: str | None) -> dict:
    found = state(data / DATABASE)
    if found["revision"] == OLD_REVISION and whole_digest(data / DATABASE) == before["whole"]:
        found["outcome"] = "as it was"
    elif (found["revision"] == newest and found["integrity"] == "ok" and found["headless_chunks"] == 0
          and user_rows_digest(data / DATABASE) == before["user"]):
        found["outcome"] = "upgraded"
    else:
        found["outcome"] = "in between"
    return found


def _start(data: Path) -> str | None:
    """The next start, in a process of its own: None when it opened the database, else why not."""
    read, write = os.pipe()
    pid = _fork(lambda: _upgrade_in_this_process(data), report=write)
    os.close(write)
    with os.fdopen(read) as stream:
        said = stream.read()
    _, status = os.waitpid(pid, 0)
    return None if status == 0 else (said or f"the process ended with status {status}")


def _after_again(data: Path, before: dict, newest: str | None) -> str:
    found = _found(data, before, newest)
    return "upgraded" if found["outcome"] == "upgraded" else f"{found['outcome']} ({found})"


def _fork(task, *, report: int | None = None) -> int:
    pid = os.fork()
    if pid:
        return pid
    code = 0
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        try:
            task()
        except BaseException as error:
            code = 1
            if report is not None:
                os.write(report, f"{type(error).__name__}: {error}"[-1500:].encode())
    finally:
        os._exit(code)


class _Tally:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.kills = 0
        self.finished_first = 0
        self.by_moment: Counter = Counter()
        self.outcomes: Counter = Counter()
        self.next_start_failed = 0
        self.problems: list[str] = []
        self.last_then = ""
        self.backups_kept = 0

    def add(self, finished: bool, moment: str, found: dict, after: str) -> None:
        if finished:
            self.finished_first += 1
        else:
            self.kills += 1
        self.by_moment[moment] += 1
        self.outcomes[found["outcome"]] += 1
        if found["outcome"] == "in between":
            self.problems.append(f"killed {moment}: {found}")
        self.last_then = "upgraded it" if after == "upgraded" else "FAILED"
        if after != "upgraded":
            self.next_start_failed += 1
            self.problems.append(f"the start after a kill {moment}: {after}")

    def result(self) -> dict:
        return {"kills": self.kills, "upgrade_seconds": round(self.seconds, 2),
                "ended_before_the_kill": self.finished_first, "by_moment": dict(self.by_moment),
                "found_as_it_was": self.outcomes["as it was"], "found_upgraded": self.outcomes["upgraded"],
                "found_in_between": self.outcomes["in between"], "next_start_failed": self.next_start_failed,
                "automatic_backups_kept": self.backups_kept,
                "problems": self.problems[:20]}

"""Engine creation: SQLite gets WAL, a busy timeout and foreign keys on every connection."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url

WRITE_OPTION = "docchat_write"


def make_engine(url: str, *, busy_timeout_s: float = 10.0) -> Engine:
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True)
    if parsed.database and parsed.database != ":memory:":
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(
        url,
        connect_args={"timeout": busy_timeout_s, "check_same_thread": False},
    )
    _configure_sqlite(engine, busy_timeout_ms=int(busy_timeout_s * 1000))
    return engine


def _configure_sqlite(engine: Engine, *, busy_timeout_ms: int) -> None:
    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection, _record):
        # pysqlite's own implicit BEGIN is switched off so that "begin" below decides.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={busy_timeout_ms}")
        cursor.execute("PRAGMA foreign_keys=ON")
        # WAL + NORMAL is durable against application crashes; only an OS crash can lose
        # the last commits, never corrupt the file.
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def on_begin(connection):
        # A writer takes the lock up front: a deferred transaction that reads, then writes,
        # fails at once with SQLITE_BUSY when another writer got in between, and
        # busy_timeout cannot help it.
        if connection.get_execution_options().get(WRITE_OPTION):
            connection.exec_driver_sql("BEGIN IMMEDIATE")
        else:
            connection.exec_driver_sql("BEGIN")

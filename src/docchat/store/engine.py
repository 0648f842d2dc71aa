"""Engine creation. SQLite gets WAL, a busy timeout and foreign keys on every connection;
PostgreSQL gets psycopg 3 and a writers' lock. On both, a writer's transaction excludes every
other writer from its start: a turn reads the next seq, then writes it."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url

WRITE_OPTION = "docchat_write"
# The key of the advisory lock PostgreSQL writers take: any number no other program uses on
# the same database ("dcht").
WRITERS_LOCK = 0x64636874


def make_engine(url: str, *, busy_timeout_s: float = 10.0) -> Engine:
    parsed = make_url(url)
    if parsed.get_backend_name() == "postgresql":
        # `postgresql://` names psycopg2 in SQLAlchemy; docchat ships psycopg 3.
        if parsed.drivername == "postgresql":
            parsed = parsed.set(drivername="postgresql+psycopg")
        engine = create_engine(parsed, pool_pre_ping=True)
        _configure_postgresql(engine)
        return engine
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
        # Reads go straight to the OS's cached pages instead of through SQLite's 2 MB page
        # cache, which a 2,000-message history (2.2 MB) or a search's match lists overflow:
        # 1 ms off such a read, 3 ms off a broad search. Address space only; nothing is copied.
        cursor.execute("PRAGMA mmap_size=268435456")
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


def _configure_postgresql(engine: Engine) -> None:
    @event.listens_for(engine, "begin")
    def on_begin(connection):
        # Read committed lets two writers read the same last seq and collide on the second
        # insert; like SQLite's BEGIN IMMEDIATE, a writer waits for the one before it to end.
        # Readers never wait. The lock goes with the transaction.
        if connection.get_execution_options().get(WRITE_OPTION):
            connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({WRITERS_LOCK})")

"""The database a test's store runs on, read with that database's own driver (sqlite3 or
psycopg), so assertions never go through docchat's code."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import psycopg
from sqlalchemy.engine import make_url

# Summaries have no integer key; their uuid orders them stably enough for a comparison.
CONTENT_TABLES = {"conversations": "pk", "messages": "pk", "summaries": "id"}


class StoreDatabase:
    def __init__(self, url: str):
        self.url = url
        self.kind = make_url(url).get_backend_name()

    def rows(self, statement: str, *params) -> list[tuple]:
        """The rows of one statement; `?` marks a parameter on either database."""
        if self.kind == "sqlite":
            with closing(sqlite3.connect(make_url(self.url).database)) as db:
                return db.execute(statement, params).fetchall()
        conninfo = make_url(self.url).set(drivername="postgresql").render_as_string(hide_password=False)
        with psycopg.connect(conninfo) as db:
            return db.execute(statement.replace("?", "%s"), params).fetchall()

    def write(self, statement: str, *params) -> None:
        """One statement, committed (a difference planted behind docchat's back)."""
        if self.kind == "sqlite":
            with closing(sqlite3.connect(make_url(self.url).database)) as db, db:
                db.execute(statement, params)
            return
        conninfo = make_url(self.url).set(drivername="postgresql").render_as_string(hide_password=False)
        with psycopg.connect(conninfo) as db:
            db.execute(statement.replace("?", "%s"), params)

    def table_contents(self) -> dict[str, list[tuple]]:
        """Every row of the content tables."""
        return {table: self.rows(f"SELECT * FROM {table} ORDER BY {key}") for table, key in CONTENT_TABLES.items()}


def new_database(request, kind: str, data_dir: Path) -> StoreDatabase:
    """SQLite in the data dir, or a new database in the session's PostgreSQL cluster (the
    `postgres` fixture), dropped when the test ends."""
    if kind == "sqlite":
        return StoreDatabase(f"sqlite:///{data_dir / 'docchat.db'}")
    cluster = request.getfixturevalue("postgres")
    url = cluster.create_database()
    request.addfinalizer(lambda: cluster.drop_database(url))
    return StoreDatabase(url)


def head_revision() -> str | None:
    """The newest revision as Alembic itself finds it among docchat's migration files: what a
    database `docchat` upgrades must end at (docchat reads the files without Alembic)."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    from docchat.store.migrate import MIGRATIONS

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return ScriptDirectory.from_config(config).get_current_head()

"""Applies the ordered Alembic migrations at start-up and reports the schema version.

A database already at the newest schema, which is every start but the first after an upgrade,
is recognised without Alembic: its revision is read with SQLAlchemy and compared with the
newest migration file's. Importing Alembic to find there is nothing to do cost every command
about a third of a second.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError

from docchat.store.engine import WRITERS_LOCK

MIGRATIONS = Path(__file__).with_name("migrations")
_REVISION = re.compile(r"^(down_revision|revision)\s*(?::[^=]*)?=\s*(?:None|[\"']([^\"']*)[\"'])\s*$", re.M)


def _config():
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def upgrade(engine: Engine, revision: str = "head") -> None:
    if revision == "head" and _at_newest(engine):
        return
    from alembic import command

    config = _config()
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            # Instances starting at once on a shared server migrate one after the other: the
            # later ones find nothing left to do.
            connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({WRITERS_LOCK})")
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


def current_revision(engine: Engine) -> str | None:
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def head_revision() -> str | None:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(_config()).get_current_head()


def newest_revision() -> str | None:
    """The newest migration's revision, read from the files as Alembic would find it; None
    when the files do not name exactly one (then Alembic decides)."""
    return _newest(tuple(sorted((MIGRATIONS / "versions").glob("*.py"))))


@functools.cache
def _newest(files: tuple[Path, ...]) -> str | None:
    revisions, parents = set(), set()
    for path in files:
        named = dict(_REVISION.findall(path.read_text(encoding="utf-8")))
        if "revision" not in named or "down_revision" not in named:
            return None
        revisions.add(named["revision"])
        parents.add(named["down_revision"])
    heads = revisions - parents
    return heads.pop() if len(heads) == 1 else None


def _at_newest(engine: Engine) -> bool:
    newest = newest_revision()
    if newest is None:
        return False
    try:
        with engine.connect() as connection:
            stored = [row[0] for row in connection.exec_driver_sql("SELECT version_num FROM alembic_version")]
    except DBAPIError:  # a new database: no version table yet
        return False
    return stored == [newest]

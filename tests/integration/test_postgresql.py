"""What only PostgreSQL needs: its driver, its search indexes, instances sharing one server.
Everything else runs on both databases in the store, conversation, trash, transfer and
retrieval tests."""

from __future__ import annotations

import subprocess
import sys

import pytest
from sqlalchemy import text

from docchat.store.engine import make_engine
from docchat.store.migrate import current_revision, upgrade

from tests.databases import head_revision

pytestmark = pytest.mark.parametrize("database", ["postgresql"], indirect=True)


def test_a_plain_postgresql_url_connects_with_the_bundled_driver(database):
    engine = make_engine(database.url.replace("postgresql+psycopg://", "postgresql://"))

    with engine.connect() as connection:
        assert connection.execute(text("SELECT 1")).scalar() == 1
    assert engine.dialect.driver == "psycopg"
    engine.dispose()


@pytest.mark.parametrize("table", ["messages", "conversations", "chunks"])
def test_searches_use_the_full_text_index_of_their_table(database, table):
    engine = make_engine(database.url)
    upgrade(engine)

    with engine.connect() as connection:
        # A few rows make a sequential scan cheapest; the question is whether the index fits.
        connection.execute(text("SET enable_seqscan = off"))
        plan = connection.execute(text(
            f"EXPLAIN SELECT pk FROM {table} WHERE search_vector @@ to_tsquery('simple', 'trust')"
        )).scalars().all()
    engine.dispose()
    assert f"ix_{table}_search" in "\n".join(plan)


# An instance: imports, says it is ready, and migrates when told to go.
INSTANCE = """
import sys
from docchat.store.engine import make_engine
from docchat.store.migrate import upgrade
engine = make_engine(sys.argv[1])
print("ready", flush=True)
sys.stdin.readline()
upgrade(engine)
"""


def test_two_instances_starting_at_once_on_an_empty_database_both_start(database):
    # Two processes, as two app instances on two machines would be, let go at the same moment.
    instances = [subprocess.Popen([sys.executable, "-c", INSTANCE, database.url], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    assert [instance.stdout.readline() for instance in instances] == ["ready\n"] * 2
    for instance in instances:
        instance.stdin.write("go\n")
        instance.stdin.flush()

    failures = [error for _, error in (instance.communicate(timeout=120) for instance in instances) if error]

    assert failures == []
    assert [instance.returncode for instance in instances] == [0, 0]
    engine = make_engine(database.url)
    assert current_revision(engine) == head_revision()
    engine.dispose()

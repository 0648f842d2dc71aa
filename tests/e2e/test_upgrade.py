"""`docchat run` over a data dir an older docchat wrote: it backs the database up, upgrades it,
says where the backup is, and the Settings page says so too. The page started directly
(`streamlit run app.py`) over a database it cannot use shows the one line `docchat run` would
have printed, and nothing else."""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from playwright.sync_api import expect

from docchat import __version__
from docchat.store.migrate import newest_revision
from docchat.store.upgrade import upgrade_database
from docchat.upgrade_backups import automatic_backups
from docchat_bench.crash_migrate import build_old_database

from tests.e2e.conftest import ARTIFACTS, FIRST_LOAD_MS, _serve, go_to, open_app, settled

NO_SERVER = "http://127.0.0.1:9/v1"


@pytest.fixture
def older_app_url(tmp_path):
    """The page over a database at schema 0008, with 20 conversations and a library."""
    build_old_database(f"sqlite:///{tmp_path / 'data' / 'docchat.db'}", chunks=600)
    yield from _serve(tmp_path, llm_url="http://127.0.0.1:9/v1")


def test_the_start_line_and_the_settings_page_say_where_the_backup_made_before_the_upgrade_is(
        older_app_url, page, tmp_path):
    [backup] = automatic_backups(tmp_path / "data" / "backups")
    said = (tmp_path / "streamlit.log").read_text()
    assert f"docchat: upgraded the database from schema 0008 to {newest_revision()}; the database as it was is in {backup}" in said

    open_app(page, older_app_url)
    expect(page.get_by_text("Flat 19 lease questions")).to_be_visible()
    go_to(page, "Settings")

    expect(page.get_by_text(f"Before the last upgrade: {backup}")).to_be_visible(timeout=30_000)
    expect(page.get_by_text(f"Schema version: {newest_revision()}", exact=False)).to_be_visible()
    page.get_by_text(f"Before the last upgrade: {backup}").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "settings_before_upgrade.png"))


def _files(data: Path) -> list[tuple[str, bytes | None]]:
    """Every file and folder of the data dir, each file with its bytes."""
    return sorted((str(path.relative_to(data)), path.read_bytes() if path.is_file() else None)
                  for path in data.rglob("*"))


@pytest.fixture
def newer_data(tmp_path) -> list[tuple[str, bytes | None]]:
    """A data dir whose database docchat 0.3.0 upgraded to schema 0015 (as
    tests/integration/test_upgrade_safety.py makes one); what it holds before the page opens."""
    data = tmp_path / "data"
    data.mkdir()
    upgrade_database(f"sqlite:///{data / 'docchat.db'}", data)
    with closing(sqlite3.connect(data / "docchat.db")) as db, db:
        db.execute("UPDATE alembic_version SET version_num = '0015'")
        db.execute("INSERT INTO schema_upgrades (revision, docchat_version, upgraded_at) "
                   "VALUES ('0015', '0.3.0', '2027-01-05 00:00:00.000000')")
    return _files(data)


@pytest.fixture
def started_directly(tmp_path, newer_data):
    """`streamlit run app.py` over that data dir: no `docchat run` before it to refuse it."""
    yield from _serve(tmp_path, llm_url=NO_SERVER, guarded=False)


def test_the_page_started_directly_on_a_newer_database_shows_one_line_and_changes_nothing(
        newer_data, started_directly, page, tmp_path):
    line = (f"the database was written by docchat 0.3.0 (schema 0015); this is docchat {__version__} (schema "
            f"{newest_revision()}). Nothing was changed: open it with docchat 0.3.0 or newer")

    page.goto(started_directly)

    _shows_only(page, line)
    page.screenshot(path=str(ARTIFACTS / "newer_database_refused.png"))
    page.goto(f"{started_directly}/Settings")  # a page's own address: the same line
    _shows_only(page, line)
    assert _files(tmp_path / "data") == newer_data  # not a byte written, no -wal, -shm or backup


@pytest.fixture
def unbackupable_data(tmp_path) -> list[tuple[str, bytes | None]]:
    """A data dir at schema 0008 whose upgrade fails: a file stands where its backups go."""
    data = tmp_path / "data"
    build_old_database(f"sqlite:///{data / 'docchat.db'}", chunks=50)
    (data / "backups").write_text("a file where the backups folder would go")
    return _files(data)


@pytest.fixture
def started_directly_on_a_failing_upgrade(tmp_path, unbackupable_data):
    yield from _serve(tmp_path, llm_url=NO_SERVER, guarded=False)


def test_the_page_started_directly_on_an_upgrade_that_fails_shows_its_one_line_and_changes_nothing(
        unbackupable_data, started_directly_on_a_failing_upgrade, page, tmp_path):
    page.goto(started_directly_on_a_failing_upgrade)

    refusal = page.get_by_test_id("stAlertContentError")
    expect(refusal).to_contain_text("the database could not be backed up before its upgrade from schema 0008 to "
                                    f"{newest_revision()} (", timeout=FIRST_LOAD_MS)
    _shows_only(page, re.compile(r".*\); nothing was changed$"))
    page.screenshot(path=str(ARTIFACTS / "failed_upgrade_refused.png"))
    assert _files(tmp_path / "data") == unbackupable_data


def _shows_only(page, line: str | re.Pattern) -> None:
    """The page shows `line` as an error, and nothing else of the app: no traceback, no chat box,
    no page list."""
    refusal = page.get_by_test_id("stAlertContentError")
    expect(refusal).to_be_visible(timeout=FIRST_LOAD_MS)
    settled(page)
    expect(refusal).to_have_text(line)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    expect(page.get_by_text("Traceback")).to_have_count(0)
    expect(page.get_by_placeholder("Ask about your documents")).to_have_count(0)
    expect(page.get_by_test_id("stSidebar")).to_have_count(0)
    expect(page.locator("[data-testid='stMain'] [data-testid='stElementContainer']")).to_have_count(1)

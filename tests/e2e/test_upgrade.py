"""`docchat run` over a data dir an older docchat wrote: it backs the database up, upgrades it,
says where the backup is, and the Settings page says so too."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from docchat.upgrade_backups import automatic_backups
from docchat_bench.crash_migrate import build_old_database

from tests.e2e.conftest import ARTIFACTS, _serve, open_app


@pytest.fixture
def older_app_url(tmp_path):
    """The page over a database at schema 0008, with 20 conversations and a library."""
    build_old_database(f"sqlite:///{tmp_path / 'data' / 'docchat.db'}", chunks=600)
    yield from _serve(tmp_path, llm_url="http://127.0.0.1:9/v1")


def test_the_start_line_and_the_settings_page_say_where_the_backup_made_before_the_upgrade_is(
        older_app_url, page, tmp_path):
    [backup] = automatic_backups(tmp_path / "data" / "backups")
    said = (tmp_path / "streamlit.log").read_text()
    assert f"docchat: upgraded the database from schema 0008 to 0013; the database as it was is in {backup}" in said

    open_app(page, older_app_url)
    expect(page.get_by_text("Flat 19 lease questions")).to_be_visible()
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="Settings").click()

    expect(page.get_by_text(f"Before the last upgrade: {backup}")).to_be_visible(timeout=30_000)
    expect(page.get_by_text("Schema version: 0013", exact=False)).to_be_visible()
    page.get_by_text(f"Before the last upgrade: {backup}").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "settings_before_upgrade.png"))

"""The Settings page changes what a user would change, saved in the data directory and applied
without a restart."""

import json

from playwright.sync_api import expect

from tests.e2e.conftest import ARTIFACTS, go_to, open_app


def test_preferences_are_saved_applied_at_once_and_kept_after_a_reload(app_url_with_saved_settings, page, tmp_path):
    open_app(page, app_url_with_saved_settings)
    go_to(page, "Settings")

    address = page.get_by_label("LLM server address")
    expect(address).to_have_value("http://127.0.0.1:9/v1")
    address.fill("http://127.0.0.1:7/v1")
    page.get_by_role("button", name="Check this address").click()
    expect(page.get_by_text("the LLM server is not running at http://127.0.0.1:7/v1")).to_be_visible()

    answer = page.get_by_label("Longest answer, in tokens")
    answer.fill("200")
    page.get_by_role("button", name="Save preferences").click()
    expect(page.get_by_text("Preferences saved and applied.")).to_be_visible(timeout=30_000)
    saved = json.loads((tmp_path / "data" / "settings.json").read_text())
    assert (saved["max_tokens"], saved["llm_url"]) == (200, "http://127.0.0.1:7/v1")
    # Applied without a restart: the page now talks about the new address.
    expect(page.get_by_text("the LLM server is not running at http://127.0.0.1:7/v1").first).to_be_visible()
    expect(page.get_by_text("Answer reserve")).to_be_visible()
    page.screenshot(path=str(ARTIFACTS / "settings_preferences.png"), full_page=True)

    page.reload()
    expect(page.get_by_label("Longest answer, in tokens")).to_have_value("200", timeout=30_000)
    go_to(page, "Chat")
    expect(page.get_by_placeholder("Ask about your documents")).to_be_visible()

"""The Settings page over Ollama (its recorded responses, served from 127.0.0.1), in Chromium: it
names the server, warns that the window is assumed, shows no prefix-cache figure, and lets the
user pick one of the models Ollama serves."""

import json

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import ARTIFACTS, _serve, go_to, open_app, settled
from tests.fault.recorded_server import RecordedServer


@pytest.fixture
def ollama():
    with RecordedServer("ollama") as server:
        yield server


@pytest.fixture
def app_over_ollama(tmp_path, ollama):
    yield from _serve(tmp_path, llm_url=f"{ollama.url}/v1", extra_env={"DOCCHAT_CONTEXT_PROGRAMS": "false"})


def test_the_settings_page_says_what_ollama_gives_and_offers_its_models(app_over_ollama, ollama, page, tmp_path):
    open_app(page, app_over_ollama)
    go_to(page, "Settings")

    expect(page.get_by_text(f"Connected to qwen3:4b on Ollama at {ollama.url}/v1")).to_be_visible(timeout=30_000)
    expect(page.get_by_text("Window: 4,096 tokens, assumed")).to_be_visible()
    expect(page.get_by_test_id("stMetric").filter(has_text="Prefix-cache hits")).to_contain_text("not reported")
    settled(page)
    page.screenshot(path=str(ARTIFACTS / "settings_ollama.png"), full_page=True)

    # Typed into, key by key, which opens the list: a click on the box only focused it in some
    # runs, and focus with ArrowDown opened no list in a fresh clone under load. In a form, the
    # choice starts no run: Save does.
    page.get_by_role("combobox", name="Model").press_sequentially("llama3.2")
    page.get_by_role("option", name="llama3.2:latest").click()
    page.get_by_role("button", name="Save preferences").click()

    expect(page.get_by_text(f"Connected to llama3.2:latest on Ollama at {ollama.url}/v1")).to_be_visible(
        timeout=30_000)
    saved = json.loads((tmp_path / "data" / "settings.json").read_text())
    assert saved["llm_model"] == "llama3.2:latest"

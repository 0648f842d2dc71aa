"""`make run` serves the page at once while its LLM server starts: the page says what the server is
doing and for how long, everything but answers works meanwhile, and once the server answers the
notice goes by itself and a question is answered. docchat's launcher, watchdog and page are the
real ones; the server is a stand-in that starts when the test says (tests.fault.starting_server)."""

from __future__ import annotations

import os
import re

from playwright.sync_api import expect

from tests.e2e.conftest import (ARTIFACTS, _wait_healthy, ask, docchat_run, go_to, open_app, open_popover, run_by_click,
                                settled)
from tests.fault.starting_server import stand_in_venv
from tests.network import free_port

LEASE = b"# Lease\n\n## Break clause\n\nThe tenant may end the lease on the fifth anniversary.\n"


def test_the_page_says_what_the_starting_server_does_works_meanwhile_and_answers_once_it_is_ready(tmp_path, page):
    go = tmp_path / "go"
    page_port = free_port()
    env = {**os.environ, "DOCCHAT_DATA_DIR": str(tmp_path / "data"), "DOCCHAT_CACHE_DIR": str(tmp_path / "cache"),
           "DOCCHAT_LLM_VENV": str(stand_in_venv(tmp_path / "venv", pace_s=0.5, go=go)),
           "DOCCHAT_LLM_PORT": str(free_port()), "DOCCHAT_MAX_TOKENS": "64"}
    env.pop("DOCCHAT_LLM_URL", None)
    with docchat_run(tmp_path, "--no-api", "--port", str(page_port), env=env) as run:
        url = f"http://127.0.0.1:{page_port}"
        _wait_healthy(url, run.process)
        open_app(page, url)
        starting = page.get_by_text(re.compile(r"The model server is starting: .+, \d+ (s|min \d\d s) so far"))
        expect(starting).to_be_visible()
        page.screenshot(path=str(ARTIFACTS / "server_starting.png"), full_page=True)

        go_to(page, "Documents")
        (tmp_path / "lease.md").write_bytes(LEASE)
        settled(page)
        page.locator("input[type=file]").first.set_input_files(str(tmp_path / "lease.md"))
        page.get_by_role("button", name="Ingest").click()
        expect(page.get_by_text("Library (1)")).to_be_visible(timeout=120_000)
        go_to(page, "Chat")
        expect(starting).to_be_visible()

        go.touch()
        expect(starting).to_have_count(0, timeout=60_000)
        ask(page, "When may the tenant end the lease?")
        # Quoted on a fresh install, while docchat learns the model; asked again in the model's
        # own words, the model answers (the stand-in answers every request so).
        answer = page.get_by_test_id("stChatMessage").nth(1)
        expect(answer.get_by_text("Quoted from your documents.")).to_be_visible(timeout=60_000)
        settled(page)
        menu = open_popover(page, page.get_by_role("button", name="Answer another way"))
        run_by_click(page, menu.get_by_role("button", name="Write it in the model's own words"))
        answer = page.get_by_test_id("stChatMessage").nth(1)
        expect(answer).to_contain_text("The Determination Date is the 15th.", timeout=60_000)
    assert "  starting the LLM server: loading the model" in run.printed and "LLM server ready in" in run.printed

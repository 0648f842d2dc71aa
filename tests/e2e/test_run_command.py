"""`docchat run` (what `make run` starts) serves the page and the HTTP API from one process: a
document added through either is in the other's library, and Ctrl-C stops both."""

from __future__ import annotations

import os

import httpx
from playwright.sync_api import expect

from tests.e2e.conftest import ARTIFACTS, _wait_healthy, docchat_run, go_to, open_app, settled
from tests.network import free_port

LEASE = b"# Lease\n\n## Break clause\n\nThe tenant may end the lease on the fifth anniversary.\n"
TRUST = b"# Trust\n\n## Dates\n\nThe Determination Date is the 15th of each month.\n"


def test_the_page_and_the_api_started_by_docchat_run_share_one_library_and_stop_together(tmp_path, page):
    page_port, api_port = free_port(), free_port()
    env = {**os.environ, "DOCCHAT_DATA_DIR": str(tmp_path / "data"), "DOCCHAT_LLM_URL": "http://127.0.0.1:9/v1"}
    with docchat_run(tmp_path, "--no-llm", "--port", str(page_port), "--api-port", str(api_port), env=env) as run:
        url = f"http://127.0.0.1:{page_port}"
        _wait_healthy(url, run.process)
        api = httpx.Client(base_url=f"http://127.0.0.1:{api_port}", timeout=120)
        assert api.post("/api/v1/documents", files={"file": ("lease.md", LEASE)}).status_code == 201

        open_app(page, url)
        go_to(page, "Documents")
        expect(page.get_by_text("lease.md")).to_be_visible()
        (tmp_path / "trust.md").write_bytes(TRUST)
        settled(page)  # a file chosen during the page's run is lost when the uploader is drawn anew
        page.locator("input[type=file]").first.set_input_files(str(tmp_path / "trust.md"))
        page.get_by_role("button", name="Ingest").click()
        expect(page.get_by_text("Library (2)")).to_be_visible(timeout=120_000)
        page.screenshot(path=str(ARTIFACTS / "run_page_and_api.png"), full_page=True)

        assert sorted(d["name"] for d in api.get("/api/v1/documents").json()) == ["lease.md", "trust.md"]
    assert f"the API: http://127.0.0.1:{api_port}" in run.printed and "stopping the API" in run.printed


def test_docchat_run_uses_a_server_already_listening_at_the_address_whatever_it_is(tmp_path):
    # Not vLLM (no /health here would be vLLM's): an Ollama or LM Studio on this machine is used as it is.
    from tests.fault.fake_server import FakeLLMServer

    other = FakeLLMServer().start()
    page_port = free_port()
    env = {**os.environ, "DOCCHAT_DATA_DIR": str(tmp_path / "data"), "DOCCHAT_LLM_URL": f"{other.url}/v1"}
    try:
        with docchat_run(tmp_path, "--no-api", "--port", str(page_port), env=env) as run:
            _wait_healthy(f"http://127.0.0.1:{page_port}", run.process)
    finally:
        other.stop()
    assert f"using the LLM server at {other.url}/v1" in run.printed
    assert "starting vLLM" not in run.printed and "stopping the LLM server" not in run.printed

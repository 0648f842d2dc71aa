"""Starts the LLM server docchat runs, beside the page, and keeps it running.

`docchat run` serves the page and the API at once and starts the server on the watchdog's
thread (`start(first_launch=True)`): a start takes a minute to several on a busy machine, and
everything but answers works meanwhile; a question asked then gets what the server is doing
(`notice`), and the page shows it as it goes (docchat.llm.start_progress).

The embedded server can die on its own (seen: `EngineDeadError` after a five-minute stall, then
every later question failed until a manual restart). The watchdog notices it, within a couple of
seconds, by the server's process ending or by its /health answering with a server error (the
engine dead under a live API process), and starts it again: at most `MAX_RESTARTS` times in
`WINDOW_S`, each logged and printed. While it is down, a question fails with a plain notice of
what happened instead of "not running" (`notice`), so the page and the CLI say it.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable

import httpx

from docchat.errors import DocchatError, ServerEnded
from docchat.llm.start_progress import starting

MAX_RESTARTS = 3
WINDOW_S = 600.0
CHECK_S = 2.0

log = logging.getLogger(__name__)
_notices: dict[str, str] = {}


def notice(base_url: str) -> str | None:
    """What happened to the server at `base_url` while it does not answer: that it is starting
    (and what it is doing), that the watchdog restarts it, or that it gave up."""
    url = base_url.rstrip("/")
    now = starting(url)
    if now is not None and url not in _notices:
        return f"the model server is starting: {now}; ask again once it is ready"
    if now is not None:
        return f"{_notices[url]} (now {now})"
    return _notices.get(url)


class Watchdog:
    def __init__(self, server, *, say: Callable[[str], None] = print, check_s: float = CHECK_S,
                 max_restarts: int = MAX_RESTARTS) -> None:
        self._server = server
        self._say = say
        self._check_s = check_s
        self._max_restarts = max_restarts
        self._restarts: list[float] = []
        self._first_launch = False
        self._stopping = threading.Event()
        # Held while a new server process is launched: once `stop` has it, none will be.
        self._launching = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="llm-watchdog", daemon=True)

    def start(self, *, first_launch: bool = False) -> "Watchdog":
        """Watches a running server; with `first_launch`, starts it first, on the watchdog's thread."""
        self._first_launch = first_launch
        self._thread.start()
        return self

    def stop(self) -> None:
        """Before the server is stopped: no restart begins after this returns."""
        self._stopping.set()
        with self._launching:
            pass

    def _run(self) -> None:
        if self._first_launch and not self._launch_first():
            return
        while not self._stopping.wait(self._check_s):
            reason = self._down()
            if reason is None:
                continue
            if not self._restart(reason):
                return

    def _launch_first(self) -> bool:
        """Prepares the model and starts the server; False (the reason in the notice) when it did not come up."""
        url = self._server.url.rstrip("/")
        try:
            self._server.ensure_model(self._say)  # minutes, once per machine: `stop` ends it, without the lock
            with self._launching:
                if self._stopping.is_set():
                    return False
                self._server.launch(self._say)
            self._server.wait_healthy(self._say)
        except ServerEnded:
            return True  # it did start: the watch below finds it ended and restarts it, as any later stop
        except DocchatError as error:
            if not self._stopping.is_set():
                _notices[url] = f"the model server did not start: {error}"
                self._tell(f"the LLM server did not start: {error}")
            return False
        return True

    def _down(self) -> str | None:
        code = self._server.process.poll()
        if code is not None:
            return f"its process ended with code {code}"
        try:
            status = httpx.get(f"http://127.0.0.1:{self._server.port}/health", timeout=5.0).status_code
        except httpx.HTTPError:
            return None  # busy, or starting: only a clear answer counts
        return f"its engine failed (/health answered {status})" if status >= 500 else None

    def _restart(self, reason: str) -> bool:
        """False when it gives up: too many restarts in the window, or docchat is stopping."""
        now = time.monotonic()
        self._restarts = [t for t in self._restarts if now - t < WINDOW_S]
        url = self._server.url.rstrip("/")
        if len(self._restarts) >= self._max_restarts:
            _notices[url] = (f"the model server stopped ({reason}) after {len(self._restarts)} restarts in "
                             f"{WINDOW_S / 60:.0f} minutes; docchat gave up: restart docchat (make run)")
            self._tell(_notices[url])
            return False
        self._restarts.append(now)
        attempt = f"{len(self._restarts)} of {self._max_restarts}"
        _notices[url] = f"the model server stopped ({reason}); docchat is restarting it ({attempt}): ask again in a minute"
        self._tell(f"the LLM server stopped ({reason}); restarting it ({attempt})")
        with self._launching:
            if self._stopping.is_set():
                return False
            self._server.stop()  # whatever of it is left (the API process, or engine processes)
            self._server.launch(self._say)
        try:
            self._server.wait_healthy(self._say)
        except DocchatError as error:
            self._tell(f"the LLM server did not come back: {error}")
            return not self._stopping.is_set()
        _notices.pop(url, None)
        return True

    def _tell(self, line: str) -> None:
        log.info("%s", line)  # `say` prints it where docchat's own lines go; warning level would print it twice
        if not self._stopping.is_set():
            self._say(line)

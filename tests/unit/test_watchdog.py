"""The watchdog restarts the LLM server docchat started when it dies, a bounded number of times,
and says what happened while it is down."""

from __future__ import annotations

import threading
import time

from docchat.errors import DocchatError, ServerEnded
from docchat.llm import start_progress
from docchat.llm.watchdog import Watchdog, notice
from tests.network import free_port


class _Process:
    def __init__(self) -> None:
        self.code: int | None = None

    def poll(self) -> int | None:
        return self.code


class _Server:
    """Our EmbeddedServer's surface; its health address answers nothing (a free port)."""

    def __init__(self, *, comes_back: bool = True) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.process = _Process()
        self.launches = 0
        self.stops = 0
        self.comes_back = comes_back
        self.notice_while_starting: str | None = None
        self.back = threading.Event()

    def stop(self) -> None:
        self.stops += 1

    def launch(self, say) -> None:
        self.launches += 1
        self.notice_while_starting = notice(self.url)
        self.process = _Process()
        if not self.comes_back:
            self.process.code = 1

    def wait_healthy(self, say) -> None:
        self.back.set()


def _until(condition, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline
        time.sleep(0.01)


def test_a_server_that_dies_is_started_again_and_the_notice_is_gone_once_it_answers():
    server, said = _Server(), []
    watchdog = Watchdog(server, say=said.append, check_s=0.01).start()
    server.process.code = -9
    server.back.wait(5)
    _until(lambda: notice(server.url) is None)
    watchdog.stop()
    assert server.launches == 1 and server.stops == 1  # what was left of the old one went first
    assert "the model server stopped (its process ended with code -9); docchat is restarting it (1 of 3)" \
        in server.notice_while_starting
    assert said[0] == "the LLM server stopped (its process ended with code -9); restarting it (1 of 3)"


def test_it_gives_up_after_three_restarts_and_says_to_restart_docchat():
    server, said = _Server(comes_back=False), []
    Watchdog(server, say=said.append, check_s=0.01).start()
    server.process.code = 1
    _until(lambda: "gave up" in (notice(server.url) or ""))
    time.sleep(0.1)
    assert server.launches == 3
    assert "restart docchat" in notice(server.url)
    assert said[-1].startswith("the model server stopped (its process ended with code 1) after 3 restarts")


def test_once_stopped_it_starts_nothing():
    server = _Server()
    watchdog = Watchdog(server, say=lambda line: None, check_s=0.01).start()
    watchdog.stop()
    server.process.code = 0  # docchat stopping it
    time.sleep(0.1)
    assert server.launches == 0


class _StartingServer(_Server):
    """A server started by the watchdog itself: it starts only when `ready` is set, and
    `wait_healthy` fails with `fails_with` instead when given (as `failure`), on its first
    launch only."""

    def __init__(self, *, fails_with: str | None = None, failure: type[DocchatError] = DocchatError) -> None:
        super().__init__()
        self.prepared = 0
        self.ready = threading.Event()
        self.fails_with = fails_with
        self.failure = failure

    def ensure_model(self, say) -> None:
        self.prepared += 1

    def launch(self, say) -> None:
        start_progress.register(self.url, _Loading())  # first: a test waits for `launches` to count
        super().launch(say)

    def wait_healthy(self, say) -> None:
        self.ready.wait(5)
        start_progress.unregister(self.url)
        if self.fails_with and self.launches == 1:
            self.process.code = 0
            raise self.failure(self.fails_with)
        self.back.set()


class _Loading:
    def words(self) -> str:
        return "loading the model, 2 min 10 s so far"

    def told(self) -> dict:
        return {"log": None}


def test_a_first_launch_happens_on_the_watchdogs_thread_and_questions_meanwhile_hear_what_it_does():
    server = _StartingServer()
    watchdog = Watchdog(server, say=lambda line: None, check_s=0.01).start(first_launch=True)
    _until(lambda: server.launches == 1)

    assert notice(server.url) == ("the model server is starting: loading the model, 2 min 10 s so far; "
                                  "ask again once it is ready")
    server.ready.set()
    server.back.wait(5)
    assert notice(server.url) is None and server.prepared == 1
    watchdog.stop()


def test_a_first_launch_that_fails_leaves_the_reason_for_the_next_question():
    server, said = _StartingServer(fails_with="the LLM server exited during start-up (1)"), []
    server.ready.set()
    Watchdog(server, say=said.append, check_s=0.01).start(first_launch=True)

    _until(lambda: notice(server.url) is not None and "did not start" in notice(server.url))
    assert notice(server.url) == "the model server did not start: the LLM server exited during start-up (1)"
    assert said == ["the LLM server did not start: the LLM server exited during start-up (1)"]


def test_a_first_launch_that_took_requests_and_then_ended_is_restarted():
    server, said = _StartingServer(fails_with="the LLM server stopped (0) just after it started",
                                   failure=ServerEnded), []
    server.ready.set()
    watchdog = Watchdog(server, say=said.append, check_s=0.01).start(first_launch=True)

    server.back.wait(5)
    watchdog.stop()
    assert server.launches == 2
    assert said == ["the LLM server stopped (its process ended with code 0); restarting it (1 of 3)"]

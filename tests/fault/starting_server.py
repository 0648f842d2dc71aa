"""A stand-in for vLLM's start, for the launcher's tests: writes vLLM's start-up lines to its
output (the server's log) at a chosen pace, then answers /health, goes silent, or exits.

    python starting_server.py PORT HOW    HOW: slow | stalls | dies
"""

from __future__ import annotations

import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

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
    HTTPServer(("127.0.0.1", port), Health).serve_forever()


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])

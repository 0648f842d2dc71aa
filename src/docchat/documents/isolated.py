"""Parsing untrusted files where a runaway cannot take the app down: in worker processes with a
limit on processor time and a memory cap (the `Parser` the services use; the app wires it in
bootstrap).

Invariants:
- A file whose parsing needs more than `timeout_s` of processor time without a word of progress
  (a page-tree loop, a stream that inflates a hundred times), on which its parser does no work
  for `stall_s` (a deadlock), that needs more than `memory_mb` (a decompression bomb, an entity
  expansion) or kills its parser (a segfault, the OOM killer) is refused with one line naming
  it, as InvalidInput; the worker is stopped and the next file gets a new one. The calling
  thread only waits on a pipe meanwhile, so the app's other requests are served as before.
- The limit counts the processor time of the worker and of what it runs (its process group),
  never the time it waits for a processor: on a busy machine an honest page is read however
  long it takes (docchat.documents.parse_clock; where that cannot be read, the time taken).
- The limit is per step: a page read by OCR (about two seconds, a minute for a 30-page scan) is
  reported by the worker as it starts, which restarts the clock and is passed on to the
  caller's `progress(page, pages)`; a page that needs more than `timeout_s` is stopped however
  many pages came before it. When `progress` raises (a cancel), the worker is stopped and the
  error goes on up.
- A worker leads a process group; stopping it kills the group, so the tesseract it runs dies
  with it (docchat.documents.parse_worker).
- A worker is reused from file to file, and started only when a file first needs one.
- At most `workers` files are parsed at once (the page and the API may both be ingesting); each
  caller has a worker to itself for its file, so one slow file holds up no other. Measured with
  one thread parsing 20-page PDFs beside one parsing notes: a note waited up to 440 ms behind
  one shared worker, 42 ms with a worker each (0.2 ms at the median either way).
- `close()` stops every worker; a worker whose parser is garbage-collected, or whose app exits
  or is killed, ends too (see docchat.documents.parse_worker).

Why a process started afresh (`python -P -m docchat.documents.parse_worker`), not
multiprocessing: `fork` would copy the app's threads' locks mid-use (Streamlit, uvicorn); `spawn` and
`forkserver` re-import the parent's `__main__`, and under Streamlit that is the page script
being run (it sets `sys.modules["__main__"]` to it). A fresh interpreter is what spawn is,
without that. Started, a worker costs about 50 ms; a file costs the pickling of its bytes and
of its text over a socket pair (milliseconds, measured in the README).
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import weakref
from multiprocessing.connection import Connection

from docchat.documents.kinds import PageProgress
from docchat.documents.parse_clock import Over, StepClock
from docchat.documents.parse_worker import resident_peak_kb
from docchat.documents.parsing import MAX_BYTES, READABLE, ParsedDocument, reads, shown_name
from docchat.errors import InvalidInput

log = logging.getLogger(__name__)

PARSE = "docchat.documents.parsing:parse"
TIMEOUT_S = 20.0
# A worker that does no work at all for this long is stuck (a deadlock, a wait that never ends),
# not slow: an honest one starved of processor by a busy machine still gets some every second.
# Generous, because a machine short of memory may keep a worker waiting on its pages that long.
STALL_S = 120.0
# How often a worker's processor time is read while it parses: a look at every process in /proc
# costs about 1.3 ms of processor per 100 processes (measured with 91), so a desktop running 400
# pays 1% of a core for it while a file is parsed.
CHECK_S = 0.5
MEMORY_MB = 1024
WORKERS = 2
# A worker that has grown this large on one file is replaced rather than kept idle at that size.
RETIRE_AFTER_KB = 256 * 1024
# How long a worker that closed its socket has to exit on its own before it is killed.
EXIT_S = 2.0


class IsolatedParser:
    """`parse(name, data, max_bytes=...)` as docchat.documents.parsing has it, in worker processes."""

    def __init__(self, *, timeout_s: float = TIMEOUT_S, memory_mb: int = MEMORY_MB, workers: int = WORKERS,
                 target: str = PARSE, stall_s: float = STALL_S):
        self._timeout_s = timeout_s
        self._stall_s = stall_s
        self._memory_mb = memory_mb
        self._target = target
        self._slots = threading.BoundedSemaphore(workers)
        self._lock = threading.Lock()
        self._idle: list[_Worker] = []
        self._busy: set[_Worker] = set()
        self.peak_memory_kb = 0
        # Idle workers are stopped with their parser; they would end with the app anyway.
        weakref.finalize(self, _stop_all, self._idle, self._busy, self._lock)

    def reads(self, name: str) -> bool:
        return reads(name)

    def kinds_in_words(self) -> str:
        return READABLE

    def parse(self, name: str, data: bytes, *, max_bytes: int = MAX_BYTES,
              progress: PageProgress | None = None) -> ParsedDocument:
        kind, value = self._ask(name, data, max_bytes, progress)
        if kind == "parsed":
            return value
        if kind == "refused":
            raise InvalidInput(value)
        if kind == "failed":
            log.warning("parsing %s failed:\n%s", shown_name(name), value)
            value = "its parser failed on it (the log has why)"
        raise InvalidInput(f"{shown_name(name)} was refused: {value}")

    def close(self) -> None:
        """Stops every worker; a file being parsed meanwhile is refused. A later file starts a new one."""
        _stop_all(self._idle, self._busy, self._lock)

    @property
    def workers(self) -> list[int]:
        """The process ids of the workers running now."""
        with self._lock:
            return [w.pid for w in (*self._idle, *self._busy) if w.running]

    def _ask(self, name: str, data: bytes, max_bytes: int, progress: PageProgress | None) -> tuple[str, object]:
        """The verdict as (kind, value): parsed (the document) or refused (the parser's message);
        or memory, stopped (why) or failed (the traceback), after which that worker is gone."""
        with self._slots:
            while True:
                worker = self._take()
                kind, value = self._verdict(worker, (name, data, max_bytes), progress)
                # An idle worker can die unseen (the OOM killer takes the largest process, not the
                # guilty one): the file goes to a new worker. One that dies on it, it refuses.
                if not (kind == "died" and worker.asked > 1):
                    break
        self.peak_memory_kb = max(self.peak_memory_kb, worker.peak_kb)
        if kind == "memory":
            return kind, f"parsing it needed more than {_megabytes(self._memory_mb)} of memory"
        return ("stopped" if kind == "died" else kind), value

    def _verdict(self, worker: _Worker, request: tuple, progress: PageProgress | None) -> tuple[str, object]:
        """What one worker made of the file (kinds as `_ask`'s, and died); it is given back after."""
        kind = None
        clock = StepClock(worker.pid, self._timeout_s, self._stall_s)
        try:
            kind, value, _ = worker.ask(request, clock, progress)
        except _Stopped as stopped:
            kind = "died" if not (stopped.over or worker.closing) else "stopped"
            value = stopped.reason(worker, clock, self._memory_mb)
        finally:
            if kind in ("memory", "failed"):
                worker.stop()  # its heap is no longer worth keeping; the next file gets a new one
            self._give_back(worker)
        return kind, value

    def _take(self) -> _Worker:
        """An idle worker still running, or a new one."""
        with self._lock:
            while self._idle:
                worker = self._idle.pop()
                if worker.running:
                    self._busy.add(worker)
                    return worker
                worker.stop()  # collects the exit of one that died while idle
        worker = _Worker(self._target, self._memory_mb)
        with self._lock:
            self._busy.add(worker)
        return worker

    def _give_back(self, worker: _Worker) -> None:
        with self._lock:
            self._busy.discard(worker)
            keep = worker.running and worker.peak_kb < RETIRE_AFTER_KB
            if keep:
                self._idle.append(worker)
        if not keep:
            worker.stop()


class _Stopped(Exception):
    """The worker ended before it answered: it went over a limit (`over`), or died."""

    def __init__(self, *, over: Over | None, after_progress: bool = False):
        super().__init__()
        self.over = over
        self.after_progress = after_progress

    def reason(self, worker: _Worker, clock: StepClock, memory_mb: int) -> str:
        status = worker.status
        step = "reading one of its pages" if self.after_progress else "parsing it"
        if self.over is Over.PROCESSOR_TIME:
            return f"{step} needed more than {clock.limit_s:g} s of processor time"
        if self.over is Over.STALL:
            return f"its parser stalled on it (no work done for {clock.stall_s:g} s)"
        if self.over is Over.TIME:
            return f"{step} took more than {clock.limit_s:g} s"
        if worker.closing:
            return "docchat was closing while it was parsed"
        if status == -signal.SIGKILL:  # the kernel's OOM killer, when the machine runs short
            return "its parser was killed while reading it (the machine out of memory?)"
        if status is not None and status < 0:
            return f"its parser crashed on it ({signal.Signals(-status).name})"
        return f"its parser stopped on it (exit status {status}; over {_megabytes(memory_mb)} of memory?)"


class _Worker:
    """One worker process and the parent's end of its socket pair."""

    def __init__(self, target: str, memory_mb: int):
        ours, theirs = socket.socketpair()
        with ours, theirs:
            # -P: nothing is imported from the current folder, where a file named like a parser
            # library (pypdf.py) would be imported instead of it.
            self._process = subprocess.Popen(
                [sys.executable, "-P", "-m", "docchat.documents.parse_worker", str(theirs.fileno()), str(memory_mb),
                 target],
                pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, stdout=_stderr(),
                # Its own process group, so that stopping it stops what it runs (tesseract) too.
                start_new_session=True,
            )
            self._connection = Connection(ours.detach())
        self.pid = self._process.pid
        self.peak_kb = 0
        self.asked = 0
        self.closing = False
        self._lock = threading.Lock()

    @property
    def running(self) -> bool:
        return self._process.poll() is None

    @property
    def status(self) -> int | None:
        """Its exit status once it has ended: negative, the signal that ended it."""
        return self._process.returncode

    def ask(self, request: tuple, clock: StepClock, progress: PageProgress | None = None) -> tuple:
        """The worker's reply to `request`, or _Stopped once a step is over the `clock`'s limits
        (each progress message begins a step) or it is dead. Its progress messages go to
        `progress`."""
        self.asked += 1
        progressed = False
        try:
            self._connection.send(request)
            while True:
                reply = self._next_message(clock, progressed)
                if reply[0] != "progress":
                    break
                progressed = True
                clock.restart()
                self.peak_kb = reply[-1]
                if progress is not None:
                    self._tell(progress, *reply[1])
        except (EOFError, OSError):
            # Its end of the socket closed: it is exiting; its own exit status says why.
            try:
                self._process.wait(EXIT_S)
            except subprocess.TimeoutExpired:
                pass
            self.stop()
            raise _Stopped(over=None) from None
        self.peak_kb = reply[-1]
        return reply

    def _next_message(self, clock: StepClock, progressed: bool) -> tuple:
        """The worker's next message; it is stopped (_Stopped) once the step is over a limit."""
        while not self._connection.poll(CHECK_S):
            over = clock.over()
            if over is not None:
                self.stop()
                raise _Stopped(over=over, after_progress=progressed)
        return self._connection.recv()

    def _tell(self, progress: PageProgress, page: int, pages: int) -> None:
        try:
            progress(page, pages)
        except BaseException:
            # The worker goes on parsing a file nobody waits for: it must not answer the next one.
            self.stop()
            raise

    def stop(self) -> None:
        """Kills the process and its group (what it runs) if it still runs (noting its peak memory
        first), and waits for its end."""
        with self._lock:
            if self._process.poll() is None:
                self.peak_kb = max(self.peak_kb, resident_peak_kb(self.pid) or 0)
                try:
                    # Not yet waited for, so its id (the group's) is still its own.
                    os.killpg(self.pid, signal.SIGKILL)
                except OSError:
                    self._process.kill()
            self._process.wait()
            self._connection.close()


def _stop_all(idle: list[_Worker], busy: set[_Worker], lock: threading.Lock) -> None:
    with lock:
        workers = [*idle, *busy]
        idle.clear()
    for worker in workers:
        worker.closing = True
        worker.stop()


def _stderr():
    """Where a worker's own output goes: the app's stderr (a library's prints must never land in
    a command's output), or nowhere when there is none."""
    try:
        return sys.__stderr__.fileno()
    except (AttributeError, ValueError, OSError):
        return subprocess.DEVNULL


def _megabytes(count: int) -> str:
    return f"{count // 1024} GB" if count % 1024 == 0 else f"{count} MB"

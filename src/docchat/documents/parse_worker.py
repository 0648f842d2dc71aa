"""The parsing worker: a process of its own that parses the files sent to it, one at a time,
under a memory cap. docchat.documents.isolated starts it, times each file and replaces it.

Run as `python -P -m docchat.documents.parse_worker FD MEMORY_MB TARGET`: it reads
(name, data, max_bytes) from the connection on descriptor FD, calls TARGET
("module:function", normally docchat.documents.parsing:parse) and answers with one of
("parsed", document), ("refused", message), ("memory", None) or ("failed", traceback),
each followed by its peak resident memory in KB. Before its answer it may send any number of
("progress", (page, pages), peak KB): a page about to be read by OCR, which restarts the parent's
clock for the next step (a long scan is not refused for its length).

Invariants:
- Its address space is capped (RLIMIT_AS) before any parser is imported, and it cannot raise the
  cap: a parser that asks for more gets MemoryError (answered "memory", then the worker exits,
  its heap being no longer worth keeping) or dies, and the app's own process is untouched.
- It never outlives the process that started it: a thread watches for its parent's exit (the
  parent may be killed without a chance to stop it) and ends the worker within half a second.
- It leads a process group of its own (the parent starts it in a new session): the programs it
  runs (tesseract) are in that group, and end with it, whether the parent kills the group or the
  worker ends it on its way out. Its memory cap is theirs too (a resource limit is inherited),
  and so is its time limit: the parent counts the processor time of the whole group.
"""

from __future__ import annotations

import importlib
import inspect
import os
import resource
import signal
import sys
import threading
import time
import traceback
from multiprocessing.connection import Connection

from docchat.errors import InvalidInput

PARENT_CHECK_S = 0.5


def main(argv: list[str]) -> None:
    fd, memory_mb, target = int(argv[1]), int(argv[2]), argv[3]
    cap = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a crash on a hostile file leaves no core dump
    _exit_with(os.getppid())
    parse = _load(target)
    connection = Connection(fd)
    tells_progress = "progress" in inspect.signature(parse).parameters

    def progress(page: int, pages: int) -> None:
        connection.send(("progress", (page, pages), _peak_kb()))

    while True:
        try:
            name, data, max_bytes = connection.recv()
        except EOFError:
            return  # the parent closed it: stop
        reply = _parsed(parse, name, data, max_bytes, progress if tells_progress else None)
        del data
        connection.send((*reply, _peak_kb()))
        if reply[0] == "memory":
            return


def _parsed(parse, name: str, data: bytes, max_bytes: int, progress) -> tuple[str, object]:
    try:
        if progress is None:
            return "parsed", parse(name, data, max_bytes=max_bytes)
        return "parsed", parse(name, data, max_bytes=max_bytes, progress=progress)
    except InvalidInput as refused:
        return "refused", str(refused)
    except MemoryError:
        return "memory", None
    except Exception:
        # A bug of ours or a library's, not a verdict on the file: the parent says so, and logs this.
        return "failed", traceback.format_exc(limit=8)


def _load(target: str):
    module, _, function = target.partition(":")
    return getattr(importlib.import_module(module), function)


def _peak_kb() -> int:
    return resident_peak_kb(os.getpid()) or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def resident_peak_kb(pid: int) -> int | None:
    """The most memory the process has had resident, in KB (Linux). Not getrusage's ru_maxrss:
    that one carries over the parent's peak through fork and exec, and a worker of a 1 GB app
    would seem to have used 1 GB."""
    try:
        with open(f"/proc/{pid}/status", "rb") as status:
            return next((int(line.split()[1]) for line in status if line.startswith(b"VmHWM:")), None)
    except OSError:
        return None


def _exit_with(parent: int) -> None:
    """Ends this process soon after `parent` exits (this one is then re-parented)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_S)
        try:
            os.killpg(0, signal.SIGKILL)  # its group: itself and the tesseract it may be waiting on
        finally:
            os._exit(1)

    threading.Thread(target=watch, name="parse-worker-parent-watch", daemon=True).start()


if __name__ == "__main__":
    main(sys.argv)

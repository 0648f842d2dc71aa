"""A parse function for the parsing worker that misbehaves as a hostile file could make a real
parser misbehave, chosen by the file's name; any other name is parsed for real."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time

from docchat.documents.parsing import parse as real_parse


# A page of the slow scan needs this much processor time: more than the tests' 2 s limit, page by
# page together.
SCAN_PAGE_S = 0.8
SCAN_PAGES = 4
# A parser that waits takes this long, almost all of it waiting: more than the tests' 2 s limit.
WAIT_S = 3.0
# A starved parser needs this much processor time, less than the tests' 2 s limit; it gets a
# fraction of a core, so it takes longer than that.
STARVED_S = 1.0
# Each of the short programs a parser runs one after another needs this much processor time.
PROGRAM_S = 0.3


def parse(name: str, data: bytes, *, max_bytes: int, progress=None):
    if name.startswith("slow-scan"):  # an honest long scan: each page reported, then read
        for page in range(1, SCAN_PAGES + 1):
            progress(page, SCAN_PAGES)
            _work(SCAN_PAGE_S)
    if name.startswith("stuck-scan"):  # reports its first page, then never ends it
        progress(1, 3)
        while True:
            pass
    if name.startswith("busy-child"):
        # A program the parser waits on that goes on by itself (tesseract deep in a big page): the
        # file's bytes name where its process id goes, for the test to look for it.
        child = subprocess.Popen([sys.executable, "-c", "while True: pass"], stdin=subprocess.DEVNULL)
        with open(data.decode(), "w") as pid_file:
            pid_file.write(str(child.pid))
        child.wait()
    if name.startswith("programs"):  # short programs one after another (tesseract, page by page)
        while True:
            subprocess.run([sys.executable, "-c", f"import time\nwhile time.process_time() < {PROGRAM_S}: pass"],
                           stdin=subprocess.DEVNULL, check=True)
    if name.startswith("waits"):  # waits on something (a disk, a program) and works little
        time.sleep(WAIT_S)
        return real_parse(name, b"Read after a long wait.", max_bytes=max_bytes)
    if name.startswith("starved"):  # on a core other programs keep busy: the file's bytes name it
        os.sched_setaffinity(0, {int(data)})
        _work(STARVED_S)
        return real_parse(name, b"Read on a busy machine.", max_bytes=max_bytes)
    if name.startswith("asleep"):  # waits for something that never comes (a deadlock)
        time.sleep(600)
    if name.startswith("loop"):
        while True:
            pass
    if name.startswith("hoard"):
        hoard = []
        while True:
            hoard.append(bytearray(16 * 1024 * 1024))
    if name.startswith("segfault"):
        ctypes.string_at(0)
    if name.startswith("oom-killed"):
        os.kill(os.getpid(), signal.SIGKILL)  # as the kernel's OOM killer does
    if name.startswith("bug"):
        raise KeyError("a parser bug")
    return real_parse(name, data, max_bytes=max_bytes, progress=progress)


def _work(seconds: float) -> None:
    """Keeps a core busy until this process has used `seconds` more of processor time."""
    until = time.process_time() + seconds
    while time.process_time() < until:
        pass

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


# A page of the slow scan takes this long: more than the tests' 2 s limit, page by page together.
SCAN_PAGE_S = 0.8
SCAN_PAGES = 4


def parse(name: str, data: bytes, *, max_bytes: int, progress=None):
    if name.startswith("slow-scan"):  # an honest long scan: each page reported, then read
        for page in range(1, SCAN_PAGES + 1):
            progress(page, SCAN_PAGES)
            time.sleep(SCAN_PAGE_S)
    if name.startswith("stuck-scan"):  # reports its first page, then never ends it
        progress(1, 3)
        while True:
            pass
    if name.startswith("busy-child"):
        # A program the parser waits on that goes on by itself (tesseract deep in a big page): the
        # file's bytes name where its process id goes, for the test to look for it.
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], stdin=subprocess.DEVNULL)
        with open(data.decode(), "w") as pid_file:
            pid_file.write(str(child.pid))
        child.wait()
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

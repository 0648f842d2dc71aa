"""A parse function for the parsing worker that misbehaves as a hostile file could make a real
parser misbehave, chosen by the file's name; any other name is parsed for real."""

from __future__ import annotations

import ctypes
import os
import signal

from docchat.documents.parsing import parse as real_parse


def parse(name: str, data: bytes, *, max_bytes: int):
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
    return real_parse(name, data, max_bytes=max_bytes)

"""Zip archives from outside (an import, a backup to restore), read entry by entry.

Invariants:
- Nothing is extracted by zipfile's extract or extractall. Each entry is read in pieces and its
  bytes are counted as they come: an entry past its cap, or the archive past its total, is
  refused at that piece, whatever its header declares (a zip bomb, a header that lies).
- An archive of more than its number of entries, or holding an entry named absolutely (`/x`,
  `C:\\x`), with `..` or `\\`, or marked as a symlink, is refused by that entry's name before
  anything of it is read.
Refusals are ZipRefused, one line without the archive's name; the caller names it.
"""

from __future__ import annotations

import re
import stat
import zipfile
from collections.abc import Iterator
from pathlib import PurePosixPath

from docchat.text import one_line

PIECE = 1024 * 1024
MB = 1024 * 1024


class ZipRefused(Exception):
    """Why an archive is refused, in one line."""


def checked_entries(archive: zipfile.ZipFile, *, max_entries: int) -> list[zipfile.ZipInfo]:
    """The archive's entries, once their number and every name are safe to go on with."""
    entries = archive.infolist()
    if len(entries) > max_entries:
        raise ZipRefused(f"it holds {len(entries):,} entries, more than the {max_entries:,} allowed")
    for info in entries:
        problem = _name_problem(info)
        if problem:
            raise ZipRefused(f"its entry {one_line(info.filename)!r} {problem}")
    return entries


def _name_problem(info: zipfile.ZipInfo) -> str | None:
    name = info.filename
    if stat.S_ISLNK(info.external_attr >> 16):
        return "is a symbolic link"
    if name.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", name):
        return "has an absolute path"
    if "\\" in name or ".." in PurePosixPath(name).parts:
        return "has a path that leads outside the archive"
    return None


class CountedReader:
    """Reads entries of one archive within a total, each within its own cap."""

    def __init__(self, archive: zipfile.ZipFile, *, total_bytes: int):
        self._archive = archive
        self._total = total_bytes
        self._left = total_bytes

    def pieces(self, info: zipfile.ZipInfo, *, max_bytes: int) -> Iterator[bytes]:
        """The entry's bytes in pieces of at most 1 MB; ZipRefused as soon as they pass
        `max_bytes` or the archive's total. zipfile's own errors (a damaged archive, a bad
        CRC) pass through."""
        if info.file_size > max_bytes:  # declared: refused at once; an understatement is caught below
            raise ZipRefused(f"its entry {one_line(info.filename)!r} unpacks to more than {_size(max_bytes)}")
        read = 0
        with self._archive.open(info) as stream:
            while piece := stream.read(PIECE):
                read += len(piece)
                self._left -= len(piece)
                if read > max_bytes:
                    raise ZipRefused(f"its entry {one_line(info.filename)!r} unpacks to more than {_size(max_bytes)}")
                if self._left < 0:
                    raise ZipRefused(f"it unpacks to more than {_size(self._total)}")
                yield piece

    def read(self, info: zipfile.ZipInfo, *, max_bytes: int) -> bytes:
        return b"".join(self.pieces(info, max_bytes=max_bytes))


def _size(count: int) -> str:
    return f"{count / MB:,.0f} MB" if count >= MB else f"{count:,} bytes"

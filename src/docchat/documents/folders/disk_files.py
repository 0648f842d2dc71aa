"""The files of followed folders on disk (the FolderFiles port): found by stat alone, then
hashed or read when a sync needs their content.

Skipped without a word: hidden files and folders (".git", ".obsidian", ".trash", ...),
`__pycache__` and `node_modules`, and files of kinds the library does not read (they are not
listed anywhere: a vault's images are not documents). Links are followed, but a folder already
visited (the same st_dev and st_ino) is not entered again, so a link that loops ends the walk
of that branch instead of hanging it. docchat's own data folder is never walked (a followed
home folder may hold it): its stored copies of documents would be taken for followed files
that hold their documents, which then never left the library. A folder that cannot be
opened, or a link to nothing, is reported as a problem with why.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator
from functools import partial

from docchat.domain import SeenFile, Unreadable

SKIPPED_FOLDERS = frozenset({"__pycache__", "node_modules"})
BLOCK = 1 << 20


class DiskFolders:
    """FolderFiles on this machine's file system; `skipped`: folders never walked (the data folder)."""

    def __init__(self, skipped: tuple[str, ...] = ()):
        self._skipped = skipped

    def absolute(self, path: str) -> str:
        """The folder's one name: absolute, links resolved (a folder reached by two paths is one folder)."""
        return os.path.realpath(os.path.expanduser(path))

    def is_folder(self, path: str) -> bool:
        return os.path.isdir(path)

    def walk(self, root: str, reads: Callable[[str], bool]) -> Iterator[SeenFile | Unreadable]:
        skipped = set()
        for folder in self._skipped:
            try:
                found = os.stat(folder)
            except OSError:
                continue  # not made yet
            skipped.add((found.st_dev, found.st_ino))
        return walk(root, reads, skipped=frozenset(skipped))

    def content_hash(self, path: str) -> str:
        digest = hashlib.sha256()
        with open(path, "rb") as file:
            for block in iter(partial(file.read, BLOCK), b""):
                digest.update(block)
        return digest.hexdigest()

    def read(self, path: str) -> bytes:
        with open(path, "rb") as file:
            return file.read()


def walk(root: str, reads: Callable[[str], bool], *,
         skipped: frozenset[tuple[int, int]] = frozenset()) -> Iterator[SeenFile | Unreadable]:
    """Every file under `root` (a folder) whose name `reads` accepts, and what could not be looked
    at; the folders whose (st_dev, st_ino) is in `skipped` are not entered."""
    top = os.stat(root)
    visited = {(top.st_dev, top.st_ino), *skipped}
    stack = [("", root)]
    while stack:
        relative, path = stack.pop()
        try:
            with os.scandir(path) as found:
                entries = sorted(found, key=lambda e: e.name)
        except OSError as error:
            yield Unreadable(relative or ".", f"the folder cannot be opened: {_why(error)}", folder=True)
            continue
        folders = []
        for entry in entries:
            if entry.name.startswith("."):
                continue
            inner = f"{relative}/{entry.name}" if relative else entry.name
            is_dir = entry.is_dir()
            if not is_dir and not reads(entry.name):
                continue
            try:
                stat = entry.stat()
            except OSError as error:
                yield Unreadable(inner, _why(error))
                continue
            if is_dir:
                if entry.name in SKIPPED_FOLDERS or (stat.st_dev, stat.st_ino) in visited:
                    continue
                visited.add((stat.st_dev, stat.st_ino))
                folders.append((inner, entry.path))
            elif entry.is_file():
                yield SeenFile(inner, entry.path, stat.st_size, stat.st_mtime_ns)
        stack.extend(reversed(folders))


def _why(error: OSError) -> str:
    if isinstance(error, FileNotFoundError):
        return "a link to nothing (its target is gone)"
    return error.strerror or str(error)

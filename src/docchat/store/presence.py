"""Whether any other process uses the same SQLite database right now.

Every process that opens the services holds a shared lock on a file beside the database for as
long as it lives; the kernel lets go of it when the process ends, however it ends (SIGKILL, a
power cut). A process that can take that lock exclusively at start knows that every earlier
user of the database is gone, so an answer still marked `streaming` was cut off by a crash and
can be marked interrupted at once, not only once it has been silent for minutes.

PostgreSQL is shared by processes on other machines, which no lock file sees: there, only the
staleness rule applies.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

try:
    import fcntl
except ImportError:  # Windows: no flock; every start then behaves as if others might be running
    fcntl = None

SUFFIX = ".users"


class Presence:
    """This process's claim on the database. `alone`: no other process used it at start."""

    def __init__(self, database: Path | None, *, while_alone: Callable[[], None] = lambda: None):
        """`while_alone` runs before any other process can open the database (they wait on the
        lock meanwhile), so what it does cannot race a process that starts at the same moment."""
        self._file = None
        self.alone = False
        if database is None or fcntl is None:
            return
        self._file = open(database.with_name(database.name + SUFFIX), "a+b")
        try:
            fcntl.flock(self._file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pass
        else:
            self.alone = True
            try:
                while_alone()
            except BaseException:
                self.close()
                raise
        # Blocking: a process in its own `while_alone` is waited for.
        fcntl.flock(self._file, fcntl.LOCK_SH)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

"""Keeps followed folders in step while the app runs: file events (watchdog: inotify on Linux)
start a sync, with no user action.

- Debounced: a sync starts once the folders have been quiet for QUIET_S (a save that writes a
  temporary file, renames it and touches the folder is one burst, one sync), or MAX_WAIT_S after
  the first event of a burst that never ends.
- One sync at a time: the syncs run on this watcher's one thread, and FolderService lets one
  pass run at a time in the process (a *Sync now* waits for the watcher's pass, and the reverse).
- Runs in the process that holds the document index (`docchat run`'s, or `docchat api`'s), so
  its syncs can always write to it. A sync at start-up catches what changed while it was off.
- Only events that change files count (created, modified, written and closed, moved, deleted);
  reading a file (which a sync does) opens it, and must not start another sync. Events in hidden
  folders (.git, .obsidian) and in __pycache__ and node_modules are ignored, as the sync skips
  them, and so are those of files of kinds the library does not read: an editor's swap file, or
  a database's journal when the data folder is inside a followed one (each sync writes it: its
  events would start syncs without end).
- The folders followed are read again every REFRESH_S (one small query), so a folder followed
  from the page or the API is watched within seconds, and one removed stops being watched.
- inotify does not follow links: a change inside a linked folder is found by the next sync that
  another change, *Sync now* or the next start-up starts.

`stop()` ends the thread and the observer; a sync under way finishes first (each file is
ingested whole or not at all).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Callable, Protocol

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import ObservedWatch

log = logging.getLogger(__name__)

QUIET_S = 1.0
MAX_WAIT_S = 10.0
REFRESH_S = 2.0
CHANGES = frozenset({"created", "modified", "moved", "deleted", "closed"})
SKIPPED_FOLDERS = frozenset({"__pycache__", "node_modules"})


class Folders(Protocol):
    def paths(self) -> list[str]: ...
    def sync(self) -> object: ...
    def reads(self, name: str) -> bool: ...


class Changes(FileSystemEventHandler):
    """Sets `changed` on an event that may change what a sync finds under `root`."""

    def __init__(self, root: str, changed: threading.Event, reads: Callable[[str], bool]):
        self._root = root
        self._changed = changed
        self._reads = reads

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type not in CHANGES:
            return
        if event.event_type == "modified" and event.is_directory:
            return  # a folder's own time: the change inside it has its own event
        paths = [event.src_path, getattr(event, "dest_path", "") or ""]
        if any(path and self._counts(os.fsdecode(path), event.is_directory) for path in paths):
            self._changed.set()

    def _counts(self, path: str, folder: bool) -> bool:
        parts = os.path.relpath(path, self._root).split(os.sep)
        if any(part.startswith(".") or part in SKIPPED_FOLDERS for part in parts):
            return False
        return folder or self._reads(parts[-1])


class FolderWatcher:
    def __init__(self, folders: Callable[[], Folders], *, quiet_s: float = QUIET_S, max_wait_s: float = MAX_WAIT_S,
                 refresh_s: float = REFRESH_S):
        """`folders`: the folder service to use now (the page may rebuild its services)."""
        self._folders = folders
        self._quiet_s, self._max_wait_s, self._refresh_s = quiet_s, max_wait_s, refresh_s
        self._changed = threading.Event()
        self._stop = threading.Event()
        self._observer = Observer()
        self._observer.daemon = True
        self._watched: dict[str, ObservedWatch] = {}
        self._thread = threading.Thread(target=self._run, name="folder-watcher", daemon=True)

    def start(self) -> "FolderWatcher":
        self._observer.start()
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._changed.set()
        self._thread.join(timeout=60)
        self._observer.stop()
        self._observer.join(timeout=10)

    def _run(self) -> None:
        self._changed.set()  # a first pass: what changed while the app was not running
        while not self._stop.is_set():
            self._refresh()
            if not self._changed.wait(self._refresh_s) or self._stop.is_set():
                continue
            self._wait_for_quiet()
            if not self._stop.is_set():
                self._sync()

    def _wait_for_quiet(self) -> None:
        deadline = time.monotonic() + self._max_wait_s
        while not self._stop.is_set():
            self._changed.clear()
            if not self._changed.wait(min(self._quiet_s, max(deadline - time.monotonic(), 0))):
                return
            if time.monotonic() >= deadline:
                self._changed.clear()
                return

    def _sync(self) -> None:
        try:
            report = self._folders().sync()
        except Exception:  # the watcher outlives one failed pass; the next change tries again
            log.exception("a sync of the followed folders failed")
        else:
            log.info("followed folders synced: %s", getattr(report, "counts", report))

    def _reads(self, name: str) -> bool:
        try:
            return self._folders().reads(name)
        except Exception:  # the services are being rebuilt: better a sync too many than one missed
            return True

    def _refresh(self) -> None:
        try:
            wanted = set(self._folders().paths())
        except Exception:
            log.exception("the followed folders could not be read")
            return
        for path in set(self._watched) - wanted:
            self._observer.unschedule(self._watched.pop(path))
        for path in wanted - set(self._watched):
            try:
                handler = Changes(path, self._changed, self._reads)
                self._watched[path] = self._observer.schedule(handler, path, recursive=True)
            except OSError as error:  # gone, or not readable: the sync says so; try again later
                log.warning("cannot watch %s: %s", path, error)
                continue
            self._changed.set()  # newly watched: whatever changed before it was watched

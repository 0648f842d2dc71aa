"""Which file events start a sync of a followed folder: the changes a sync would find, and
nothing a sync itself causes."""

from __future__ import annotations

import threading

import pytest
from watchdog.events import (DirCreatedEvent, DirModifiedEvent, FileClosedEvent, FileClosedNoWriteEvent,
                             FileCreatedEvent, FileDeletedEvent, FileModifiedEvent, FileMovedEvent, FileOpenedEvent)

from docchat.documents.folders.watcher import Changes

VAULT = "/home/ada/Vault"


def starts_a_sync(event) -> bool:
    changed = threading.Event()
    Changes(VAULT, changed, reads=lambda name: name.endswith((".md", ".pdf"))).dispatch(event)
    return changed.is_set()


@pytest.mark.parametrize("event", [
    FileCreatedEvent(f"{VAULT}/kiln.md"),
    FileModifiedEvent(f"{VAULT}/glazes/celadon.md"),
    FileClosedEvent(f"{VAULT}/kiln.md"),
    FileDeletedEvent(f"{VAULT}/minutes.pdf"),
    FileMovedEvent(f"{VAULT}/kiln.md.tmp", f"{VAULT}/kiln.md"),  # an editor's atomic save
    DirCreatedEvent(f"{VAULT}/glazes"),
], ids=lambda e: f"{e.event_type} {e.src_path.rpartition('/')[2]}")
def test_a_change_to_what_a_sync_reads_starts_one(event):
    assert starts_a_sync(event)


@pytest.mark.parametrize("event", [
    FileOpenedEvent(f"{VAULT}/kiln.md"),  # a sync reading it
    FileClosedNoWriteEvent(f"{VAULT}/kiln.md"),
    FileModifiedEvent(f"{VAULT}/data/docchat.db-wal"),  # a data folder inside the vault, written by each sync
    FileModifiedEvent(f"{VAULT}/.obsidian/workspace.json"),
    FileCreatedEvent(f"{VAULT}/.git/objects/ab/cdef.md"),
    FileModifiedEvent(f"{VAULT}/node_modules/pkg/README.md"),
    DirModifiedEvent(f"{VAULT}/glazes"),
], ids=lambda e: f"{e.event_type} {e.src_path.rpartition('/')[2]}")
def test_what_a_sync_does_not_read_starts_none(event):
    assert not starts_a_sync(event)

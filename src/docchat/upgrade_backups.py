"""The copies of the database made before each schema upgrade: where they go, how they are
named, which are kept. The store writes them (docchat.store.upgrade); the health report names
the newest. Only files named as docchat names them are ever pruned: a user's own file in the
folder stays."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

FOLDER = "backups"  # in the data dir
KEEP = 3
_NAME = re.compile(r"^before-\w+-(\d{4}-\d{2}-\d{2}T\d{6}(?:-\d+)?)\.db$")


def new_name(folder: Path, revision: str | None, made_at: datetime) -> Path:
    """`before-0013-2026-11-26T071203.db`: the revision being upgraded to, and when (UTC); a
    second one within the same second gets `-2`, never the first one's name."""
    stem = f"before-{revision}-{made_at:%Y-%m-%dT%H%M%S}"
    path, number = folder / f"{stem}.db", 1
    while path.exists():
        number += 1
        path = folder / f"{stem}-{number}.db"
    return path


def automatic_backups(folder: Path) -> list[Path]:
    """The backups made before upgrades, oldest first."""
    if not folder.is_dir():
        return []
    found = [(match.group(1), path) for path in folder.iterdir() if (match := _NAME.match(path.name))]
    return [path for _, path in sorted(found)]


def prune(folder: Path) -> None:
    """Keeps the newest KEEP (so never fewer than one)."""
    for old in automatic_backups(folder)[:-KEEP]:
        old.unlink(missing_ok=True)

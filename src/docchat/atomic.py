"""Whole-file writes that a crash never leaves half done."""

from __future__ import annotations

import os
from pathlib import Path


def write_atomically(path: str | Path, data: bytes) -> None:
    """Writes next to the target, then renames it into place."""
    target = Path(path)
    partial = target.with_name(f".{target.name}.partial")
    partial.write_bytes(data)
    os.replace(partial, target)

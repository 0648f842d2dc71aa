"""What each served model did when docchat asked it for one of its own programs, kept in
`<data dir>/model-skills.json` so that what was learned survives a restart."""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path

from docchat.atomic import write_atomically

log = logging.getLogger(__name__)

FILE = "model-skills.json"


class JsonSkillRecord:
    def __init__(self, data_dir: Path):
        self._path = data_dir / FILE
        self._lock = threading.Lock()
        self._data: dict | None = None  # read once: asked before every follow-up

    def tally(self, model: str, skill: str) -> tuple[int, int]:
        with self._lock:
            counts = self._loaded().get(model, {}).get(skill, {})
        return _count(counts.get("usable")), _count(counts.get("unusable"))

    def note(self, model: str, skill: str, *, usable: bool) -> None:
        with self._lock:
            data = self._loaded()
            counts = data.setdefault(model, {}).setdefault(skill, {})
            key = "usable" if usable else "unusable"
            counts[key] = _count(counts.get(key)) + 1
            try:
                write_atomically(self._path, json.dumps(data, indent=1, sort_keys=True).encode())
            except OSError as error:  # what was learned is an economy, never a reason to fail
                log.warning("could not keep %s: %s", self._path, error)

    def _loaded(self) -> dict:
        if self._data is None:
            self._data = self._read()
        return self._data

    def _read(self) -> dict:
        try:
            data = json.loads(self._path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as error:
            log.warning("ignoring %s: %s", self._path, error)
            return {}
        if not isinstance(data, dict):
            return {}
        return {model: skills for model, skills in data.items() if isinstance(skills, dict)
                and all(isinstance(counts, dict) for counts in skills.values())}


def _count(value) -> int:
    return value if isinstance(value, int) and value >= 0 else 0

"""The settings a user changes on the Settings page, kept in the data directory.

They live in `<data dir>/settings.json` and apply the next time services are built (the page
rebuilds them at once; a command reads them when it starts). An environment variable
(DOCCHAT_*) still wins: a setting given there is shown as such and cannot be changed here.
"""

from __future__ import annotations

import json
import logging
import os

from pydantic import ValidationError

from docchat.atomic import write_atomically
from docchat.config import Settings
from docchat.errors import InvalidInput

log = logging.getLogger(__name__)

FILE = "settings.json"
# What the page offers to change; the rest is for those who run docchat by hand.
EDITABLE = ("max_tokens", "llm_url", "llm_model", "llm_window", "embeddings_url", "embeddings_model", "cap_chunks",
            "documents_only", "quoted_answers")


def load(**given) -> Settings:
    """Settings from the environment, then the saved ones (for what neither `given` nor the
    environment sets); a saved value this version cannot read is skipped, with a log line."""
    settings = Settings(**given)
    kept = {}
    for name, value in saved(settings).items():
        if name in given or name in from_environment():
            continue
        try:
            Settings(**given, **kept, **{name: value})
        except ValidationError as error:
            log.warning("ignoring %s in %s: %s", name, FILE, error.errors()[0]["msg"])
            continue
        kept[name] = value
    return Settings(**given, **kept) if kept else settings


def saved(settings: Settings) -> dict:
    path = settings.resolved_data_dir / FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        log.warning("ignoring %s: %s", path, error)
        return {}
    return {name: value for name, value in data.items() if name in EDITABLE} if isinstance(data, dict) else {}


def from_environment() -> set[str]:
    """The editable settings that an environment variable sets."""
    return {name for name in EDITABLE if f"DOCCHAT_{name.upper()}" in os.environ}


def save(settings: Settings, changes: dict) -> Settings:
    """Checks `changes` as the settings would, then keeps them with the other saved ones;
    returns the settings they give. None puts a setting back to its default. Bad input
    changes nothing."""
    unknown = set(changes) - set(EDITABLE)
    if unknown:
        raise InvalidInput(f"not a setting the page can change: {', '.join(sorted(unknown))}")
    locked = set(changes) & from_environment()
    if locked:
        raise InvalidInput(f"set by the environment, so not changed here: {', '.join(sorted(locked))}")
    merged = {name: value for name, value in {**saved(settings), **changes}.items() if value is not None}
    try:
        result = Settings(data_dir=settings.data_dir, **merged)
    except ValidationError as error:
        first = error.errors()[0]
        raise InvalidInput(f"{first['loc'][0]}: {first['msg']}") from None
    settings.resolved_data_dir.mkdir(parents=True, exist_ok=True)
    write_atomically(settings.resolved_data_dir / FILE, (json.dumps(merged, indent=2, sort_keys=True) + "\n").encode())
    return result


class SavedPreferences:
    """The settings the page changes, as the Settings page reaches them (Services.preferences)."""

    def __init__(self, settings: Settings):
        self._settings = settings

    def locked(self) -> set[str]:
        return from_environment()

    def save(self, changes: dict[str, object]) -> None:
        save(self._settings, changes)

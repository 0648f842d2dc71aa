"""The services of this process, shared by the page and the HTTP API that `docchat run` serves
beside it. One process, one set: the local document index (a Qdrant Edge shard) can be open
in one process only, so the page and the API must use the same one."""

from __future__ import annotations

import threading

from docchat import preferences
from docchat.bootstrap import Services, build_services
from docchat.config import Settings

_lock = threading.Lock()
_built: dict[str, Services] = {}


def services() -> Services:
    """Built on first use from the settings as saved; keyed on the database, so that tests (and
    a changed DOCCHAT_DATA_DIR) get their own."""
    key = Settings().resolved_database_url
    with _lock:
        if key not in _built:
            _built[key] = build_services(preferences.load())
        return _built[key]


def rebuild() -> None:
    """Drops the services so the next use builds them from the settings as saved now (a change
    on the Settings page applies without a restart); the old ones let go of the index first."""
    key = Settings().resolved_database_url
    with _lock:
        old = _built.pop(key, None)
    if old is not None:
        old.close()

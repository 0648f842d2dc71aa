"""The composition root: the only place where docchat's real parts are built and wired together,
and the order a process starts in.

- `startup.py`: `build_services`, the ordered start every entry point takes (the page, the API,
  each command): the database, the LLM server asked, the adapters, the wiring, the calibration;
- `database.py`: the database opened for this docchat (upgraded, claimed, recovered);
- `adapters.py`: the real adapters, built from the settings, unless given (tests give fakes);
- `wiring.py`: the services wired over them, nothing opened or asked;
- `backup.py`: backup and restore, wired apart from the services;
- `environment.py`: what the libraries read when they load, set before any of them is imported.
"""

from __future__ import annotations

import docchat.bootstrap.environment  # noqa: F401  (first: before any library under docchat loads)
from docchat.bootstrap.adapters import gateway_for
from docchat.bootstrap.backup import build_backup
from docchat.bootstrap.startup import build_services
from docchat.llm.profiles import embedded_model_dir
from docchat.services.conversation_log import STALE_STREAM
from docchat.services.registry import Services

# Kept importable from here, where callers have found them.
__all__ = ["STALE_STREAM", "Services", "build_backup", "build_services", "embedded_model_dir", "gateway_for"]

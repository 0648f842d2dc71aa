"""docchat: chat with your documents, locally."""

import os
from pathlib import Path

__version__ = "0.1.0"
# The checkout docchat runs from (an editable install: this file is in src/docchat of it), where
# app.py and the LLM server's environment are.
CHECKOUT = Path(__file__).resolve().parents[2]
# The names of this machine's loopback address.
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
# How long docchat's servers (the page, the API) wait for a connection or stream left open once
# told to stop (uvicorn's `timeout_graceful_shutdown`; without it, uvicorn waits for good).
STOP_GRACE_S = 5.0


def machine_cache_dir() -> Path:
    """What docchat makes once per machine, by default: $XDG_CACHE_HOME/docchat, else ~/.cache/docchat."""
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "docchat"

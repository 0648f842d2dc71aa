"""The key of the LLM server docchat starts itself, so that web pages cannot use it.

vLLM binds 127.0.0.1, which any page in the user's browser can reach too, under its own name or
a rebound one. Started with a key, vLLM answers nothing under /v1 (the model) without it; its
/health, /metrics and /tokenize stay open and hold nothing of the user's.

A new key is drawn each time docchat starts the server. It goes to the server in its environment
(VLLM_API_KEY: a command line is visible to every user of the machine in `ps`), and to docchat's
own processes in a file in the data folder that only the user can read, so that `docchat ask`
or `docchat chat` in another terminal can use the server `docchat run` started.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from docchat.config import Settings


def new_key(path: Path) -> str:
    key = secrets.token_urlsafe(32)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    partial.unlink(missing_ok=True)
    # Created readable by the user alone, not chmod-ed after being written.
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as stream:
        stream.write(key)
    os.replace(partial, path)
    return key


def read_key(path: Path) -> str | None:
    try:
        return path.read_text().strip() or None
    except OSError:
        return None


def llm_key(settings: Settings) -> Callable[[], str | None]:
    """The LLM server's key: the one given, or, for the server docchat starts (`docchat run`,
    `docchat llm serve`; named by its address or not), the one it was last started with (read
    at each use: a restart draws a new one). Another server is sent no key of docchat's."""
    if settings.llm_api_key:
        return lambda: settings.llm_api_key
    if settings.llm_on_this_machine:
        # A key file exists only for a port docchat served on: no other server gets its key.
        return lambda: read_key(settings.llm_key_path)
    return lambda: None

"""The environment the libraries under docchat read when they load: set before any of them is
imported (the composition root imports this first), never overriding what the user set."""

from __future__ import annotations

import logging
import os
from pathlib import Path

# Libraries below us otherwise try the network at import time and wait on it.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# torch's OpenMP threads (the embedding model) would otherwise spin while they wait, taking
# the cores from the LLM server beside us: a 6 ms query embedding took 500 ms while it generated.
# Read when torch loads, so it is set before anything imports it.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
# The libraries whose log lines are theirs, not docchat's ("LM response was truncated" from DSPy
# printed in the middle of an answer): they go to the data dir's log (`keep_library_logs`),
# never to a user's terminal or page; until a log is set, they are dropped (a handler that
# writes nothing keeps Python's last-resort handler, stderr, from printing them).
LIBRARIES = ("dspy", "litellm", "LiteLLM", "httpx", "httpcore", "openai", "vllm")
LIBRARY_LOG = "libraries.log"
for _name in LIBRARIES:
    _logger = logging.getLogger(_name)
    _logger.propagate = False
    _logger.addHandler(logging.NullHandler())
# A program that falls back is normal here: dspy's warnings are kept, its chatter is not.
logging.getLogger("dspy").setLevel(logging.WARNING)


def keep_library_logs(folder: Path) -> None:
    """The libraries' log lines written to `folder`/libraries.log from now on (the file is made
    at the first line); the log of an earlier data dir is let go of."""
    path = folder / LIBRARY_LOG
    for name in LIBRARIES:
        logger = logging.getLogger(name)
        kept = [h for h in logger.handlers if isinstance(h, logging.FileHandler)]
        if any(Path(h.baseFilename) == path.absolute() for h in kept):
            continue
        for handler in kept:
            logger.removeHandler(handler)
            handler.close()
        handler = _LibraryLog(path, encoding="utf-8", delay=True)
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
        logger.addHandler(handler)


class _LibraryLog(logging.FileHandler):
    """The log file, and its folder, made at the first line: a process no library speaks in
    writes nothing to the data dir."""

    def _open(self):  # type: ignore[no-untyped-def]
        Path(self.baseFilename).parent.mkdir(parents=True, exist_ok=True)
        return super()._open()

"""The page's side of `docchat bench scale`: Streamlit runs the real app script headless
(streamlit.testing's AppTest, the tests' page driver, without a browser) over the bench's data
dir, and the time of each run is what a click waits for before the browser can draw."""

from __future__ import annotations

import logging
import os
import time
from contextlib import contextmanager
from pathlib import Path

from docchat import shared
from docchat import CHECKOUT

# The page's server-side work for one run; the browser's drawing comes on top.
RUNS = 5


def page_figures(folder: Path, long_id: str) -> dict:
    """Opening the app (the sidebar's first render, services included), then opening the long
    conversation, and a rerun of it (what every click in it costs)."""
    from streamlit.testing.v1 import AppTest

    def run(conversation_id: str | None = None):
        page = AppTest.from_file(str(CHECKOUT / "app.py"), default_timeout=120)
        if conversation_id:
            page.query_params["c"] = conversation_id
        began = time.perf_counter()
        page.run()
        elapsed = time.perf_counter() - began
        if page.exception:
            raise RuntimeError(f"the page failed: {page.exception[0].message}")
        return page, elapsed

    with _data_dir(folder), _quiet_bare_mode():
        _, first = run()
        opened = []
        for _ in range(RUNS):
            page, elapsed = run(long_id)
            opened.append(elapsed)
        began = time.perf_counter()
        page.run()
        rerun = time.perf_counter() - began
        drawn = len(page.chat_message)
        shared.rebuild()  # closes the page's services, as the server's end would
    return {"open_app": first, "open_long": sorted(opened)[len(opened) // 2], "rerun_long": rerun,
            "messages_drawn": drawn}


@contextmanager
def _quiet_bare_mode():
    """AppTest's constructor sets session state outside a script run, and Streamlit says so at
    each page made ("missing ScriptRunContext! This warning can be ignored..."): a dozen lines
    in the bench's table otherwise. A filter, since Streamlit resets its loggers' levels when it
    reads its config."""
    logger = logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context")

    def bare_mode(record: logging.LogRecord) -> bool:
        return "missing ScriptRunContext" not in record.getMessage()

    logger.addFilter(bare_mode)
    try:
        yield
    finally:
        logger.removeFilter(bare_mode)


@contextmanager
def _data_dir(folder: Path):
    """The page builds its services from the environment, as `docchat run` does."""
    wanted = {"DOCCHAT_DATA_DIR": str(folder), "DOCCHAT_LLM_URL": "http://127.0.0.1:9/v1",
              "DOCCHAT_CONTEXT_PROGRAMS": "false", "DOCCHAT_DATABASE_URL": None}
    before = {name: os.environ.get(name) for name in wanted}
    for name, value in wanted.items():
        _set(name, value)
    try:
        yield
    finally:
        for name, value in before.items():
            _set(name, value)


def _set(name: str, value: str | None) -> None:
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value

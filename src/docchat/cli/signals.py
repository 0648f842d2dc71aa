"""A terminal closed (SIGHUP) or a service manager stopping docchat (SIGTERM) ends a command the
way Ctrl-C does, so that every `finally` stops what the command started: the LLM server and its
engine processes, the API thread, a half-streamed answer kept as interrupted. By default both
signals end the process at once and leave its children running, holding their ports."""

from __future__ import annotations

import signal


def stop_like_ctrl_c() -> None:
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGHUP, _as_terminate)


def ctrl_c_interrupts() -> None:
    """Ctrl-C raises KeyboardInterrupt even in a process started with SIGINT ignored.

    A shell starts the background jobs of a script that way (nohup, `&`), and children inherit
    it; prompt_toolkit then restores that after every prompt, so Ctrl-C mid-answer was lost."""
    signal.signal(signal.SIGINT, signal.default_int_handler)


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def _as_terminate(signum, frame) -> None:
    # Whatever stops the command on SIGTERM now: ours, or that of the server it runs (Streamlit
    # and uvicorn install their own, which stop their server before returning).
    handler = signal.getsignal(signal.SIGTERM)
    if callable(handler):
        handler(signum, frame)
    else:
        raise KeyboardInterrupt

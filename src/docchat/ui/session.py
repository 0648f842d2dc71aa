"""The one cached services object and the UI-only state of a browser tab."""

from __future__ import annotations

import streamlit as st

from docchat import shared
from docchat.services.registry import Services

CONVERSATION_PARAM = "c"
OPEN = "open_conversation"


def services() -> Services:
    """The process's services, shared with the HTTP API `docchat run` serves beside the page."""
    return shared.services()


def rebuild_services() -> None:
    """Builds the services again from the settings as saved now: how a change on the Settings
    page applies without a restart."""
    shared.rebuild()


def current_conversation_id() -> str | None:
    """The open conversation: in the URL, so a reload keeps it open, and in the tab's session,
    because a click on another page (Documents, Settings) drops the URL's parameters."""
    in_url = st.query_params.get(CONVERSATION_PARAM)
    if in_url:
        st.session_state[OPEN] = in_url
        return in_url
    kept = st.session_state.get(OPEN)
    if kept:
        st.query_params[CONVERSATION_PARAM] = kept
    return kept


def open_conversation(conversation_id: str | None) -> None:
    st.session_state[OPEN] = conversation_id
    if conversation_id is None:
        st.query_params.pop(CONVERSATION_PARAM, None)
    else:
        st.query_params[CONVERSATION_PARAM] = conversation_id


def popover(label: str, *, key: str, **options):
    """A popover that an action inside it closes, with `close_popover(key)` before its rerun."""
    if st.session_state.pop(f"{key}_close", False):
        st.session_state[key] = False
    return st.popover(label, key=key, on_change="rerun", **options)


def close_popover(key: str) -> None:
    st.session_state[f"{key}_close"] = True


def flash(message: str, kind: str = "success") -> None:
    """A message to show once, after the rerun an action triggers: `success`, `info`, `error`
    and the like at the top of the pane, or `toast` in the corner, wherever the user looks."""
    st.session_state["flash"] = (kind, message)


def show_flash() -> None:
    kind, message = st.session_state.pop("flash", (None, None))
    if message and kind == "toast":
        st.toast(message, icon=":material/task_alt:")
    elif message:
        getattr(st, kind)(message)

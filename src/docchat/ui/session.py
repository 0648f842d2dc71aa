"""The one cached services object and the UI-only state of a browser tab."""

from __future__ import annotations

from typing import Callable

import streamlit as st

from docchat.errors import DatabaseNotOpened
from docchat.services.registry import Services
from docchat.ui.text import literal

CONVERSATION_PARAM = "c"
OPEN = "open_conversation"

# Set by the page's entry point (app.py, pages/), which knows where the process's services come
# from: the UI itself never builds them, nor imports what does.
_services: Callable[[], Services] | None = None
_rebuild: Callable[[], None] = lambda: None


def provide(services: Callable[[], Services], rebuild: Callable[[], None]) -> None:
    """Where this process's services come from, and how they are built again from the settings
    as saved (the page and the HTTP API beside it share one set: docchat.shared)."""
    global _services, _rebuild
    _services, _rebuild = services, rebuild


def services() -> Services:
    """The process's services, shared with the HTTP API `docchat run` serves beside the page."""
    if _services is None:
        raise RuntimeError("no services: the page's entry point calls docchat.ui.session.provide first")
    return _services()


def stop_unless_the_database_opens() -> None:
    """Builds the process's services before anything of the page is drawn. A database this
    docchat cannot use (a newer docchat wrote it, or its upgrade failed and was rolled back) is
    shown as the one line the store words for it, the line `docchat run` prints before serving
    the page, and the page stops there: no traceback, nothing else of the app (a page started
    by `streamlit run app.py`, which upgrades nothing first). A reload tries again."""
    try:
        services()
    except DatabaseNotOpened as error:
        line = literal(str(error))
    else:
        return

    def refused() -> None:
        st.error(line)

    # A navigation of its own, hidden, at the page list's addresses: with none, Streamlit would
    # list the pages/ folder, whose pages run outside app.py and fail with this error's traceback.
    st.navigation([st.Page(refused, title="docchat", default=True),
                   *(st.Page(refused, title=name, url_path=name) for name in ("Documents", "Settings"))],
                  position="hidden").run()
    st.stop()


def rebuild_services() -> None:
    """Builds the services again from the settings as saved now: how a change on the Settings
    page applies without a restart."""
    _rebuild()


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

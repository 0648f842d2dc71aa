"""The one cached services object and the UI-only state of a browser tab."""

from __future__ import annotations

import streamlit as st

from docchat.bootstrap import Services, build_services
from docchat.config import Settings

CONVERSATION_PARAM = "c"


@st.cache_resource(show_spinner="Opening the database…")
def _services_for(database_url: str) -> Services:
    return build_services(Settings())


def services() -> Services:
    # Keyed on the database so that tests (and a changed DOCCHAT_DATA_DIR) get their own.
    return _services_for(Settings().resolved_database_url)


def current_conversation_id() -> str | None:
    """The open conversation lives in the URL, so a browser reload keeps it open."""
    return st.query_params.get(CONVERSATION_PARAM)


def open_conversation(conversation_id: str | None) -> None:
    if conversation_id is None:
        st.query_params.pop(CONVERSATION_PARAM, None)
    else:
        st.query_params[CONVERSATION_PARAM] = conversation_id


def flash(message: str, kind: str = "success") -> None:
    """A message to show once, after the rerun an action triggers."""
    st.session_state["flash"] = (kind, message)


def show_flash() -> None:
    kind, message = st.session_state.pop("flash", (None, None))
    if message:
        getattr(st, kind)(message)

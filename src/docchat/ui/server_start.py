"""What the page says while docchat starts its LLM server beside it: what the server is doing
and for how long, drawn anew every few seconds, until it answers; then the page runs again
without the notice. Everything but answers works meanwhile."""

from __future__ import annotations

import streamlit as st

from docchat.ui.session import services

REFRESH_S = 2.0


def shown() -> bool:
    """Draws the notice if the server is starting; whether it did."""
    if services().llm.starting() is None:
        return False
    _starting()
    return True


@st.fragment(run_every=REFRESH_S)
def _starting() -> None:
    now = services().llm.starting()
    if now is None:  # it answers now, or it did not start: the whole page says which
        st.rerun()
    st.info(f"The model server is starting: {now}. Everything but answers works meanwhile: your documents, "
            "conversations and settings.", icon=":material/hourglass_top:")

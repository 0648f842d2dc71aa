"""The Documents page's index check: whether every chunk can be found by its words and by its
meaning, and the repair when it cannot (what `docchat doctor` and `docchat documents repair` do)."""

from __future__ import annotations

import streamlit as st

from docchat.errors import DocchatError
from docchat.services.library_check import problems
from docchat.ui.session import services
from docchat.ui.text import count, literal

KEY = "library_check"


def render() -> None:
    st.subheader("Index check", anchor=False)
    index = services().index
    done = st.session_state.pop(f"{KEY}_done", None)
    if done:
        st.success(done, icon=":material/check_circle:")
    checked = st.session_state.get(KEY)
    if checked is None:
        problem = index.health().problem  # counts only: cheap enough for every run of the page
        if problem:
            st.warning(literal(problem[0].upper() + problem[1:] + "."), icon=":material/warning:")
        st.caption("Checks that every chunk has its vector (found by meaning) and its keyword entry "
                   "(found by words).")
        if st.button("Check the index", key=f"{KEY}_run", icon=":material/fact_check:"):
            st.session_state[KEY] = _check()
            st.rerun()
        return
    if isinstance(checked, str):
        st.error(literal(checked), icon=":material/error:")
    elif checked.agrees:
        st.success(f"{count(checked.chunks, 'chunk')}, {count(checked.vectors, 'vector')} and the keyword index "
                   "agree.", icon=":material/check_circle:")
    else:
        st.warning("Some passages cannot be found: " + "; ".join(problems(checked)) + ".",
                   icon=":material/warning:")
        if st.button("Repair", key=f"{KEY}_repair", type="primary", icon=":material/build:"):
            _repair(index)
            st.rerun()
    if st.button("Check again", key=f"{KEY}_again"):
        st.session_state[KEY] = _check()
        st.rerun()


def _check():
    try:
        return services().index.check()
    except DocchatError as error:
        return str(error)


def _repair(index) -> None:
    """Repairs, then keeps what it did and a new check (or the error) for the rerun to show."""
    bar = st.progress(0.0, text="repairing")
    try:
        done = index.repair(progress=lambda stage, share: bar.progress(min(share, 1.0), text=literal(stage)))
    except DocchatError as error:
        st.session_state[KEY] = str(error)
        return
    st.session_state[f"{KEY}_done"] = (
        f"Repaired: {count(done.embedded, 'vector')} embedded again, {count(done.dropped, 'stray vector')} dropped"
        + (", the keyword index rebuilt" if done.keyword_index_rebuilt else "")
        + (f", the tables of {count(done.tables_written, 'document')} read." if done.tables_written else "."))
    st.session_state[KEY] = _check()

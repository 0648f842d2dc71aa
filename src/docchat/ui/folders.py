"""The Documents page's Folders section: follow a folder by its path, each folder's files by
status and last sync, the files refused or failed with why, *Sync now*, stop following."""

from __future__ import annotations

import streamlit as st

from docchat.errors import DocchatError
from docchat.ui.session import flash, services
from docchat.ui.text import count, literal

KEY = "folders"


def render() -> None:
    folders = services().folders.list()
    st.subheader(f"Folders ({len(folders)})", anchor=False)
    st.caption("A followed folder stays in step with the library: its new and changed files are read, "
               "deleted ones leave; hidden folders (.git, .obsidian) are skipped. While the app runs, "
               "changes arrive on their own.")
    _follow()
    for state in folders:
        _folder(state)
    if folders and st.button("Sync now", key=f"{KEY}_sync", icon=":material/sync:"):
        with st.spinner("Syncing the followed folders…"):
            _run(lambda: services().folders.sync(progress=_bar()), "Synced")
        st.rerun()


def _follow() -> None:
    # A widget's value can be set only before it is drawn: the path followed is cleared on the next run.
    if st.session_state.pop(f"{KEY}_followed", False):
        st.session_state[f"{KEY}_path"] = ""
    left, right = st.columns([4, 1], vertical_alignment="bottom")
    path = left.text_input("Folder to follow", key=f"{KEY}_path", placeholder="/home/me/Notes")
    if right.button("Follow", key=f"{KEY}_add", width="stretch") and path.strip():
        with st.spinner(f"Reading {path}…"):
            if _run(lambda: services().folders.add(path.strip(), progress=_bar()), f"Following {path.strip()}"):
                st.session_state[f"{KEY}_followed"] = True
        st.rerun()


def _bar():
    """A progress bar drawn when the first file is read (a pass with nothing to read draws none)."""
    slot = st.empty()

    def show(stage: str, share: float) -> None:
        slot.progress(min(share, 1.0), text=literal(stage))
    return show


def _run(action, done: str) -> bool:
    """Runs a folder action and keeps what to say of it for the next run; whether it went."""
    try:
        report = action()
    except DocchatError as error:
        flash(literal(str(error)), "error")
        return False
    flash(literal(f"{done}: {_counts(report.counts)}."))
    return True


def _counts(counts) -> str:
    line = (f"{counts.added} added, {counts.changed} changed, {counts.removed} removed, "
            f"{counts.unchanged} unchanged, {counts.refused} refused")
    return line + (f", {counts.failed} failed" if counts.failed else "")


def _folder(state) -> None:
    folder = state.folder
    with st.container(border=True):
        left, right = st.columns([4, 1])
        left.markdown(f"**{literal(folder.path)}**")
        files = ", ".join(f"{n} {status}" for status, n in sorted(state.files_by_status.items())) or "no files"
        synced = f"last sync {folder.last_sync_at:%Y-%m-%d %H:%M:%S}" if folder.last_sync_at else "never synced"
        left.caption(literal(f"{files} · {synced}"))
        if state.problems:
            with left.expander(f"{count(len(state.problems), 'file')} not in the library"):
                for problem in state.problems:
                    st.markdown(f"**{literal(problem.relative_path or folder.path)}** ({problem.status.value}): "
                                f"{literal(problem.reason)}")
        if right.button("Stop following", key=f"{KEY}_remove_{folder.id}",
                        help="Its documents leave the library; the files on disk stay"):
            try:
                removed = services().folders.remove(folder.path)
            except DocchatError as error:
                flash(literal(str(error)), "error")
            else:
                flash(literal(f"No longer following {folder.path}; {count(removed, 'document')} left the library."))
            st.rerun()

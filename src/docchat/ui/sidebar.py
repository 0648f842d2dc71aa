"""The thread sidebar: new, search, and the list of conversations."""

from __future__ import annotations

import streamlit as st

from docchat.domain import TitleSource
from docchat.errors import DocchatError
from docchat.ui import found
from docchat.ui.session import close_popover, flash, open_conversation, popover, services
from docchat.ui.text import count, literal

KEY = "sidebar"
IMPORT = f"{KEY}_import"
# Threads listed at first, and how many more each "Show more" adds. Every line is a button that
# Streamlit draws anew on each rerun: a thousand of them made every click wait a second.
PAGE = 50
LISTED = f"{KEY}_listed"


def render(current_id: str | None) -> None:
    with st.sidebar:
        st.header("Conversations")
        # Opens a blank chat; the conversation is stored with its first message, so clicks
        # here leave no empty threads behind.
        if st.button("New conversation", key=f"{KEY}_new", icon=":material/add:", use_container_width=True):
            open_conversation(None)
            st.rerun()
        with popover("Import", icon=":material/upload:", use_container_width=True, key=IMPORT) as box:
            if box.open:
                _import()
        query = st.text_input("Search", key=f"{KEY}_search", placeholder="Search titles and messages")
        if query.strip():
            _search_results(query, current_id)
        else:
            _thread_list(current_id)


def _import() -> None:
    st.caption("A docchat JSON export or a zip of them, ChatGPT's conversations.json, or an Open WebUI "
               "export. Every conversation in the file is checked before any is added.")
    # A new key empties the uploader once its file is imported.
    attempt = st.session_state.get(f"{KEY}_import_attempt", 0)
    upload = st.file_uploader("Conversation export", type=["json", "zip"], key=f"{KEY}_import_file_{attempt}")
    if upload is None or not st.button("Import", key=f"{KEY}_import_go", type="primary"):
        return
    try:
        reports = services().transfer.import_bytes(upload.getvalue(), name=upload.name)
    except DocchatError as error:
        st.error(literal(str(error)))  # it may quote the file: a title, a message
        return
    st.session_state[f"{KEY}_import_attempt"] = attempt + 1
    close_popover(IMPORT)
    added = [r for r in reports if not r.already_present]
    notes = [f"“{literal(r.title)}” is in the trash: restore it from Settings." if r.present_but_deleted
             else f"“{literal(r.title)}” was already here." for r in reports if r.already_present]
    # A toast: the user is in the sidebar, and the main pane may be scrolled far from its top.
    flash(" ".join([f"Imported {count(len(added), 'conversation')}."] + notes) if added else " ".join(notes),
          "toast")
    opened = added[0] if added else next((r for r in reports if not r.present_but_deleted), None)
    if opened is not None:
        open_conversation(opened.conversation_id)
    st.rerun()


def _search_results(query: str, current_id: str | None) -> None:
    hits = services().messages.search(query)
    if not hits:
        st.caption("No matches.")
    for hit in hits:
        kind = "primary" if hit.conversation_id == current_id else "secondary"
        if st.button(literal(hit.title), key=f"{KEY}_hit_{hit.conversation_id}", type=kind, use_container_width=True):
            found.open_hit(hit)
            st.rerun()
        st.caption(literal(hit.snippet))


def _thread_list(current_id: str | None) -> None:
    # A thread nobody has written in or named yet is not worth a line.
    conversations = [c for c in services().conversations.list()
                     if c.message_count or c.settings.title_source is not TitleSource.DEFAULT or c.id == current_id]
    if not conversations:
        st.caption("No conversations yet. Type a message to start one.")
    listed = st.session_state.get(LISTED, PAGE)
    shown = conversations[:listed]
    # The open one stays in view, wherever it stands in the list.
    shown += [c for c in conversations[listed:] if c.id == current_id]
    for conversation in shown:
        label = f"📌 {literal(conversation.title)}" if conversation.pinned else literal(conversation.title)
        kind = "primary" if conversation.id == current_id else "secondary"
        if st.button(label, key=f"{KEY}_open_{conversation.id}", type=kind, use_container_width=True):
            open_conversation(conversation.id)
            st.rerun()
    hidden = len(conversations) - len(shown)
    if hidden > 0 and st.button(f"Show {count(min(PAGE, hidden), 'more conversation')} ({hidden:,} not shown)",
                                key=f"{KEY}_more", icon=":material/expand_more:", type="tertiary"):
        st.session_state[LISTED] = listed + PAGE
        st.rerun()

"""The thread sidebar: new, search, and the list of conversations."""

from __future__ import annotations

import streamlit as st

from docchat.domain import TitleSource
from docchat.ui.session import open_conversation, services

KEY = "sidebar"


def render(current_id: str | None) -> None:
    with st.sidebar:
        st.header("Conversations")
        # Opens a blank chat; the conversation is stored with its first message, so clicks
        # here leave no empty threads behind.
        if st.button("New conversation", key=f"{KEY}_new", icon=":material/add:", use_container_width=True):
            open_conversation(None)
            st.rerun()
        query = st.text_input("Search", key=f"{KEY}_search", placeholder="Search titles and messages")
        if query.strip():
            _search_results(query)
        else:
            _thread_list(current_id)


def _search_results(query: str) -> None:
    hits = services().conversations.search(query)
    if not hits:
        st.caption("No matches.")
    for hit in hits:
        if st.button(hit.title, key=f"{KEY}_hit_{hit.conversation_id}", use_container_width=True):
            open_conversation(hit.conversation_id)
            st.rerun()
        st.caption(hit.snippet)


def _thread_list(current_id: str | None) -> None:
    # A thread nobody has written in or named yet is not worth a line.
    conversations = [c for c in services().conversations.list()
                     if c.message_count or c.settings.title_source is not TitleSource.DEFAULT or c.id == current_id]
    if not conversations:
        st.caption("No conversations yet. Type a message to start one.")
    for conversation in conversations:
        label = f"📌 {conversation.title}" if conversation.pinned else conversation.title
        kind = "primary" if conversation.id == current_id else "secondary"
        if st.button(label, key=f"{KEY}_open_{conversation.id}", type=kind, use_container_width=True):
            open_conversation(conversation.id)
            st.rerun()

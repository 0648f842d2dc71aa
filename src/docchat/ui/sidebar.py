"""The thread sidebar: new, search, list, and the open conversation's actions and exports."""

from __future__ import annotations

import streamlit as st

from docchat.errors import DocchatError
from docchat.ui.session import flash, open_conversation, services

KEY = "sidebar"


def render(current_id: str | None) -> None:
    conversations = services().conversations
    with st.sidebar:
        st.header("Conversations")
        if st.button("New conversation", key=f"{KEY}_new", icon=":material/add:", use_container_width=True):
            open_conversation(conversations.create().id)
            st.rerun()
        query = st.text_input("Search", key=f"{KEY}_search", placeholder="Search titles and messages")
        if query.strip():
            _search_results(query)
        else:
            _thread_list(current_id)
        if current_id:
            st.divider()
            _actions(current_id)


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
    conversations = services().conversations.list()
    if not conversations:
        st.caption("No conversations yet. Type a message to start one.")
    for conversation in conversations:
        label = f"📌 {conversation.title}" if conversation.pinned else conversation.title
        kind = "primary" if conversation.id == current_id else "secondary"
        if st.button(label, key=f"{KEY}_open_{conversation.id}", type=kind, use_container_width=True):
            open_conversation(conversation.id)
            st.rerun()


def _actions(conversation_id: str) -> None:
    conversations, transfer = services().conversations, services().transfer
    conversation = conversations.get(conversation_id)
    st.subheader("This conversation")
    with st.form(key=f"{KEY}_rename_form", border=False):
        title = st.text_input("Title", value=conversation.title, key=f"{KEY}_title_{conversation_id}")
        if st.form_submit_button("Rename"):
            _attempt(lambda: conversations.rename(conversation_id, title), "Renamed.")
    left, right = st.columns(2)
    if conversation.pinned:
        if left.button("Unpin", key=f"{KEY}_unpin", use_container_width=True):
            _attempt(lambda: conversations.unpin(conversation_id), "Unpinned.")
    elif left.button("Pin", key=f"{KEY}_pin", use_container_width=True):
        _attempt(lambda: conversations.pin(conversation_id), "Pinned to the top.")
    if right.button("Delete", key=f"{KEY}_delete", use_container_width=True):
        st.session_state[f"{KEY}_confirm_delete"] = conversation_id
    if st.session_state.get(f"{KEY}_confirm_delete") == conversation_id:
        st.warning(f"Delete “{conversation.title}”?")
        yes, no = st.columns(2)
        if yes.button("Yes, delete", key=f"{KEY}_delete_yes", type="primary", use_container_width=True):
            st.session_state.pop(f"{KEY}_confirm_delete")
            conversations.delete(conversation_id)
            open_conversation(None)
            flash("Conversation deleted.")
            st.rerun()
        if no.button("Cancel", key=f"{KEY}_delete_no", use_container_width=True):
            st.session_state.pop(f"{KEY}_confirm_delete")
            st.rerun()
    st.download_button(
        "Download Markdown", key=f"{KEY}_md",
        data=lambda: transfer.export_markdown(conversation_id),
        file_name=f"conversation-{conversation_id[:8]}.md", mime="text/markdown",
        on_click="ignore", use_container_width=True, icon=":material/download:",
    )
    st.download_button(
        "Download JSON", key=f"{KEY}_json",
        data=lambda: transfer.export_json(conversation_id),
        file_name=f"conversation-{conversation_id[:8]}.json", mime="application/json",
        on_click="ignore", use_container_width=True, icon=":material/download:",
    )


def _attempt(action, done: str) -> None:
    try:
        action()
    except DocchatError as error:
        flash(str(error), "error")
    else:
        flash(done)
    st.rerun()

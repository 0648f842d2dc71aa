"""The chat pane: the stored history and the input that stores the user's message."""

from __future__ import annotations

import streamlit as st

from docchat.errors import DocchatError, NotFound
from docchat.ui.session import open_conversation, services

KEY = "chat"
NO_LLM_NOTICE = (
    "No LLM is connected yet, so there is no answer. Your message is saved in this conversation "
    "and stays here across reloads and restarts."
)
AVATARS = {"user": ":material/person:", "assistant": ":material/smart_toy:", "system": ":material/settings:"}


def render(conversation_id: str | None) -> None:
    history = []
    if conversation_id:
        try:
            conversation = services().conversations.get(conversation_id)
            history = services().conversations.history(conversation_id)
        except NotFound:
            open_conversation(None)
            st.warning("That conversation no longer exists.")
            conversation_id = None
        else:
            st.title(conversation.title, anchor=False)
    if not conversation_id:
        st.title("docchat", anchor=False)
        st.caption("Chat with your documents, on your own machine. Type below to start a conversation.")
    for message in history:
        with st.chat_message(message.role.value, avatar=AVATARS[message.role.value]):
            # Markdown, never HTML: user and model text must not inject markup.
            st.markdown(message.content)
    if history:
        st.info(NO_LLM_NOTICE, icon=":material/info:")
    text = st.chat_input("Ask about your documents", key=f"{KEY}_input")
    if text:
        try:
            stored = services().conversations.post_user_message(conversation_id, text)
        except DocchatError as error:
            st.error(str(error))
            return
        open_conversation(stored.conversation_id)
        st.rerun()

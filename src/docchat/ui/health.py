"""The store's health, as `docchat doctor` reports it."""

from __future__ import annotations

import streamlit as st

from docchat.ui.session import services


def render() -> None:
    st.title("Settings", anchor=False)
    health = services().conversations.health()
    st.subheader("Storage", anchor=False)
    st.text(f"Database: {health.database}")
    st.text(f"Schema version: {health.schema_version}    Integrity: {health.integrity}")
    columns = st.columns(4)
    columns[0].metric("Conversations", health.conversations)
    columns[1].metric("Deleted (not purged)", health.deleted_conversations)
    columns[2].metric("Messages", health.messages)
    columns[3].metric("Summaries", health.summaries)
    st.subheader("Token counting", anchor=False)
    st.text(f"Counter: {health.tokenizer}")
    st.subheader("LLM", anchor=False)
    st.info("No LLM server is connected yet.", icon=":material/info:")

"""The store's and the LLM's health, as `docchat doctor` reports them."""

from __future__ import annotations

import streamlit as st

from docchat.ui.session import services


def render() -> None:
    st.title("Settings", anchor=False)
    _llm()
    _storage()
    _documents()


def _llm() -> None:
    status = services().llm.status()
    st.subheader("LLM", anchor=False)
    if status.healthy:
        st.success(f"Connected to {status.model} at {status.url}", icon=":material/check_circle:")
    else:
        st.warning(f"{status.error}. Start it with `make run`.", icon=":material/cloud_off:")
    columns = st.columns(3)
    columns[0].metric("Window (max_model_len)", f"{status.max_model_len:,}" if status.max_model_len else "—")
    ratio = (status.prefix_cache_hits / status.prefix_cache_queries
             if status.prefix_cache_queries else None)
    columns[1].metric("Prefix-cache hits", f"{ratio:.0%}" if ratio is not None else "—")
    columns[2].metric("Answer reserve", f"{services().chat.reserve_for(status.max_model_len or 0):,}"
                      if status.max_model_len else "—")
    st.text(f"Token counter: {status.counter} ({'exact' if status.counter_exact else 'estimate'})")
    st.text(f"Calibration against the server: {status.calibration}")


def _storage() -> None:
    health = services().conversations.health()
    st.subheader("Storage", anchor=False)
    st.text(f"Database: {health.database}")
    st.text(f"Schema version: {health.schema_version}    Integrity: {health.integrity}")
    columns = st.columns(4)
    columns[0].metric("Conversations", health.conversations)
    columns[1].metric("Deleted (not purged)", health.deleted_conversations)
    columns[2].metric("Messages", health.messages)
    columns[3].metric("Summaries", health.summaries)


def _documents() -> None:
    health = services().documents.health()
    st.subheader("Documents", anchor=False)
    st.text(f"Embeddings: {health.embedder}")
    columns = st.columns(3)
    columns[0].metric("Documents", health.documents)
    columns[1].metric("Chunks", health.chunks)
    columns[2].metric("Vectors", health.vectors if health.vectors is not None else "—")
    if health.problem:
        st.warning(health.problem, icon=":material/warning:")

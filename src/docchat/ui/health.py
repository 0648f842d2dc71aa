"""The Settings page: the store's and the LLM's health and the last backup, as `docchat doctor`
reports them, and the trash of deleted conversations."""

from __future__ import annotations

import streamlit as st

from docchat.domain import Conversation, LibraryHealth, LLMStatus, StoreHealth, utcnow
from docchat.errors import DocchatError
from docchat.services.backup import BackupStatus
from docchat.ui import preferences, server_start
from docchat.ui.session import flash, services, show_flash
from docchat.ui.text import ago, count, literal

KEY = "settings"
CONFIRM = f"{KEY}_confirm"  # the conversation id to delete forever, or EVERYTHING
EVERYTHING = "the whole trash"


def render() -> None:
    st.title("Settings", anchor=False)
    report = services().health.report()
    _llm(report.llm)
    preferences.render(report.llm)
    _storage(report.store, report.backup)
    _trash()
    _documents(report.documents)


def _llm(status: LLMStatus) -> None:
    st.subheader("LLM", anchor=False)
    if status.healthy:
        st.success(f"Connected to {status.model} on {status.server} at {status.url}", icon=":material/check_circle:")
    elif not server_start.shown():
        st.warning(f"{status.error}: {services().llm.start_advice}.", icon=":material/cloud_off:")
    columns = st.columns(3)
    columns[0].metric("Window", f"{status.max_model_len:,}" if status.max_model_len else "—")
    columns[1].metric("Prefix-cache hits", _prefix_cache(status))
    columns[2].metric("Answer reserve", f"{services().chat.reserve_for(status.max_model_len or 0):,}"
                      if status.max_model_len else "—")
    exactness = ("exact" if status.counter_exact else "estimate" if status.healthy
                 else "the profile's guess until a server says which model it serves")
    st.text(f"Token counter: {status.counter} ({exactness})")
    st.text(f"Calibration against the server: {status.calibration}")
    if status.window_source:
        _window(status)
        st.caption(_features(status))


def _window(status: LLMStatus) -> None:
    """Whose figure the window is; a window nobody stated is a warning, with what to do."""
    said = f"Window: {status.max_model_len:,} tokens, {status.window_source}"
    if status.window_source.startswith("assumed"):
        st.warning(f"{said}: {status.window_note}. Set the model's real window under Preferences "
                   "(or DOCCHAT_LLM_WINDOW) so that docchat can use all of it.", icon=":material/warning:")
    else:
        st.caption(f"{said} ({status.window_note})." if status.window_note else f"{said}.")


def _features(status: LLMStatus) -> str:
    """What depends on the server: the sampling options it takes, and whether it can go on with
    a cut answer."""
    names = {"top_p": "top_p", "top_k": "top_k", "repetition_penalty": "repetition penalty"}
    taken = [names[option] for option in names if option in status.sampling_options]
    left_out = [names[option] for option in names if option not in status.sampling_options]
    sampling = (f"Sampling: temperature{''.join(f', {name}' for name in taken)}"
                + (f"; not taken by this server, so not sent: {', '.join(left_out)}" if left_out else ""))
    return f"{sampling}. {'Continues' if status.continues_answers else 'Cannot continue'} an answer cut at the limit."


def _prefix_cache(status: LLMStatus) -> str:
    """A share of prompt tokens read from the cache; "not reported" where the server gives no
    figures (never 0%), "—" before any prompt."""
    if not status.prefix_cache_reported:
        return "not reported"
    if not status.prefix_cache_queries or status.prefix_cache_hits is None:
        return "—"
    return f"{status.prefix_cache_hits / status.prefix_cache_queries:.0%}"


def _storage(health: StoreHealth, backup: BackupStatus) -> None:
    st.subheader("Storage", anchor=False)
    st.text(f"Database: {health.database}")
    st.text(f"Schema version: {health.schema_version}    Integrity: {health.integrity}")
    st.text(f"Last backup: {_last_backup(backup)}")
    if backup.before_upgrade:
        st.text(f"Before the last upgrade: {backup.before_upgrade}")
    columns = st.columns(4)
    columns[0].metric("Conversations", health.conversations)
    columns[1].metric("Deleted (not purged)", health.deleted_conversations)
    columns[2].metric("Messages", health.messages)
    columns[3].metric("Summaries", health.summaries)


def _last_backup(status: BackupStatus) -> str:
    if status.last_backup is None:
        return "never"
    made = status.made_at
    when = f"{ago(made, utcnow())} ({made:%Y-%m-%d %H:%M} UTC)" if made else status.last_backup
    return f"{when}, to {status.file}"


def _documents(health: LibraryHealth) -> None:
    st.subheader("Documents", anchor=False)
    st.text(f"Embeddings: {health.embedder}")
    columns = st.columns(3)
    columns[0].metric("Documents", health.documents)
    columns[1].metric("Chunks", health.chunks)
    columns[2].metric("Vectors", health.vectors if health.vectors is not None else "—")
    if health.problem:
        st.warning(health.problem, icon=":material/warning:")
    if health.exact_until_indexed:
        st.caption(f"{health.exact_until_indexed:,} vectors are searched one by one (exact, a little slower) "
                   "until their part of the index is built.")


def _trash() -> None:
    trash = services().trash.list()
    st.subheader(f"Trash ({len(trash)})", anchor=False)
    show_flash()
    if not trash:
        st.caption("A deleted conversation waits here until you restore it or delete it forever.")
        return
    now = utcnow()
    for conversation in trash:
        with st.container(border=True):
            about, restore, purge = st.columns([4, 1, 1], vertical_alignment="center")
            about.markdown(f"**{literal(conversation.title)}**")
            about.caption(f"Deleted {ago(conversation.deleted_at, now)} · "
                          f"{count(conversation.message_count, 'message')}")
            if restore.button("Restore", key=f"{KEY}_restore_{conversation.id}", icon=":material/restore_from_trash:",
                              width="stretch"):
                _attempt(lambda: services().trash.restore(conversation.id),
                         f"Restored “{conversation.title}”: it is back in the chat's conversation list.")
            if purge.button("Delete forever", key=f"{KEY}_purge_{conversation.id}", width="stretch"):
                st.session_state[CONFIRM] = conversation.id
            if st.session_state.get(CONFIRM) == conversation.id:
                _confirm_purge(conversation)
    if st.button("Empty trash", key=f"{KEY}_empty", icon=":material/delete_forever:"):
        st.session_state[CONFIRM] = EVERYTHING
    if st.session_state.get(CONFIRM) == EVERYTHING:
        their = "its" if len(trash) == 1 else "their"
        _confirm(f"Delete the {count(len(trash), 'conversation')} in the trash forever, with {their} messages? "
                 "This cannot be undone.",
                 lambda: services().trash.empty(), "The trash is empty.", key="empty")


def _confirm_purge(conversation: Conversation) -> None:
    messages = f", with its {count(conversation.message_count, 'message')}" if conversation.message_count else ""
    _confirm(f"Delete “{conversation.title}” forever{messages}? This cannot be undone.",
             lambda: services().conversations.delete(conversation.id, purge=True),
             f"Deleted “{conversation.title}” forever.", key="purge")


def _confirm(question: str, action, done: str, *, key: str) -> None:
    st.warning(literal(question), icon=":material/warning:")
    yes, no = st.columns(2)
    if yes.button("Yes, delete forever", key=f"{KEY}_{key}_yes", type="primary", width="stretch"):
        st.session_state.pop(CONFIRM, None)
        _attempt(action, done)
    if no.button("Cancel", key=f"{KEY}_{key}_no", width="stretch"):
        st.session_state.pop(CONFIRM, None)
        st.rerun()


def _attempt(action, done: str) -> None:
    """Runs one service call, then reruns the page with its one-line outcome."""
    try:
        action()
    except DocchatError as error:
        flash(literal(str(error)), "error")
    else:
        flash(literal(done))
    st.rerun()

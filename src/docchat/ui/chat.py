"""The chat pane: the stored history, the streamed answer with a stop button, the budget meter."""

from __future__ import annotations

import time

import streamlit as st

from docchat.domain import Budget, Message, Status
from docchat.errors import DocchatError, NotFound
from docchat.ui.session import open_conversation, services

KEY = "chat"
STREAMING = f"{KEY}_streaming_turn"
SETTLE_WAIT_S = 5.0
AVATARS = {"user": ":material/person:", "assistant": ":material/smart_toy:", "system": ":material/settings:"}


def render(conversation_id: str | None) -> None:
    _stop_previous_answer()
    history = _header_and_history(conversation_id)
    if history is None:
        conversation_id, history = None, []
    for message in history:
        _message(message)
    _server_notice()
    if conversation_id and history and _needs_retry(history[-1]):
        if st.button("Retry the answer", key=f"{KEY}_retry", icon=":material/refresh:"):
            _stream(lambda: services().chat.retry(conversation_id))
    _budget_meter(conversation_id)
    _session_panel(conversation_id)
    text = st.chat_input("Ask about your documents", key=f"{KEY}_input")
    if text:
        with st.chat_message("user", avatar=AVATARS["user"]):
            st.markdown(text)
        _stream(lambda: services().chat.answer(conversation_id, text))


def _header_and_history(conversation_id: str | None) -> list[Message] | None:
    if conversation_id:
        try:
            conversation = services().conversations.get(conversation_id)
            history = services().conversations.history(conversation_id)
        except NotFound:
            open_conversation(None)
            st.warning("That conversation no longer exists.")
        else:
            st.header(conversation.title, anchor=False)
            return history
    st.header("docchat", anchor=False)
    st.caption("Chat with your documents, on your own machine. Type below to start a conversation.")
    return None


def _message(message: Message) -> None:
    with st.chat_message(message.role.value, avatar=AVATARS[message.role.value]):
        if message.content:
            # Markdown, never HTML: user and model text must not inject markup.
            st.markdown(message.content)
        if message.rewritten_query:
            st.caption(f"Searched as: {message.rewritten_query}")
        if message.citations:
            with st.expander(f"Sources ({len(message.citations)})"):
                for cited in message.citations:
                    st.markdown(f"**[{cited.number}] {cited.document}**, {cited.where}")
                    st.text(cited.text[:400])
        if message.status is Status.INTERRUPTED:
            st.caption(f"Interrupted: {message.error or 'stopped before the end'}")
        elif message.status is Status.ERROR:
            st.error(f"No answer: {message.error or 'the LLM failed'}", icon=":material/error:")
        elif message.status is Status.STREAMING:
            st.caption("Still being written…")


def _needs_retry(last: Message) -> bool:
    return last.status in (Status.ERROR, Status.INTERRUPTED) or last.role.value == "user"


def _server_notice() -> None:
    status = services().llm.reachable()
    if status is not None:
        st.warning(f"{status} Your messages are still saved; start the server (`make run`) and retry.",
                   icon=":material/cloud_off:")


def _stream(start_turn) -> None:
    """Streams one answer into the page; a click on Stop (or any rerun) ends it as interrupted."""
    try:
        turn = start_turn()
    except DocchatError as error:
        st.error(str(error))
        return
    open_conversation(turn.conversation_id)
    st.session_state[STREAMING] = turn
    with st.chat_message("assistant", avatar=AVATARS["assistant"]):
        st.button("Stop", key=f"{KEY}_stop", icon=":material/stop_circle:")
        try:
            st.write_stream(turn)
        except DocchatError:
            pass  # stored with the message; shown by the rerun below
        finally:
            # A click on Stop reruns the script, which raises through write_stream; closing
            # here settles the answer as interrupted before the next run reads it.
            turn.close()
    st.session_state.pop(STREAMING, None)
    if turn.budget is not None:
        st.session_state[f"{KEY}_budget_{turn.conversation_id}"] = (turn.budget, turn.stats)
    st.rerun()


def _stop_previous_answer() -> None:
    """Any rerun during an answer (the Stop button, another click) stops it first.

    The interrupted run may still be unwinding on another thread; waiting for the answer to
    be settled means this run shows it as stored (interrupted), not half-written.
    """
    turn = st.session_state.pop(STREAMING, None)
    if turn is None:
        return
    turn.stop.set()
    deadline = time.monotonic() + SETTLE_WAIT_S
    while turn.answer is None and time.monotonic() < deadline:
        time.sleep(0.05)


def _budget_meter(conversation_id: str | None) -> None:
    last = st.session_state.get(f"{KEY}_budget_{conversation_id}")
    if last is None:
        return
    budget, stats = last
    _meter(budget)
    if stats is not None:
        with st.expander("Memory for this answer"):
            st.caption(
                f"{stats.total_messages} messages, {stats.total_tokens:,} tokens; {stats.kept_verbatim} sent verbatim, "
                f"{stats.summarised} summarised (summary version {stats.summary_version or '—'}"
                f"{', new this turn' if stats.summary_created else ''}); {stats.compactions} compactions; "
                f"{stats.memory_ms:.0f} ms in memory; counter {stats.counter}"
            )


def _session_panel(conversation_id: str | None) -> None:
    session = services().conversations.get(conversation_id).settings.session if conversation_id else None
    if session and session.resolved_terms:
        with st.expander(f"Session memory: {len(session.resolved_terms)} terms, {session.turns} turns"):
            for term, snippet in session.resolved_terms.items():
                st.text(f"{term}: {snippet}")


def _meter(budget: Budget) -> None:
    used = budget.prompt + budget.answer_reserve
    st.progress(min(1.0, used / budget.max_model_len),
                text=f"Token budget: {used:,} of {budget.max_model_len:,} "
                     f"({'exact' if budget.exact else 'estimated'}, {budget.counter})")
    st.caption(
        f"system {budget.system:,} · history {budget.history:,} ({budget.history_messages} messages"
        f"{f', {budget.dropped_messages} older left out' if budget.dropped_messages else ''}) · "
        f"summary {budget.summary:,} · {_documents_share(budget)} · question {budget.question:,} · "
        f"template {budget.template:,} · reserved for the answer {budget.answer_reserve:,}"
    )


def _documents_share(budget: Budget) -> str:
    if budget.mode == "documents":
        return f"whole documents {budget.chunks:,} ({budget.passages} parts, cached prefix)"
    if budget.mode == "passages":
        return f"passages {budget.chunks:,} of {budget.chunks_cap:,} ({budget.passages} retrieved)"
    return "no documents"

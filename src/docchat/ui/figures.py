"""What an answer keeps and shows under it: its budget meter (how the prompt split the window)
and what the memory did; and the conversation's session memory."""

from __future__ import annotations

import streamlit as st

from docchat.domain import Budget, Conversation, MemoryStats
from docchat.ui.text import count


def shown(budget: Budget, stats: MemoryStats | None, *, expanded: bool) -> None:
    """The latest answer shows its budget meter; every answer keeps it, one click away."""
    if expanded:
        _meter(budget)
        if stats is not None:
            with st.expander("Memory for this answer"):
                st.caption(_memory_line(stats))
        return
    used = budget.prompt + budget.answer_reserve
    with st.expander(f"Budget: {used:,} of {budget.max_model_len:,} tokens"):
        _meter(budget)
        if stats is not None:
            st.caption(_memory_line(stats))


def _memory_line(stats: MemoryStats) -> str:
    return (f"{count(stats.total_messages, 'message')}, {count(stats.total_tokens, 'token')}; "
            f"{stats.kept_verbatim} sent verbatim, {stats.summarised} summarised (summary version "
            f"{stats.summary_version or '—'}{', new this turn' if stats.summary_created else ''}); "
            f"{count(stats.compactions, 'compaction')}; "
            f"{stats.memory_ms:.0f} ms in memory; counter {stats.counter}")


def session_panel(conversation: Conversation) -> None:
    session = conversation.settings.session
    if session.resolved_terms:
        with st.expander(f"Session memory: {count(len(session.resolved_terms), 'term')}, "
                         f"{count(session.turns, 'turn')}"):
            for term, snippet in session.resolved_terms.items():
                st.text(f"{term}: {snippet}")


def _meter(budget: Budget) -> None:
    used = budget.prompt + budget.answer_reserve
    window = "" if budget.window_source.startswith("reported") else f"; window: {budget.window_source}"
    st.progress(min(1.0, used / budget.max_model_len),
                text=f"Token budget: {used:,} of {budget.max_model_len:,} "
                     f"({'exact' if budget.exact else 'estimated'}, {budget.counter}{window})")
    st.caption(
        f"system {budget.system:,} · history {budget.history:,} ({count(budget.history_messages, 'message')}"
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

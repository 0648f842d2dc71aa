"""The open conversation's header: its title and what can be done to it (rename, pin, choose
its documents, whether it answers from them only and whether it quotes them, export, delete),
at the top of the chat pane whatever the thread list holds."""

from __future__ import annotations

import streamlit as st

from docchat.domain import Conversation
from docchat.errors import DocchatError
from docchat.ui.session import close_popover, flash, open_conversation, popover, services
from docchat.ui.text import count, literal

KEY = "header"
CONFIRM_DELETE = f"{KEY}_confirm_delete"


def render(conversation: Conversation) -> None:
    st.header(literal(conversation.title), anchor=False)
    if conversation.settings.instructions:
        st.caption(f"Instructions: {literal(_shortened(conversation.settings.instructions))}")
    if conversation.settings.document_scope:
        in_library = {d.id for d in services().documents.list()}
        searched = sum(1 for d in conversation.settings.document_scope if d in in_library)
        st.caption(f":material/description: Searches {searched} of {count(len(in_library), 'document')}")
    chat = services().chat
    if chat.documents_only(conversation.settings):
        st.caption(":material/lock: Documents only: when your documents do not hold an answer, docchat says so "
                   "and the model is never asked")
    if chat.quotes(conversation.settings):
        st.caption(":material/format_quote: Quoted answers: what your documents hold is quoted from them, "
                   "and the model is not asked")
    with st.container(horizontal=True, key=f"{KEY}_actions"):
        _rename(conversation)
        _pin(conversation)
        with popover("Documents", icon=":material/description:", key=f"{KEY}_documents") as box:
            if box.open:
                scope_picker(conversation, closes=f"{KEY}_documents")
                _switches(conversation)
        _instructions(conversation)
        _export(conversation)
        if st.button("Clear", key=f"{KEY}_clear", icon=":material/restart_alt:",
                     help="A new conversation with the same documents and instructions; this one is kept"):
            open_conversation(services().conversations.fresh_start(conversation.id).id)
            st.rerun()
        if st.button("Delete", key=f"{KEY}_delete", icon=":material/delete:"):
            st.session_state[CONFIRM_DELETE] = conversation.id
    if st.session_state.get(CONFIRM_DELETE) == conversation.id:
        _confirm_delete(conversation)


def scope_picker(conversation: Conversation, *, closes: str | None = None) -> None:
    """Which documents this conversation searches; also on the Documents page. `closes`: the
    popover it sits in, closed once the scope is saved."""
    documents = services().documents.list()
    if not documents:
        st.caption("No documents yet: add some on the Documents page.")
        return
    names = {d.id: d.name for d in documents}
    scope = conversation.settings.document_scope
    chosen = st.multiselect(
        "Search only these (empty: all documents)", options=list(names), format_func=names.get,
        default=[d for d in (scope or ()) if d in names], key=f"{KEY}_scope_{conversation.id}_{scope}")
    if st.button("Save scope", key=f"{KEY}_scope_save"):
        _attempt(lambda: services().conversations.set_document_scope(conversation.id, chosen or None),
                 f"Searches {len(chosen)} of {len(names)} documents." if chosen else "Searches all documents.",
                 closes=closes)


def _switches(conversation: Conversation) -> None:
    """Whether this conversation answers from its documents only, and whether it quotes them
    (the defaults: Settings)."""
    chat, conversations = services().chat, services().conversations
    _switch(conversation, "documents_only", "Answer from these documents only", chat.documents_only(conversation.settings),
            conversations.set_documents_only,
            ("Answers from its documents only.",
             "When the documents do not hold an answer, the model's own can be asked for."),
            help="When nothing is found in the documents, docchat says so and names the nearest passages, "
                 "as always; on, the model's own answer is not offered either.")
    _switch(conversation, "quoted_answers", "Quote the documents instead of asking the model",
            chat.quotes(conversation.settings), conversations.set_quoted_answers,
            ("Answers are quoted from the documents.", "The model writes the answers."),
            help="An answer the documents hold is their own sentences, each cited, and the model is not asked "
                 "(nor needed). A question they do not hold gets docchat's reply saying so.")


def _switch(conversation: Conversation, name: str, label: str, on: bool, choose, said: tuple[str, str], *,
            help: str) -> None:
    key = f"{KEY}_{name}_{conversation.id}"

    def switched() -> None:
        chosen = bool(st.session_state[key])
        choose(conversation.id, chosen)
        flash(said[0] if chosen else said[1])

    st.toggle(label, value=on, key=key, on_change=switched, help=help)


def _rename(conversation: Conversation) -> None:
    with popover("Rename", icon=":material/edit:", key=f"{KEY}_rename") as box:
        if not box.open:
            return
        # Keyed on the title too: once the title changes (the first answer names the
        # conversation), the field shows the new one instead of what it held before.
        with st.form(key=f"{KEY}_rename_form", border=False):
            title = st.text_input("Title", value=services().conversations.title_to_edit(conversation.id),
                                  key=f"{KEY}_title_{conversation.id}_{conversation.title}")
            if st.form_submit_button("Save title"):
                _attempt(lambda: services().conversations.rename(conversation.id, title), "Renamed.",
                         closes=f"{KEY}_rename")


def _instructions(conversation: Conversation) -> None:
    with popover("Instructions", icon=":material/tune:", key=f"{KEY}_instructions") as box:
        if not box.open:
            return
        current = conversation.settings.instructions
        with st.form(key=f"{KEY}_instructions_form", border=False):
            text = st.text_area("How the model should answer in this conversation", value=current,
                                placeholder="For example: answer in French, in at most three sentences.",
                                key=f"{KEY}_instructions_{conversation.id}_{hash(current)}")
            if st.form_submit_button("Save instructions"):
                _attempt(lambda: services().conversations.set_instructions(conversation.id, text),
                         "Instructions saved." if text.strip() else "Instructions removed.",
                         closes=f"{KEY}_instructions")


def _shortened(text: str, limit: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _pin(conversation: Conversation) -> None:
    conversations = services().conversations
    if conversation.pinned:
        if st.button("Unpin", key=f"{KEY}_unpin", icon=":material/keep_off:"):
            _attempt(lambda: conversations.unpin(conversation.id), "Unpinned.")
    elif st.button("Pin", key=f"{KEY}_pin", icon=":material/keep:"):
        _attempt(lambda: conversations.pin(conversation.id), "Pinned to the top.")


def _export(conversation: Conversation) -> None:
    transfer = services().transfer
    with st.popover("Export", icon=":material/download:", key=f"{KEY}_export"):
        # The whole id: `docchat import` and every command that takes an id accept it as is.
        st.download_button("Markdown", key=f"{KEY}_md", data=lambda: transfer.export_markdown(conversation.id),
                           file_name=f"conversation-{conversation.id}.md", mime="text/markdown",
                           on_click="ignore", icon=":material/article:")
        st.download_button("JSON (to import again)", key=f"{KEY}_json",
                           data=lambda: transfer.export_json(conversation.id),
                           file_name=f"conversation-{conversation.id}.json", mime="application/json",
                           on_click="ignore", icon=":material/data_object:")


def _confirm_delete(conversation: Conversation) -> None:
    st.warning(f"Delete “{literal(conversation.title)}”? It moves to the trash (Settings), where it can be restored.")
    with st.container(horizontal=True):
        if st.button("Yes, delete", key=f"{KEY}_delete_yes", type="primary"):
            st.session_state.pop(CONFIRM_DELETE)
            services().conversations.delete(conversation.id)
            open_conversation(None)
            flash("Conversation moved to the trash.")
            st.rerun()
        if st.button("Cancel", key=f"{KEY}_delete_no"):
            st.session_state.pop(CONFIRM_DELETE)
            st.rerun()


def _attempt(action, done: str, *, closes: str | None = None) -> None:
    try:
        action()
    except DocchatError as error:
        flash(str(error), "error")
    else:
        flash(done)
        if closes:
            close_popover(closes)
    st.rerun()

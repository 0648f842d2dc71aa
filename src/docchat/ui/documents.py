"""The Documents page: upload with progress, followed folders, the library, per-conversation scope, usage."""

from __future__ import annotations

import streamlit as st

from docchat.errors import DocchatError
from docchat.services.ingestion import FileToAdd
from docchat.ui import folders
from docchat.ui.header import scope_picker
from docchat.ui.session import current_conversation_id, flash, services, show_flash
from docchat.ui.text import count, literal, size

KEY = "documents"


def render() -> None:
    st.title("Documents", anchor=False)
    _upload()
    show_flash()
    folders.render()
    _library()


def _upload() -> None:
    # Any kind may be chosen: one docchat cannot read is refused in the results below, in words,
    # rather than by the uploader's red mark whose reason shows only on hover, as a MIME type.
    files = st.file_uploader("Add documents", accept_multiple_files=True, key=f"{KEY}_upload")
    st.caption(f"docchat reads {services().ingestion.kinds_in_words()}; another kind is refused with a line "
               "saying so.")
    if not files or not st.button("Ingest", key=f"{KEY}_ingest", type="primary"):
        return
    # Any click reruns the page, which stops the ingestion where it is; the service then
    # removes what it had written, so a cancelled file leaves nothing behind.
    cancel = st.empty()
    cancel.button("Cancel", key=f"{KEY}_cancel", help="Stop ingesting; nothing of a file not yet ready is kept")
    if len(files) == 1:
        _ingest(files[0])
    else:
        _ingest_many(files)
    cancel.empty()  # nothing left to cancel


def _ingest(upload) -> None:
    """One file: its progress bar and stage while it runs, then one line saying how it went."""
    slot = st.empty()
    bar = slot.progress(0.0, text=f"{literal(upload.name)}: reading")

    def show(stage: str, share: float) -> None:
        bar.progress(min(share, 1.0), text=f"{literal(upload.name)}: {stage}")

    try:
        added = services().ingestion.add(upload.name, upload.getvalue(), progress=show)
    except DocchatError as error:
        slot.error(literal(str(error)), icon=":material/error:")
        return
    _outcome(slot, upload.name, added)
    _attachments(st.container(), added)


def _ingest_many(uploads) -> None:
    """Several files in shared batches (see IngestionService.add_many): one progress bar for
    all of them, and a line for each file as soon as it is in, or refused."""
    lines = st.container()
    slot = st.empty()
    bar = slot.progress(0.0, text=f"{count(len(uploads), 'file')}: reading")

    def show(stage: str, share: float) -> None:
        bar.progress(min(share, 1.0), text=literal(stage))

    files = [FileToAdd(upload.name, upload.getvalue) for upload in uploads]
    try:
        for outcome in services().ingestion.add_many(files, progress=show):
            if outcome.error is not None:
                lines.error(literal(str(outcome.error)), icon=":material/error:")
            else:
                _outcome(lines, outcome.name, outcome.report)
                _attachments(lines, outcome.report)
    except DocchatError as error:
        slot.error(literal(str(error)), icon=":material/error:")
        return
    slot.empty()


def _outcome(slot, name: str, added) -> None:
    """One line saying how a file went: added, or already in the library."""
    document = added.document
    if added.already_present:
        also = "" if document.name == name else f" (as “{document.name}”)"
        slot.info(literal(f"{name} is already in the library{also}"), icon=":material/info:")
    else:
        slot.success(literal(f"{document.name}: {count(document.chunks, 'chunk')} ready"),
                     icon=":material/check_circle:")


def _attachments(lines, added) -> None:
    """A line for each of a mail's attachments: a document of its own, or refused."""
    for attached in added.attached:
        document = attached.document
        if attached.already_present:
            lines.info(literal(f"{document.name}: attached, already in the library"), icon=":material/attach_file:")
        else:
            lines.success(literal(f"{document.name}: attached, {count(document.chunks, 'chunk')} ready"),
                          icon=":material/attach_file:")
    for refusal in added.refused:
        lines.error(literal(refusal), icon=":material/error:")


def _library() -> None:
    documents = services().documents.list()
    st.subheader(f"Library ({len(documents)})", anchor=False)
    if not documents:
        st.caption(f"No documents yet. Add some above: {services().ingestion.kinds_in_words()}.")
        return
    conversation_id = current_conversation_id()
    for document in documents:
        with st.container(border=True):
            left, right = st.columns([4, 1])
            left.markdown(f"**{literal(document.name)}**")
            facts = [document.status.value, document.kind.upper(), size(document.size)]
            if document.pages:
                facts.append(count(document.pages, "page"))
            facts += [count(document.chunks, "chunk"), f"added {document.added_at:%Y-%m-%d %H:%M}"]
            left.caption(" · ".join(facts))
            uses = services().documents.usage(document.id)
            if uses:
                left.caption(literal("Cited in: " + ", ".join(f"{u.title} ({u.citations})" for u in uses)))
            if right.button("Delete", key=f"{KEY}_delete_{document.id}"):
                st.session_state[f"{KEY}_confirm_delete"] = document.id
            if st.session_state.get(f"{KEY}_confirm_delete") == document.id:
                _confirm_delete(document, len(services().documents.attachments_leaving_with(document.id)))
    if conversation_id:
        _scope(conversation_id)


def _confirm_delete(document, attachments: int) -> None:
    also = f", with its {count(attachments, 'attachment')}," if attachments else ""
    st.warning(literal(f"Delete “{document.name}”? It is removed{also} from the library and from every "
                       "conversation's search; answers that cited it keep their quotes."),
               icon=":material/delete:")
    yes, no = st.columns(2)
    if yes.button("Yes, delete", key=f"{KEY}_delete_yes", type="primary", width="stretch"):
        st.session_state.pop(f"{KEY}_confirm_delete")
        try:
            services().documents.delete(document.id)
        except DocchatError as error:
            flash(literal(str(error)), "error")
        else:
            flash(literal(f"Deleted “{document.name}”."))
        st.rerun()
    if no.button("Cancel", key=f"{KEY}_delete_no", width="stretch"):
        st.session_state.pop(f"{KEY}_confirm_delete")
        st.rerun()


def _scope(conversation_id: str) -> None:
    conversation = services().conversations.get(conversation_id)
    st.subheader(f"Documents used by “{literal(conversation.title)}”", anchor=False)
    scope_picker(conversation)

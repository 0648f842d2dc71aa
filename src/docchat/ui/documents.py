"""The Documents page: upload with progress, the library, per-conversation scope, usage."""

from __future__ import annotations

import streamlit as st

from docchat.errors import DocchatError
from docchat.ui.session import current_conversation_id, services

KEY = "documents"
TYPES = ["pdf", "docx", "md", "markdown", "txt", "html", "htm"]


def render() -> None:
    st.title("Documents", anchor=False)
    _upload()
    _library()


def _upload() -> None:
    files = st.file_uploader("Add documents", type=TYPES, accept_multiple_files=True, key=f"{KEY}_upload")
    if not files or not st.button("Ingest", key=f"{KEY}_ingest", type="primary"):
        return
    # Any click reruns the page, which stops the ingestion where it is; the service then
    # removes what it had written, so a cancelled file leaves nothing behind.
    cancel = st.empty()
    cancel.button("Cancel", key=f"{KEY}_cancel", help="Stop ingesting; nothing of the unfinished file is kept")
    for upload in files:
        with st.status(f"Ingesting {upload.name}…", expanded=False) as status:
            bar = st.progress(0.0)
            try:
                document = services().documents.ingest(
                    upload.name, upload.getvalue(), progress=lambda stage, share: bar.progress(min(share, 1.0), stage))
            except DocchatError as error:
                status.update(label=str(error), state="error")
                continue
            status.update(label=f"{document.name}: {document.chunks} chunks ready", state="complete")
    cancel.empty()  # nothing left to cancel


def _library() -> None:
    documents = services().documents.list()
    st.subheader(f"Library ({len(documents)})", anchor=False)
    if not documents:
        st.caption("No documents yet. Add PDF, DOCX, Markdown, text or HTML files above.")
        return
    conversation_id = current_conversation_id()
    for document in documents:
        with st.container(border=True):
            left, right = st.columns([4, 1])
            left.markdown(f"**{document.name}**")
            left.caption(f"{document.kind.upper()} · {document.size / 1024:,.0f} KB · {document.pages or '—'} pages · "
                         f"{document.chunks} chunks · added {document.added_at:%Y-%m-%d %H:%M}")
            uses = services().documents.usage(document.id)
            if uses:
                left.caption("Cited in: " + ", ".join(f"{u.title} ({u.citations})" for u in uses))
            if right.button("Delete", key=f"{KEY}_delete_{document.id}"):
                services().documents.delete(document.id)
                st.rerun()
    if conversation_id:
        _scope(conversation_id, documents)


def _scope(conversation_id: str, documents) -> None:
    conversation = services().conversations.get(conversation_id)
    st.subheader(f"Documents used by “{conversation.title}”", anchor=False)
    scope = conversation.settings.document_scope
    names = {d.id: d.name for d in documents}
    chosen = st.multiselect("Search only these (empty: all documents)", options=list(names),
                            default=[d for d in (scope or []) if d in names], format_func=names.get,
                            key=f"{KEY}_scope_{conversation_id}")
    if st.button("Save scope", key=f"{KEY}_scope_save"):
        services().conversations.set_document_scope(conversation_id, chosen or None)
        st.success("Saved.")

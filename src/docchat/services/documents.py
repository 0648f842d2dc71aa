"""The document library: what is in it, a document's use and its cited passages, and taking a
document out (its chunks, its vectors, its stored file, and a mail's attachments no other mail
holds). Adding files is docchat.services.ingestion's; searching, docchat.services.retrieval's;
the vector index's opening and care, docchat.services.library_index's.
"""

from __future__ import annotations

import builtins
import logging
from collections.abc import Callable

from docchat.domain import ChunkRecord, Citation, Document, DocumentStatus, DocumentUse, SourceView
from docchat.errors import DocchatError, IndexInUse, NotFound
from docchat.ports import ChunkIndex, FileStore, PageRenderer, SheetTables, UnitOfWorkFactory
from docchat.services.id_prefixes import resolve

log = logging.getLogger(__name__)

# Kinds whose cited page is drawn with the passage marked (a scan or an image by OCR's word boxes).
DRAWN = ("pdf", "image")


class DocumentService:
    def __init__(self, uow: UnitOfWorkFactory, open_index: Callable[[], ChunkIndex], *, files: FileStore,
                 renderer: PageRenderer, tables: SheetTables | None = None):
        self._uow = uow
        self._open_index = open_index
        self._files = files
        self._renderer = renderer
        self._tables = tables

    def list(self) -> list[Document]:
        with self._uow() as uow:
            return [d for d in uow.documents.list() if d.status is DocumentStatus.READY]

    def delete(self, document_id: str) -> None:
        """Removes the document, its chunks and its vectors, and a mail's attachments that no
        other mail holds; the file goes unless another uses it."""
        with self._uow() as uow:
            document = uow.documents.get(document_id)
        if document is None:
            raise NotFound(f"no document with id {document_id}")
        try:
            self._open_index()
        except IndexInUse:
            # Refused with nothing removed: the vectors would outlive their document in the
            # index of the process that holds it.
            raise
        except DocchatError:
            pass  # an embeddings server that is down does not stop a deletion: see `_remove`
        self.remove(document)

    def resolve_id(self, prefix: str) -> str:
        """The id of the one document whose id starts with `prefix` (a full id names its own)."""
        with self._uow() as uow:
            repo = uow.documents
            return resolve(prefix, "document", exists=lambda found: repo.get(found) is not None,
                           starting_with=lambda start: [(d.id, d.name) for d in repo.documents_starting_with(start)])

    def attachments_leaving_with(self, document_id: str) -> builtins.list[Document]:
        """The mail's attachments that deleting it deletes: those no other mail holds."""
        with self._uow() as uow:
            return [d for d in uow.documents.attachments_of(document_id) if uow.documents.mails_holding(d.id) == 1]

    def usage(self, document_id: str) -> builtins.list[DocumentUse]:
        with self._uow() as uow:
            if uow.documents.get(document_id) is None:
                raise NotFound(f"no document with id {document_id}")
            return uow.documents.usage(document_id)

    def source(self, citation: Citation) -> SourceView:
        """The cited passage in its document, as a reader checks it (see SourceView)."""
        with self._uow() as uow:
            document = uow.documents.get(citation.document_id) if citation.document_id else None
        if document is None:
            return SourceView(citation, None)
        original = self._files.read(document.path)
        if document.kind in DRAWN and citation.page and original is not None:
            try:
                image, marked = self._renderer(original, citation.page, citation.text, kind=document.kind)
            except DocchatError as error:  # a scan read again by OCR, and tesseract gone since: the text is shown
                log.warning("the cited page could not be drawn: %s", error)
            else:
                return SourceView(citation, document, page_image=image, marked=marked, original=original)
        with self._uow() as uow:  # the section around the passage, for the formats not drawn
            chunks: list[ChunkRecord] = uow.documents.chunks_of(document.id)
        section = [c for c in chunks if c.label == citation.section and citation.section] or \
                  [c for c in chunks if c.id == citation.chunk_id]
        shown = tuple((c.text, c.id == citation.chunk_id) for c in section) or ((citation.text, True),)
        return SourceView(citation, document, section=shown, original=original)

    def remove(self, document: Document) -> None:
        """Takes the document out, whatever its state (an ingestion's undoing uses it too)."""
        with self._uow(write=True) as uow:
            attachments = uow.documents.unlink_attachments(document.id)
            uow.commit()
        for attachment in attachments:  # those no other mail holds leave with it
            self.remove(attachment)
        # Marked first: a crash part-way leaves a document that is not searched and is cleared
        # the next time the index opens, never a ready one missing its vectors.
        with self._uow(write=True) as uow:
            uow.documents.mark_removing(document.id)
            uow.commit()
        try:
            index = self._open_index()
        except DocchatError as error:
            # An index that cannot be opened (its embeddings server is down) received nothing
            # from this ingestion; vectors left from before match no document row, are never
            # returned, and go with the next `docchat documents reindex`.
            log.warning("document %s removed without touching the index: %s", document.id, error)
        else:
            index.delete_document(document.id)
        if self._tables is not None:
            self._tables.drop(document.id)
        with self._uow(write=True) as uow:
            uow.documents.delete(document.id)
            others = uow.documents.by_hash(document.content_hash)
            uow.commit()
        if others is None and document.path:
            self._files.remove(document.path)

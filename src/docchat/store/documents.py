"""Reads and writes of documents, their chunks' metadata and the citations of answers.

Vectors live in Qdrant; this store keeps what a citation needs to stand on its own
(document, page or section, the chunk's text) and which conversations cited what.
"""

from __future__ import annotations

from sqlalchemy import Connection, delete, func, insert, select, update

from docchat.domain import ChunkRecord, Document, DocumentUse
from docchat.store.tables import chunks, citations, conversations, documents


def _document(row) -> Document:
    return Document(id=row.id, name=row.name, kind=row.kind, path=row.path, size=row.size,
                    content_hash=row.content_hash, pages=row.pages, chunks=row.chunks, status=row.status,
                    added_at=row.added_at)


def _chunk(row) -> ChunkRecord:
    return ChunkRecord(id=row.id, document_id=row.document_id, position=row.position, label=row.label,
                       page=row.page, text=row.text, token_count=row.token_count)


class DocumentRepository:
    def __init__(self, connection: Connection):
        self._db = connection

    def add(self, document: Document) -> None:
        self._db.execute(insert(documents).values(
            id=document.id, name=document.name, kind=document.kind, path=document.path, size=document.size,
            content_hash=document.content_hash, pages=document.pages, chunks=document.chunks,
            status=document.status, added_at=document.added_at))

    def get(self, document_id: str) -> Document | None:
        row = self._db.execute(select(documents).where(documents.c.id == document_id)).first()
        return _document(row) if row else None

    def by_hash(self, content_hash: str) -> Document | None:
        row = self._db.execute(select(documents).where(documents.c.content_hash == content_hash)).first()
        return _document(row) if row else None

    def list(self) -> list[Document]:
        rows = self._db.execute(select(documents).order_by(documents.c.added_at.desc(), documents.c.pk.desc()))
        return [_document(row) for row in rows]

    def mark_ready(self, document_id: str, *, chunk_count: int) -> None:
        self._db.execute(update(documents).where(documents.c.id == document_id)
                         .values(status="ready", chunks=chunk_count))

    def add_chunks(self, records: list[ChunkRecord]) -> None:
        if records:
            self._db.execute(insert(chunks), [r.__dict__ for r in records])

    def chunks(self, chunk_ids: list[str]) -> dict[str, ChunkRecord]:
        if not chunk_ids:
            return {}
        rows = self._db.execute(select(chunks).where(chunks.c.id.in_(chunk_ids)))
        return {row.id: _chunk(row) for row in rows}

    def delete(self, document_id: str) -> None:
        self._db.execute(delete(chunks).where(chunks.c.document_id == document_id))
        self._db.execute(delete(documents).where(documents.c.id == document_id))

    def add_citations(self, rows: list[dict]) -> None:
        if rows:
            self._db.execute(insert(citations), rows)

    def usage(self, document_id: str) -> list[DocumentUse]:
        query = (
            select(conversations.c.id, conversations.c.title, func.count().label("citations"))
            .join(citations, citations.c.conversation_id == conversations.c.id)
            .where(citations.c.document_id == document_id, conversations.c.deleted_at.is_(None))
            .group_by(conversations.c.id, conversations.c.title)
            .order_by(func.count().desc())
        )
        return [DocumentUse(row.id, row.title, row.citations) for row in self._db.execute(query)]

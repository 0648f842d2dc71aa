"""Reads and writes of documents, their chunks' metadata and the citations of answers.

Vectors live in the vector index; this store keeps what a citation needs to stand on its own
(document, page or section, the chunk's text), which conversations cited what, and on
PostgreSQL the keyword side of retrieval: its text search weighted by BM25's inverse document
frequency. On SQLite the keyword side is a Tantivy index beside the store
(docchat.documents.index.word_index), which follows the chunk rows through `chunk_changes`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import Connection, bindparam, delete, func, insert, select, text, update

from docchat.domain import ChunkRecord, Document, DocumentStatus, DocumentUse
from docchat.store.tables import attachments, chunks, citations, conversations, documents


# Only chunks of finished documents: a document still being ingested has its chunks stored
# before its vectors. PostgreSQL's ts_rank knows nothing of how rare a word is: each term's rank is weighted by
# BM25's inverse document frequency over all chunks, so "gilts" in one chunk outweighs
# "trustee" in most. ts_rank of a single term saturates as the term repeats, and
# normalisation 1 favours short chunks, as BM25's tf and length terms do. search_vector is
# migration 0006's.
_KEYWORD_SEARCH_POSTGRESQL = """
    WITH terms AS (
        SELECT to_tsquery('simple', term) AS query FROM unnest(CAST(:terms AS text[])) AS term
    ), weights AS (
        SELECT terms.query,
               ln(1 + (total.n - df.n + 0.5) / (df.n + 0.5)) AS idf
        FROM terms,
             (SELECT CAST(count(*) AS float8) AS n FROM chunks) AS total,
             LATERAL (SELECT CAST(count(*) AS float8) AS n FROM chunks WHERE search_vector @@ terms.query) AS df
    ), matches AS (
        SELECT c.pk AS pk, c.id AS chunk_id, c.document_id AS document_id, c.search_vector AS vector
        FROM chunks c JOIN documents d ON d.id = c.document_id
        WHERE c.search_vector @@ to_tsquery('simple', :query) AND d.status = 'ready' {scope}
    )
    SELECT m.chunk_id AS chunk_id, m.document_id AS document_id
    FROM matches m CROSS JOIN weights w
    GROUP BY m.pk, m.chunk_id, m.document_id
    ORDER BY sum(w.idf * ts_rank(m.vector, w.query, 1)) DESC, m.pk
    LIMIT :limit
"""
_SCOPE = "AND c.document_id IN :scope"
# Ids bound in one IN list at most (SQLite's limit on bound values is 32,766).
READ_BATCH = 10_000
_KEYWORD_QUERIES = (text(_KEYWORD_SEARCH_POSTGRESQL.format(scope="")),
                    text(_KEYWORD_SEARCH_POSTGRESQL.format(scope=_SCOPE)).bindparams(bindparam("scope", expanding=True)))


def ts_terms(terms: Sequence[str]) -> list[str]:
    """Each term as a to_tsquery() of that one word, quoted so that nothing is an operator."""
    return ["'" + term.replace("'", "''").replace("\\", "\\\\") + "'" for term in terms]


def _document(row) -> Document:
    return Document(id=row.id, name=row.name, kind=row.kind, path=row.path, size=row.size,
                    content_hash=row.content_hash, pages=row.pages, chunks=row.chunks, status=DocumentStatus(row.status),
                    added_at=row.added_at)


def _chunk(row) -> ChunkRecord:
    return ChunkRecord(id=row.id, document_id=row.document_id, position=row.position, label=row.label,
                       page=row.page, text=row.text, token_count=row.token_count, heading=row.heading)


class DocumentRepository:
    def __init__(self, connection: Connection):
        self._db = connection

    def add(self, document: Document) -> None:
        self._db.execute(insert(documents).values(
            id=document.id, name=document.name, kind=document.kind, path=document.path, size=document.size,
            content_hash=document.content_hash, pages=document.pages, chunks=document.chunks,
            status=document.status.value, added_at=document.added_at))

    def get(self, document_id: str) -> Document | None:
        row = self._db.execute(select(documents).where(documents.c.id == document_id)).first()
        return _document(row) if row else None

    def documents_starting_with(self, prefix: str) -> list[Document]:
        """Documents whose id starts with `prefix` (case-sensitive), the most recently added first."""
        rows = self._db.execute(select(documents).where(documents.c.id.startswith(prefix, autoescape=True))
                                .order_by(documents.c.added_at.desc(), documents.c.pk.desc()))
        # SQLite's LIKE ignores ASCII case; ids are compared exactly, as on any other database.
        return [_document(row) for row in rows if row.id.startswith(prefix)]

    def by_hash(self, content_hash: str) -> Document | None:
        row = self._db.execute(select(documents).where(documents.c.content_hash == content_hash)).first()
        return _document(row) if row else None

    def list(self) -> list[Document]:
        rows = self._db.execute(select(documents).order_by(documents.c.added_at.desc(), documents.c.pk.desc()))
        return [_document(row) for row in rows]

    def attachments_of(self, document_id: str) -> list[Document]:
        """The documents that came inside this one (a mail's attachments)."""
        rows = self._db.execute(select(documents).join(attachments, attachments.c.attachment_id == documents.c.id)
                                .where(attachments.c.mail_id == document_id).order_by(documents.c.pk))
        return [_document(row) for row in rows]

    def mails_holding(self, document_id: str) -> int:
        """How many mails hold this document as an attachment."""
        return self._db.execute(select(func.count()).select_from(attachments)
                                .where(attachments.c.attachment_id == document_id)).scalar_one()

    def link_attachments(self, mail_id: str, attachment_ids: Sequence[str]) -> None:
        if attachment_ids:
            self._db.execute(insert(attachments), [{"mail_id": mail_id, "attachment_id": a} for a in attachment_ids])

    def unlink_attachments(self, mail_id: str) -> list[Document]:
        """Lets go of the mail's attachments; returns those no other mail holds now."""
        held = self.attachments_of(mail_id)
        self._db.execute(delete(attachments).where(attachments.c.mail_id == mail_id))
        return [document for document in held if not self.mails_holding(document.id)]

    def ready_names(self, document_ids: Iterable[str]) -> dict[str, str]:
        """Id -> name of those of these documents that are ready."""
        wanted, found = list(dict.fromkeys(document_ids)), {}
        for start in range(0, len(wanted), READ_BATCH):
            rows = self._db.execute(select(documents.c.id, documents.c.name).where(
                documents.c.id.in_(wanted[start:start + READ_BATCH]),
                documents.c.status == DocumentStatus.READY.value))
            found.update((row.id, row.name) for row in rows)
        return found

    def ready_in_order(self) -> list[tuple[str, str]]:
        """(id, name) of every ready document, oldest first: a few milliseconds at 5,000 documents,
        where `list` builds every document in full (36 ms)."""
        rows = self._db.execute(select(documents.c.id, documents.c.name)
                                .where(documents.c.status == DocumentStatus.READY.value)
                                .order_by(documents.c.added_at, documents.c.id))
        return [(row.id, row.name) for row in rows]

    def any_ready(self) -> bool:
        """Whether the library has a document to search."""
        ready = select(documents.c.pk).where(documents.c.status == DocumentStatus.READY.value).limit(1)
        return self._db.execute(ready).first() is not None

    def mark_removing(self, document_id: str) -> None:
        self._db.execute(update(documents).where(documents.c.id == document_id)
                         .values(status=DocumentStatus.REMOVING.value))

    def mark_ready(self, document_id: str, *, chunk_count: int) -> None:
        self._db.execute(update(documents).where(documents.c.id == document_id)
                         .values(status=DocumentStatus.READY.value, chunks=chunk_count))

    def add_chunks(self, records: list[ChunkRecord]) -> None:
        if records:
            self._db.execute(insert(chunks), [r.__dict__ for r in records])

    def chunks(self, chunk_ids: list[str]) -> dict[str, ChunkRecord]:
        if not chunk_ids:
            return {}
        rows = self._db.execute(select(chunks).where(chunks.c.id.in_(chunk_ids)))
        return {row.id: _chunk(row) for row in rows}

    def chunks_of(self, document_id: str) -> list[ChunkRecord]:
        """A document's chunks in order."""
        rows = self._db.execute(select(chunks).where(chunks.c.document_id == document_id).order_by(chunks.c.position))
        return [_chunk(row) for row in rows]

    def token_total(self, document_ids: Sequence[str]) -> int:
        """The tokens of every chunk of the given documents."""
        if not document_ids:
            return 0
        return self._db.execute(select(func.coalesce(func.sum(chunks.c.token_count), 0))
                                .where(chunks.c.document_id.in_(list(document_ids)))).scalar_one()

    def keyword_search(self, terms: Sequence[str], *, limit: int,
                       document_ids: Sequence[str] | None = None) -> list[tuple[str, str]]:
        """(chunk id, document id) of the chunks that best match the terms by BM25, best first.
        `document_ids=None` searches every document. PostgreSQL only: a SQLite store's keyword
        side is its word index."""
        if not terms or (document_ids is not None and not document_ids):
            return []
        if self._db.dialect.name == "sqlite":
            raise NotImplementedError("a SQLite store's chunks are searched by words in its word index")
        quoted = ts_terms(terms)
        params = {"terms": quoted, "query": " | ".join(quoted), "limit": limit}
        every, scoped = _KEYWORD_QUERIES
        if document_ids is None:
            rows = self._db.execute(every, params)
        else:
            rows = self._db.execute(scoped, {**params, "scope": list(document_ids)})
        return [(row.chunk_id, row.document_id) for row in rows]

    def delete(self, document_id: str) -> None:
        self._db.execute(delete(attachments).where(attachments.c.attachment_id == document_id))
        self._db.execute(delete(chunks).where(chunks.c.document_id == document_id))
        self._db.execute(delete(documents).where(documents.c.id == document_id))

    def ready_chunk_ids(self) -> dict[str, str]:
        """Chunk id -> document id of every chunk of a ready document."""
        rows = self._db.execute(select(chunks.c.id, chunks.c.document_id).join(documents)
                                .where(documents.c.status == DocumentStatus.READY.value))
        return {row.id: row.document_id for row in rows}

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

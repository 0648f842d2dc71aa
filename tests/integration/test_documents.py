"""The document library through the services: real parsing, embeddings, Qdrant Edge."""

from __future__ import annotations

import threading
from datetime import datetime, timezone

import pytest
from fpdf import FPDF

from docchat.errors import InvalidInput, NotFound
from docchat.services.ingestion import IngestionCancelled


PAGES = [
    "Harbour Street Trust Agreement, dated 12 March 2024. This page lists the parties and definitions.",
    "The Determination Date is the 15th calendar day of each month. If it falls on a weekend, it moves "
    "to the next Business Day.",
    "The Reserve Account is held by the Trustee and covers shortfalls in interest on the Notes.",
]


def trust_pdf() -> bytes:
    """The same bytes on every call: fpdf2 would otherwise stamp the current second in."""
    pdf = FPDF()
    pdf.set_creation_date(datetime(2024, 3, 12, tzinfo=timezone.utc))
    for text in PAGES:
        pdf.add_page()
        pdf.set_font("helvetica", size=12)
        pdf.multi_cell(0, 8, text)
    return bytes(pdf.output())


def files_under(data_dir):
    folder = data_dir / "documents"
    return sorted(p.name for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def test_an_ingested_pdf_is_listed_with_its_pages_and_chunks_and_its_file_is_kept(library, data_dir):
    stages = []

    document = library.ingestion.ingest("Harbour Street Trust.pdf", trust_pdf(), progress=lambda s, share: stages.append(share))

    [listed] = library.documents.list()
    assert (listed.id, listed.name, listed.kind, listed.pages) == (document.id, "Harbour Street Trust.pdf", "pdf", 3)
    assert listed.chunks >= 3
    assert stages[-1] == 1.0 and stages == sorted(stages)
    assert len(files_under(data_dir)) == 1


def test_the_same_content_is_ingested_once(library):
    first = library.ingestion.ingest("trust.pdf", trust_pdf())

    again = library.ingestion.ingest("a copy of the trust.pdf", trust_pdf())

    assert again.id == first.id
    assert len(library.documents.list()) == 1


def test_adding_content_already_in_the_library_says_so_and_changes_nothing(library, data_dir):
    first = library.ingestion.add("trust.pdf", trust_pdf())
    stored = files_under(data_dir)

    again = library.ingestion.add("a copy of the trust.pdf", trust_pdf())

    assert (first.already_present, again.already_present) == (False, True)
    assert again.document == library.documents.list()[0]
    assert (again.document.id, again.document.name) == (first.document.id, "trust.pdf")
    assert files_under(data_dir) == stored


def test_a_question_finds_the_page_that_answers_it(library):
    library.ingestion.ingest("trust.pdf", trust_pdf())

    [best, *_] = library.retrieval.retrieve("When is the Determination Date?", top_k=3)

    assert best.chunk.page == 2
    assert best.citation(1).where == "page 2"
    assert "15th calendar day" in best.citation(1).text


def test_a_bad_file_is_refused_and_nothing_is_half_ingested(library, data_dir):
    with pytest.raises(InvalidInput, match="is not a readable PDF"):
        library.ingestion.ingest("notes.pdf", b"%PDF-1.7 this is not really a pdf")

    assert library.documents.list() == []
    assert files_under(data_dir) == []


def test_a_cancelled_ingestion_leaves_no_document_chunks_vectors_or_file(library, data_dir):
    cancel = threading.Event()
    cancel.set()

    with pytest.raises(IngestionCancelled):
        library.ingestion.ingest("trust.pdf", trust_pdf(), cancel=cancel)

    assert library.documents.list() == []
    assert library.index.open().count() == 0
    assert files_under(data_dir) == []


def test_deleting_a_document_removes_its_vectors_and_file(library, data_dir):
    document = library.ingestion.ingest("trust.pdf", trust_pdf())

    library.documents.delete(document.id)

    assert library.documents.list() == []
    assert library.index.open().count() == 0
    assert files_under(data_dir) == []
    with pytest.raises(NotFound):
        library.documents.delete(document.id)


def test_a_conversation_scope_keeps_other_documents_out(library):
    trust = library.ingestion.ingest("trust.pdf", trust_pdf())
    recipes = library.ingestion.ingest("recipes.md", "# Bread\n\nKnead the dough for ten minutes on the 15th try.".encode())

    hits = library.retrieval.retrieve("Determination Date 15th", top_k=5, document_ids=[recipes.id])

    assert hits and {h.chunk.document_id for h in hits} == {recipes.id}
    assert trust.id not in {h.chunk.document_id for h in hits}


def test_reindex_rebuilds_a_lost_index_from_the_text_in_the_database(data_dir, shared_embedder):
    import shutil

    from docchat.bootstrap import build_services
    from docchat.config import Settings

    first = build_services(Settings(data_dir=data_dir), embedder=shared_embedder)
    document = first.ingestion.ingest("trust.pdf", trust_pdf())
    first.index.open().close()  # a shard is one process's, and one index's, at a time
    shutil.rmtree(data_dir / "vectors")
    library = build_services(Settings(data_dir=data_dir), embedder=shared_embedder)
    # The question shares no word with the page that answers it: only the vectors can find it.
    question = "Which monthly deadline applies?"
    assert library.retrieval.retrieve(question, top_k=3) == []
    assert "`docchat documents repair`" in library.index.health().problem
    stages = []

    count = library.index.reindex(progress=lambda stage, share: stages.append(share))

    assert count == document.chunks == library.index.open().count()
    assert stages[-1] == 1.0 and stages == sorted(stages)
    assert library.retrieval.retrieve(question, top_k=3)[0].chunk.page == 2
    assert library.index.health().problem is None


def test_the_whole_library_is_handed_out_in_order_only_when_its_tokens_fit(library):
    document = library.ingestion.ingest("trust.pdf", trust_pdf())
    tokens = sum(c.chunk.token_count for c in library.retrieval.whole(None, max_tokens=10**6))

    chunks = library.retrieval.whole([document.id], max_tokens=tokens)

    assert [c.chunk.page for c in chunks] == sorted(c.chunk.page for c in chunks)
    assert chunks[0].document == "trust.pdf" and len(chunks) == document.chunks
    assert library.retrieval.whole([document.id], max_tokens=tokens - 1) is None
    assert library.retrieval.whole([], max_tokens=tokens) is None


def test_the_whole_library_follows_documents_added_and_deleted_since_it_was_last_handed_out(library):
    lease = library.ingestion.ingest("lease.md", b"# Lease\n\nThe tenant may end the lease on the fifth anniversary.\n")
    assert {c.document for c in library.retrieval.whole(None, max_tokens=10**6)} == {"lease.md"}

    library.ingestion.ingest("bread.md", b"# Bread\n\nKnead the dough for ten minutes.\n")
    assert {c.document for c in library.retrieval.whole(None, max_tokens=10**6)} == {"lease.md", "bread.md"}

    library.documents.delete(lease.id)
    assert {c.document for c in library.retrieval.whole(None, max_tokens=10**6)} == {"bread.md"}


def test_a_cited_pdf_page_is_drawn_with_the_passage_marked_and_a_deleted_document_leaves_the_quote(services):
    document = services.ingestion.ingest("Harbour Street Trust.pdf", trust_pdf())
    document = getattr(document, "document", document)
    [hit] = services.retrieval.retrieve("When is the Determination Date?", top_k=1)
    cited = hit.citation(1)

    view = services.documents.source(cited)

    assert view.page_image.startswith(b"\x89PNG") and view.marked >= 1
    assert view.original == trust_pdf()
    services.documents.delete(document.id)
    gone = services.documents.source(cited)
    assert (gone.document, gone.page_image, gone.citation.text) == (None, None, cited.text)

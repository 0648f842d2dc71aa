"""The document library over fakes of its ports: what a reader sees of a cited page, and what a
refused or failed file leaves behind (nothing)."""

from __future__ import annotations

import threading

import pytest

from docchat.domain import Citation
from docchat.errors import InvalidInput
from docchat.services.library import build_library
from docchat.services.ingestion import IngestionCancelled

from tests.unit.fakes import FakeEmbedder, FakeFiles, FakeIndex, FakeParser, FakeRenderer, FakeUnitOfWork, WordCounter

DEED = ("TRUST DEED. The Determination Date is the 15th of each month.\f"
        "If the Determination Date falls on a weekend, the next business day applies.").encode()
WEEKEND = "If the Determination Date falls on a weekend, the next business day applies."
TENANCY = b"The tenant may end the lease with three months' notice, given in writing."


class Library:
    def __init__(self, *, parser: FakeParser | None = None, embedder: FakeEmbedder | None = None):
        self.uow, self.files, self.index = FakeUnitOfWork(), FakeFiles(), FakeIndex()
        self.renderer = FakeRenderer(marked=2)
        self.services = build_library(self.uow, lambda: self.index, embedder or FakeEmbedder(), WordCounter(),
                                      parser=parser or FakeParser(), files=self.files, renderer=self.renderer,
                                      max_bytes=1024 * 1024)

    def citation(self, name: str, passage: str) -> Citation:
        [document] = [d for d in self.services.documents.list() if d.name == name]
        [chunk] = [c for c in self.uow.documents.chunks_of(document.id) if c.text == passage]
        return Citation(1, name, f"page {chunk.page}" if chunk.page else chunk.label, passage,
                        document_id=document.id, chunk_id=chunk.id, page=chunk.page, section=chunk.label)


def test_a_cited_pdf_page_is_shown_as_the_renderer_drew_it_with_the_passage_marked():
    library = Library()
    library.services.ingestion.ingest("trust-deed.pdf", DEED)

    view = library.services.documents.source(library.citation("trust-deed.pdf", WEEKEND))

    assert (view.page_image, view.marked, view.original) == (b"PNG of page 2", 2, DEED)
    assert library.renderer.drawn == [(DEED, 2, WEEKEND)]


def test_a_cited_pdf_whose_stored_file_is_gone_is_shown_in_its_section_and_no_page_is_drawn():
    library = Library()
    library.services.ingestion.ingest("trust-deed.pdf", DEED)
    citation = library.citation("trust-deed.pdf", WEEKEND)
    library.files.files.clear()

    view = library.services.documents.source(citation)

    assert (view.page_image, view.original, view.section) == (None, None, ((WEEKEND, True),))
    assert library.renderer.drawn == []


def test_a_file_the_parser_refuses_leaves_the_library_and_the_stored_files_as_they_were():
    library = Library(parser=FakeParser("payroll.exe"))
    library.services.ingestion.ingest("tenancy.txt", TENANCY)
    stored, vectors = dict(library.files.files), dict(library.index.points)

    with pytest.raises(InvalidInput, match="payroll.exe"):
        library.services.ingestion.ingest("payroll.exe", b"MZ\x90\x00")

    assert [d.name for d in library.services.documents.list()] == ["tenancy.txt"]
    assert (library.files.files, library.index.points) == (stored, vectors)


def test_a_file_whose_embedding_fails_is_removed_again_with_its_chunks_and_its_stored_file():
    library = Library(embedder=FakeEmbedder(failure=RuntimeError("the embeddings server went away")))

    with pytest.raises(RuntimeError, match="went away"):
        library.services.ingestion.ingest("tenancy.txt", TENANCY)

    assert library.services.documents.list() == []
    assert (library.uow.documents.documents, library.uow.documents.chunk_rows) == ({}, {})
    assert library.files.files == {}


def test_the_pages_of_a_scan_are_shown_as_they_are_read_and_a_cancel_between_two_stops_it_with_nothing_kept():
    parser = FakeParser()
    parser.scans.add("scan.pdf")
    library = Library(parser=parser)
    stages: list[str] = []

    library.services.ingestion.ingest("scan.pdf", DEED, progress=lambda stage, share: stages.append(stage))

    assert [s for s in stages if "OCR" in s] == ["reading page 1 of 2 (OCR)", "reading page 2 of 2 (OCR)"]

    parser.scans.add("second-scan.pdf")
    cancel = threading.Event()

    def cancel_at_the_first_page(stage: str, share: float) -> None:
        if "OCR" in stage:
            cancel.set()

    with pytest.raises(IngestionCancelled, match="second-scan.pdf was cancelled; nothing was kept"):
        library.services.ingestion.ingest("second-scan.pdf", TENANCY + b"\f" + TENANCY, progress=cancel_at_the_first_page,
                               cancel=cancel)
    assert [d.name for d in library.services.documents.list()] == ["scan.pdf"]


def test_a_cited_scanned_page_that_cannot_be_drawn_again_is_shown_as_its_section():
    library = Library()
    library.services.ingestion.ingest("deed.pdf", DEED)

    def tesseract_gone(*args, **kwargs):
        raise InvalidInput('"deed.pdf" is a scan or an image: reading it needs tesseract-ocr, which is not installed')

    library.services.documents._renderer = tesseract_gone
    view = library.services.documents.source(library.citation("deed.pdf", WEEKEND))

    assert (view.page_image, view.section) == (None, ((WEEKEND, True),))

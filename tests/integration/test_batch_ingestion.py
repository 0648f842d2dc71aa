"""Many files in one go (`DocumentService.add_many`): real parsing, MiniLM, Qdrant Edge.
Each file is all or nothing; a bad one is refused alone and leaves nothing behind."""

from __future__ import annotations

import threading

import pytest

from docchat.bootstrap import build_services
from docchat.config import Settings
from docchat.services import ingestion
from docchat.services.ingestion import FileToAdd, IngestionCancelled

from tests.integration.sample_documents import COOKERY_PASSAGES, TRUST_PASSAGES
from tests.integration.sqlite_files import sql

LEASE = b"# Rent review\n\nThe rent is reviewed every fifth year against open market rents.\n"
BREAD = b"# Bread\n\nKnead the dough for ten minutes, then leave it to rise until doubled.\n"
WHITBY = b"The house in Whitby is let to a tenant on a twelve-month assured shorthold tenancy.\n"
QUESTIONS = ["When is the rent reviewed?", "How long do I knead the dough?", "Who holds the Trust Fund?",
             "What happens on the Determination Date?", "How hot should the oven be for the loaf?"]


def markdown(passages) -> bytes:
    return "\n\n".join(f"## {title}\n\n{text}" for title, text in passages).encode()


def given(name: str, data: bytes) -> FileToAdd:
    return FileToAdd(name, lambda: data)


def unreadable(name: str) -> FileToAdd:
    def read() -> bytes:
        raise PermissionError(13, "Permission denied")
    return FileToAdd(name, read)


def stored_files(data_dir) -> list[str]:
    folder = data_dir / "documents"
    return sorted(p.name for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def test_a_batch_adds_the_good_files_and_refuses_each_bad_one_in_a_line_of_its_own(library, data_dir):
    files = [given("lease.md", LEASE), given("minutes.pdf", b"%PDF-1.7 not really a pdf"), given("bread.md", BREAD),
             given("blank.txt", b"   \n\n  "), unreadable("locked.txt"), given("whitby.txt", WHITBY)]

    outcomes = list(library.ingestion.add_many(files))

    refused = {o.name: str(o.error) for o in outcomes if o.error}
    assert sorted(refused) == ["blank.txt", "locked.txt", "minutes.pdf"]
    assert all(name in line and "\n" not in line for name, line in refused.items())
    added = [o.report.document for o in outcomes if o.report]
    assert sorted(d.name for d in added) == ["bread.md", "lease.md", "whitby.txt"]
    assert sorted(d.id for d in library.documents.list()) == sorted(d.id for d in added)
    # Every added file has its chunks, its vectors and its stored file; the refused left none.
    index = library.index.open()
    assert {document_id for _, document_id, _ in index.vectors()} == {d.id for d in added}
    assert index.count() == sum(d.chunks for d in added) == sql(data_dir, "SELECT count(*) FROM chunks")[0][0]
    assert sql(data_dir, "SELECT name FROM documents ORDER BY name") == [("bread.md",), ("lease.md",), ("whitby.txt",)]
    assert len(stored_files(data_dir)) == 3


def test_a_batch_finds_the_same_passages_as_the_files_added_one_by_one(library, other_services):
    files = [("harbour-trust.md", markdown(TRUST_PASSAGES)), ("kitchen-notebook.md", markdown(COOKERY_PASSAGES)),
             ("lease.md", LEASE), ("bread.md", BREAD), ("whitby.txt", WHITBY)]
    for name, data in files:
        library.ingestion.add(name, data)
    batched = other_services

    list(batched.ingestion.add_many([given(name, data) for name, data in files]))

    for question in QUESTIONS:
        one_by_one = [(h.document, h.chunk.position, h.chunk.text) for h in library.retrieval.retrieve(question, top_k=5)]
        together = [(h.document, h.chunk.position, h.chunk.text) for h in batched.retrieval.retrieve(question, top_k=5)]
        assert set(together) == set(one_by_one) and together[0] == one_by_one[0], question


def test_the_same_content_twice_in_a_batch_is_added_once_and_the_second_says_so(library):
    outcomes = list(library.ingestion.add_many([given("lease.md", LEASE), given("copy of the lease.md", LEASE)]))

    first, second = (o.report for o in outcomes)
    assert (first.already_present, second.already_present) == (False, True)
    assert second.document.id == first.document.id
    assert [d.name for d in library.documents.list()] == ["lease.md"]


def test_a_batch_shows_one_progress_that_only_grows_to_the_end(library):
    shares = []

    list(library.ingestion.add_many([given("lease.md", LEASE), given("bread.md", BREAD), given("whitby.txt", WHITBY)],
                          progress=lambda stage, share: shares.append(share)))

    assert shares == sorted(shares) and shares[-1] == 1.0


def test_a_cancel_keeps_the_files_already_added_and_nothing_of_the_group_under_way(library, data_dir, monkeypatch):
    monkeypatch.setattr(ingestion, "GROUP_FILES", 2)  # lease + bread, then whitby + kitchen
    cancel = threading.Event()
    files = [given("lease.md", LEASE), given("bread.md", BREAD), given("whitby.txt", WHITBY),
             given("kitchen-notebook.md", markdown(COOKERY_PASSAGES))]

    def progress(stage: str, share: float) -> None:
        if "reading kitchen-notebook.md" in stage:  # the last file of the second group
            cancel.set()

    reported = []
    with pytest.raises(IngestionCancelled, match="after 2 of 4 files"):
        for outcome in library.ingestion.add_many(files, progress=progress, cancel=cancel):
            reported.append(outcome.name)

    assert reported == ["lease.md", "bread.md"]
    kept = library.documents.list()
    assert sorted(d.name for d in kept) == ["bread.md", "lease.md"]
    assert library.index.open().count() == sum(d.chunks for d in kept)
    assert sql(data_dir, "SELECT count(*) FROM documents")[0][0] == 2
    assert len(stored_files(data_dir)) == 2


class _FailsOnThirdCall:
    """The real embedder, until its third call: as an embeddings server that goes away."""

    def __init__(self, embedder) -> None:
        self._embedder, self.calls = embedder, 0
        self.name, self.model_id, self.dimension = embedder.name, embedder.model_id, embedder.dimension

    def embed(self, texts):
        self.calls += 1
        if self.calls == 3:
            raise ingestion.InvalidInput("the embeddings server went away")
        return self._embedder.embed(texts)


def test_an_embedder_failing_mid_batch_removes_the_group_under_way_and_stops(shared_embedder, data_dir, monkeypatch):
    monkeypatch.setattr(ingestion, "GROUP_FILES", 1)
    library = build_services(Settings(data_dir=data_dir), embedder=_FailsOnThirdCall(shared_embedder))
    files = [given("lease.md", LEASE), given("bread.md", BREAD), given("whitby.txt", WHITBY)]

    reported = []
    with pytest.raises(ingestion.InvalidInput, match="went away"):
        for outcome in library.ingestion.add_many(files):
            reported.append(outcome.name)

    assert reported == ["lease.md", "bread.md"]
    assert sorted(d.name for d in library.documents.list()) == ["bread.md", "lease.md"]
    assert library.index.open().count() == sum(d.chunks for d in library.documents.list())
    assert sql(data_dir, "SELECT name FROM documents ORDER BY name") == [("bread.md",), ("lease.md",)]
    assert len(stored_files(data_dir)) == 2

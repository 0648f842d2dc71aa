"""The index check and repair: differences planted between the chunks, the keyword index and the
vector index are found by `docchat doctor` and mended by `docchat documents repair`, and the
passages they hid are found again."""

from __future__ import annotations

import json

import pytest
from tests.integration.test_cli import docchat, succeeded  # noqa: F401 (docchat: a fixture)

LEASE = (b"# Lease\n\n## Rent review\n\nThe rent is reviewed every fifth year against the retail prices index.\n\n"
         b"## Break clause\n\nThe tenant may end the lease on the tenth anniversary with six months' notice.\n")
SURVEY = (b"# Survey\n\n## Roof\n\nThe slate roof needs repointing on the north side within two years.\n\n"
          b"## Damp\n\nRising damp in the cellar; a chemical damp-proof course is recommended.\n")


@pytest.fixture
def two_documents(library):
    lease = library.ingestion.ingest("lease.md", LEASE)
    survey = library.ingestion.ingest("survey.md", SURVEY)
    return lease, survey


def _chunk(library, document, words: str):
    return next(c for c in library_chunks(library, document) if words in c.text)


def library_chunks(library, document):
    return [found.chunk for found in library.retrieval.whole([document.id], max_tokens=10_000)]


def _found_by_meaning(library, question: str) -> set[str]:
    vector = library.index._embedder.embed([question])[0]
    return {chunk_id for chunk_id, _ in library.index.open().nearest(vector, limit=10)}


def _found_by_words(library, *words: str) -> set[str]:
    return {chunk_id for chunk_id, _ in library.retrieval.by_words(list(words), limit=10)}


def _swap_keyword_entry(library, data_dir, database, chunk) -> None:
    """As a word index copied from another day could be: one chunk's entry gone and an entry of
    no chunk in its place, so that it holds as many entries as there are chunks (a count that
    differs is found, and the index built again, when it opens)."""
    import tantivy

    from docchat.documents.index import word_index

    [(pk,)] = database.rows("SELECT pk FROM chunks WHERE id = ?", chunk.id)
    library.retrieval.by_words(["anything"], limit=1)  # made, and brought up to date, at its first search
    index = tantivy.Index(word_index._schema(), path=str(data_dir / word_index.FOLDER), reuse=True)
    index.register_tokenizer("docchat", word_index._analyzer())
    writer = index.writer(heap_size=15_000_000, num_threads=1)
    writer.delete_documents_by_query(tantivy.Query.term_set_query(index.schema, "pk", [pk]))
    stray = tantivy.Document()
    stray.add_unsigned("pk", 10**9)
    stray.add_text("document", "a-document-long-gone")
    stray.add_text("words", "nothing")
    writer.add_document(stray)
    writer.commit()
    writer.wait_merging_threads()
    library.retrieval._words().close()  # this process's next search opens it as it now is


def test_a_library_as_ingested_agrees(two_documents, library):
    found = library.index.check()
    assert found.agrees
    assert found.chunks == found.vectors == sum(d.chunks for d in two_documents)
    assert (found.missing_keywords, found.stray_keywords) == (0, 0)


def test_a_lost_vector_and_a_stray_one_are_found_by_id_and_mended(two_documents, library):
    lease, _ = two_documents
    rent = _chunk(library, lease, "retail prices index")
    library.index.open().delete_chunks([rent.id])
    library.index.open().add_points([("chunk-of-a-deleted-document", "gone", [0.1] * 384)])
    assert rent.id not in _found_by_meaning(library, "How often is the rent reviewed?")

    found = library.index.check()
    assert not found.agrees
    assert found.missing_vectors == (rent.id,)
    assert found.stray_vectors == ("chunk-of-a-deleted-document",)

    done = library.index.repair()
    assert (done.embedded, done.dropped, done.keyword_index_rebuilt) == (1, 1, False)
    assert library.index.check().agrees
    assert rent.id in _found_by_meaning(library, "How often is the rent reviewed?")


def test_a_chunk_missing_from_the_keyword_index_is_found_again_by_its_words_after_repair(
        two_documents, library, database, data_dir):
    _, survey = two_documents
    roof = _chunk(library, survey, "slate roof")
    _swap_keyword_entry(library, data_dir, database, roof)
    assert roof.id not in _found_by_words(library, "repointing")

    found = library.index.check()
    assert (found.missing_keywords, found.stray_keywords) == (1, 1)

    assert library.index.repair().keyword_index_rebuilt
    assert library.index.check().agrees
    assert roof.id in _found_by_words(library, "repointing")


def test_doctor_reports_the_difference_and_exits_1_and_repair_mends_it(two_documents, library, database, docchat,
                                                                      data_dir):
    lease, survey = two_documents
    library.index.open().delete_chunks([_chunk(library, lease, "tenth anniversary").id])
    _swap_keyword_entry(library, data_dir, database, _chunk(library, survey, "Rising damp"))
    library.index.close()  # the commands below open the local index themselves

    report = docchat("doctor")
    assert report.returncode == 1, report.stderr
    assert "1 chunk without a vector (not found by meaning)" in report.stdout
    assert "1 chunk missing from the keyword index (not found by words)" in report.stdout
    assert "1 keyword entry of no chunk" in report.stdout
    assert "docchat documents repair" in report.stdout

    repaired = succeeded(docchat("documents", "repair"))
    assert "found: 1 chunk without a vector" in repaired
    assert "repaired: 1 vector embedded again, 0 stray vectors dropped, the keyword index rebuilt" in repaired

    after = docchat("doctor", "--json")
    assert after.returncode == 0, after.stderr
    index = json.loads(after.stdout)["index"]
    assert index["agrees"] and index["problems"] == [] and index["missing_vectors"] == 0
    assert "Nothing to repair" in succeeded(docchat("documents", "repair"))


@pytest.mark.parametrize("database", ["postgresql"], indirect=True)
def test_on_postgresql_the_vectors_are_checked_and_the_keyword_index_is_part_of_the_row(two_documents, library):
    lease, _ = two_documents
    rent = _chunk(library, lease, "retail prices index")
    library.index.open().delete_chunks([rent.id])
    found = library.index.check()
    assert found.missing_vectors == (rent.id,)
    assert (found.missing_keywords, found.stray_keywords) == (None, None)
    assert library.index.repair().embedded == 1
    assert library.index.check().agrees


def test_the_point_ids_removed_are_those_of_the_chunks(two_documents, library):
    lease, _ = two_documents
    records = library_chunks(library, lease)
    library.index.open().delete_chunks([r.id for r in records])
    remaining = library.index.open().chunk_ids()
    assert not {r.id for r in records} & set(remaining)
    assert len(remaining) == library.index.check().chunks - len(records)

"""The word index beside a SQLite store (Tantivy, in the data dir) follows the chunk rows: what is
added, removed or changed is found or gone at the next search, in this process or after another
wrote the rows; a kill or a lost or stale folder costs a rebuild, never a wrong answer."""

from __future__ import annotations

import json
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import text

from docchat.documents.index import word_index
from docchat.documents.index.word_index import FOLDER, SYNCED, TantivyWordIndex
from docchat.store.engine import make_engine
from docchat.store.migrate import upgrade


@pytest.fixture
def engine(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'docchat.db'}")
    upgrade(engine)
    yield engine
    engine.dispose()


def _add(engine, document: str, texts: list[str], *, status: str = "ready") -> list[str]:
    """A document's row and its chunks' rows, as ingestion writes them; the chunk ids."""
    ids = [f"{document}-{n}" for n in range(len(texts))]
    with engine.begin() as connection:
        connection.execute(text(
            "INSERT INTO documents (id, name, kind, path, size, content_hash, chunks, status, added_at) "
            "VALUES (:id, :name, 'markdown', 'x', 1, :id, :n, :status, '2026-11-30 09:00:00')"),
            {"id": document, "name": f"{document}.md", "n": len(texts), "status": status})
        connection.execute(text(
            "INSERT INTO chunks (id, document_id, position, label, text, token_count, heading) "
            "VALUES (:id, :document, :position, 'part', :text, 5, :heading)"),
            [{"id": chunk, "document": document, "position": n, "text": body, "heading": f"{document}.md › part"}
             for n, (chunk, body) in enumerate(zip(ids, texts))])
    return ids


def _delete(engine, document: str) -> None:
    with engine.begin() as connection:
        connection.execute(text("DELETE FROM chunks WHERE document_id = :d"), {"d": document})
        connection.execute(text("DELETE FROM documents WHERE id = :d"), {"d": document})


def _words(tmp_path, engine) -> TantivyWordIndex:
    return TantivyWordIndex(tmp_path / FOLDER, engine)


def test_chunks_added_removed_and_added_again_are_found_or_gone_at_the_next_search(tmp_path, engine):
    words = _words(tmp_path, engine)
    _add(engine, "lease", ["The tenant pays the rent quarterly."])
    [gilts, _] = _add(engine, "trust", ["The Trustee may invest in gilts.", "The Trustee keeps accounts."])
    assert words.search(["gilts"], limit=5) == [(gilts, "trust")]
    assert [c for c, _ in words.search(["rent"], limit=5)] == ["lease-0"]
    pks = _pks(engine, "trust")

    _delete(engine, "trust")
    assert words.search(["gilts"], limit=5) == []
    # The rows removed were the newest, so SQLite gives their pks to the next rows: the index
    # must drop the old entries and take the new ones under the same pks.
    [again, _] = _add(engine, "trust", ["The Trustee may invest in gilts.", "The Trustee keeps accounts."])
    assert _pks(engine, "trust") == pks
    assert words.search(["gilts"], limit=5) == [(again, "trust")]
    assert words.search(["accounts"], limit=5) == [("trust-1", "trust")]
    assert words.check() == (0, 0)


def _pks(engine, document: str) -> list[int]:
    with engine.connect() as connection:
        return list(connection.execute(text("SELECT pk FROM chunks WHERE document_id = :d ORDER BY pk"),
                                       {"d": document}).scalars())


def test_a_rare_word_outweighs_a_common_one_and_a_scope_keeps_to_its_documents(tmp_path, engine):
    words = _words(tmp_path, engine)
    _add(engine, "trust", ["The Trustee acts.", "The Trustee and the Trustee again.", "Only gilts here, Trustee."])
    _add(engine, "cookery", ["Knead the dough.", "The Trustee of the kitchen bakes."])

    assert words.search(["trustee", "gilts"], limit=5)[0] == ("trust-2", "trust")
    assert {d for _, d in words.search(["trustee"], limit=10, document_ids=["cookery"])} == {"cookery"}
    assert words.search(["trustee"], limit=10, document_ids=[]) == []
    assert words.search(["café"], limit=5) == []  # folded to "cafe": found nowhere, no error


def test_chunks_of_equal_score_rank_the_same_whether_the_index_was_built_at_once_or_change_by_change(
        tmp_path, engine):
    words = _words(tmp_path, engine)
    _add(engine, "a", ["Harbour dues are paid monthly."] * 3)
    words.search(["dues"], limit=1)
    _add(engine, "b", ["Harbour dues are paid monthly."] * 3)
    words.search(["dues"], limit=1)
    # The first chunk changes and changes back: this index now holds it after the others.
    for body in ("Draft.", "Harbour dues are paid monthly."):
        with engine.begin() as connection:
            connection.execute(text("UPDATE chunks SET text = :t WHERE id = 'a-0'"), {"t": body})
        words.search(["dues"], limit=1)

    built = TantivyWordIndex(tmp_path / "rebuilt", engine)
    assert words.search(["dues"], limit=4) == built.search(["dues"], limit=4)
    assert [c for c, _ in words.search(["dues"], limit=4)] == ["a-0", "a-1", "a-2", "b-0"]


def test_words_that_are_operators_elsewhere_are_searched_as_words(tmp_path, engine):
    words = _words(tmp_path, engine)
    _add(engine, "notes", ["Near or far, NOT a word* of it: say \"no\"."])
    # Each term is a term query: nothing a user types is parsed as a query.
    for term in ("near", "or", "not", "word", "say", "no"):
        assert words.search([term], limit=5) == [("notes-0", "notes")], term
    assert words.search(["*", '"', "(", ")"], limit=5) == []


def test_accents_are_folded_on_both_sides(tmp_path, engine):
    words = _words(tmp_path, engine)
    _add(engine, "menu", ["A CAFÉ crème at the Brasserie."])
    assert words.search(["cafe"], limit=5) == [("menu-0", "menu")]
    assert words.search(["café"], limit=5) == [("menu-0", "menu")]


def test_chunks_of_a_document_still_being_ingested_are_not_found(tmp_path, engine):
    words = _words(tmp_path, engine)
    _add(engine, "draft", ["The reserve account is funded monthly."], status="ingesting")
    assert words.search(["reserve"], limit=5) == []
    with engine.begin() as connection:
        connection.execute(text("UPDATE documents SET status = 'ready' WHERE id = 'draft'"))
    assert words.search(["reserve"], limit=5) == [("draft-0", "draft")]


def test_rows_written_by_another_process_are_found_by_this_one(tmp_path, engine):
    words = _words(tmp_path, engine)
    _add(engine, "first", ["Nothing of note."])
    assert words.search(["note"], limit=5) == [("first-0", "first")]
    other = make_engine(f"sqlite:///{tmp_path / 'docchat.db'}")
    _add(other, "second", ["A note about the harbour dues."])
    other.dispose()

    assert sorted(words.search(["note"], limit=5)) == [("first-0", "first"), ("second-0", "second")]


def test_changes_replayed_after_a_kill_before_the_note_are_not_held_twice(tmp_path, engine):
    words = _words(tmp_path, engine)
    _add(engine, "trust", ["The Trustee may invest in gilts."])
    words.search(["gilts"], limit=5)
    note = json.loads((tmp_path / FOLDER / SYNCED).read_text())
    _add(engine, "lease", ["Gilts are not rent."])
    words.search(["gilts"], limit=5)
    words.close()
    # As if killed after the commit of the second change, before its note was written.
    (tmp_path / FOLDER / SYNCED).write_text(json.dumps(note))

    again = _words(tmp_path, engine)
    assert sorted(again.search(["gilts"], limit=5)) == [("lease-0", "lease"), ("trust-0", "trust")]
    assert again.check() == (0, 0)


def test_a_lost_folder_and_one_ahead_of_a_restored_database_are_built_again(tmp_path, engine):
    words = _words(tmp_path, engine)
    _add(engine, "trust", ["The Trustee may invest in gilts."])
    kept = tmp_path / "kept.db"
    with sqlite3.connect(tmp_path / "docchat.db") as source, sqlite3.connect(kept) as copy:
        source.backup(copy)
    _add(engine, "lease", ["The rent is reviewed in gilts."])
    assert len(words.search(["gilts"], limit=5)) == 2
    words.close()

    shutil.rmtree(tmp_path / FOLDER)
    assert len(_words(tmp_path, engine).search(["gilts"], limit=5)) == 2

    restored = make_engine(f"sqlite:///{kept}")  # the database as it was before the lease
    try:
        assert _words(tmp_path, restored).search(["gilts"], limit=5) == [("trust-0", "trust")]
    finally:
        restored.dispose()


def test_a_search_while_another_process_writes_the_index_answers_from_it_as_it_stands(tmp_path, engine):
    words = _words(tmp_path, engine)
    _add(engine, "trust", ["The Trustee may invest in gilts."])
    assert len(words.search(["gilts"], limit=5)) == 1
    import tantivy

    held = tantivy.Index(word_index._schema(), path=str(tmp_path / FOLDER), reuse=True).writer(15_000_000, 1)
    _add(engine, "lease", ["Gilts again."])
    assert words.search(["gilts"], limit=5) == [("trust-0", "trust")]  # not brought up to date, no error
    del held  # its lock goes with it
    assert len(words.search(["gilts"], limit=5)) == 2


def test_the_change_log_is_pruned_and_the_index_still_follows_the_rows(tmp_path, engine, monkeypatch):
    monkeypatch.setattr(word_index, "PRUNE_FROM", 3)
    words = _words(tmp_path, engine)
    words.search(["x"], limit=1)
    _add(engine, "trust", ["gilts one", "gilts two", "gilts three", "gilts four"])
    assert len(words.search(["gilts"], limit=10)) == 4
    with engine.connect() as connection:
        assert connection.execute(text("SELECT count(*) FROM chunk_changes")).scalar_one() == 0
    words.close()

    _delete(engine, "trust")
    _add(engine, "lease", ["gilts five"])
    assert _words(tmp_path, engine).search(["gilts"], limit=10) == [("lease-0", "lease")]


_BUILDER = """
import sys
from pathlib import Path
from docchat.documents.index import word_index
from docchat.store.engine import make_engine
told = lambda done, total: print(done, flush=True)
word_index.TantivyWordIndex(Path(sys.argv[1]), make_engine(sys.argv[2]), progress=told).search(["gilts"], limit=1)
"""


def test_a_build_killed_midway_leaves_no_index_and_the_next_search_builds_it(tmp_path, engine):
    with engine.begin() as connection:
        connection.execute(text(
            "INSERT INTO documents (id, name, kind, path, size, content_hash, chunks, status, added_at) "
            "VALUES ('big', 'big.md', 'markdown', 'x', 1, 'big', 250000, 'ready', '2026-11-30 09:00:00')"))
        connection.execute(text(
            "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 249999) "
            "INSERT INTO chunks (id, document_id, position, label, text, token_count, heading) "
            "SELECT 'big-' || i, 'big', i, 'part', 'clause ' || i || ' of the lease, gilts ' || (i % 97), 9, 'big.md' "
            "FROM n"))
    builder = subprocess.Popen([sys.executable, "-c", _BUILDER, str(tmp_path / FOLDER), str(engine.url)],
                               stdout=subprocess.PIPE, text=True)
    assert builder.stdout is not None and builder.stdout.readline() == "100000\n"  # surely midway
    builder.send_signal(signal.SIGKILL)
    builder.wait()

    assert not (tmp_path / FOLDER).exists()
    words = _words(tmp_path, engine)
    assert len(words.search(["gilts"], limit=3)) == 3
    assert words.check() == (0, 0)
    assert not Path(f"{tmp_path / FOLDER}.building").exists()

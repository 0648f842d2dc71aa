"""The document index while the app holds it: the commands that need it stop with
one line saying so and write nothing; `docchat import`, which needs only the database, works.

This test's process plays the app: its services open the index as the page does, and a Qdrant
Edge shard is held by one process at a time, so each `docchat` subprocess is refused.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from docchat.bootstrap import build_services
from docchat.config import Settings
from docchat.domain import DocumentStatus
from docchat.errors import DocchatError
from tests.integration.sample_data import trust_conversation
from tests.integration.sqlite_files import table_contents
from tests.integration.test_cli import docchat, one_error_line, succeeded  # noqa: F401 (docchat: a fixture)

LEASE = (b"# Lease\n\n## Rent review\n\nThe rent is reviewed every fifth year against the retail prices index.\n\n"
         b"## Break clause\n\nThe tenant may end the lease on the tenth anniversary with six months' notice.\n")
SURVEY = ("## Roof\n\nThe slate roof needs repointing on the north side within two years.\n\n"
          "## Damp\n\nRising damp in the cellar; a chemical damp-proof course is recommended.\n")


@pytest.fixture
def app_holding_the_index(services, library, data_dir):
    """A library with one document, its index held open as the running app holds it."""
    library.ingestion.ingest("lease.md", LEASE)
    library.index.open()
    yield services
    services.index.close()


def _library_state(services, data_dir: Path, database) -> dict:
    """Everything an ingestion writes: the rows, the stored files, and the vectors."""
    documents = data_dir / "documents"
    return {
        "documents": database.rows("SELECT * FROM documents ORDER BY id"),
        "chunks": database.rows("SELECT * FROM chunks ORDER BY id"),
        "files": {str(p.relative_to(documents)): p.read_bytes() for p in sorted(documents.rglob("*")) if p.is_file()},
        "vectors": services.index.open().count(),
    }


def _refused_for_the_held_index(line: str) -> None:
    assert "The document index (" in line and "vectors) is open in another docchat process" in line
    assert "stop it first, or use a Qdrant server (DOCCHAT_QDRANT_URL)" in line


def test_ingest_while_the_app_holds_the_index_stops_in_one_line_and_writes_nothing(
        app_holding_the_index, docchat, data_dir, database, tmp_path):
    survey = tmp_path / "survey.md"
    survey.write_text(SURVEY)
    listed = succeeded(docchat("documents", "list"))
    before = _library_state(app_holding_the_index, data_dir, database)

    _refused_for_the_held_index(one_error_line(docchat("ingest", str(survey))))

    assert _library_state(app_holding_the_index, data_dir, database) == before
    assert len(before["files"]) == len(before["documents"]) == 1
    assert succeeded(docchat("documents", "list")) == listed


@pytest.mark.parametrize("verb", ["reindex", "repair"])
def test_reindex_or_repair_while_the_app_holds_the_index_stops_in_one_line_and_leaves_the_index_as_it_was(
        app_holding_the_index, docchat, data_dir, database, verb):
    before = _library_state(app_holding_the_index, data_dir, database)

    _refused_for_the_held_index(one_error_line(docchat("documents", verb)))

    assert _library_state(app_holding_the_index, data_dir, database) == before
    assert before["vectors"] == len(before["chunks"])
    # The app still finds the document by meaning with the vectors it held.
    [hit] = app_holding_the_index.retrieval.retrieve("when can the tenant leave early?", top_k=1)
    assert hit.document == "lease.md"


def test_deleting_a_document_while_the_app_holds_the_index_stops_in_one_line_and_removes_nothing(
        app_holding_the_index, docchat, data_dir, database):
    [lease] = app_holding_the_index.documents.list()
    before = _library_state(app_holding_the_index, data_dir, database)

    _refused_for_the_held_index(one_error_line(docchat("documents", "delete", lease.id)))

    # Removed from the library, its vectors would have stayed in the app's index.
    assert _library_state(app_holding_the_index, data_dir, database) == before


def test_import_while_the_app_holds_the_index_works(app_holding_the_index, other_services, docchat, data_dir,
                                                    tmp_path):
    trust_id = trust_conversation(other_services)
    export = tmp_path / "trust.json"
    export.write_text(other_services.transfer.export_json(trust_id))
    before = table_contents(data_dir)

    out = succeeded(docchat("import", str(export)))

    assert f"imported {trust_id}" in out
    assert succeeded(docchat("export", trust_id, "--format", "md")).startswith("# Hartley family trust agreement")
    imported = app_holding_the_index.messages.history(trust_id)
    assert [(m.role, m.content) for m in imported] == [(m.role, m.content)
                                                      for m in other_services.messages.history(trust_id)]
    assert len(table_contents(data_dir)["messages"]) == len(before["messages"]) + len(imported)


def test_a_second_process_adding_the_file_the_app_is_ingesting_is_refused_and_leaves_the_app_s_ingestion_alone(
        services, library, data_dir, database):
    """A document being ingested looks like one a crash left half-done; only the process that
    holds the index may clear that, so a refused ingestion must not touch it."""
    embedding, go_on, added = threading.Event(), threading.Event(), []

    def paused_while_embedding(stage: str, share: float) -> None:
        if stage.startswith("embedded"):
            embedding.set()
            go_on.wait(60)

    app = threading.Thread(target=lambda: added.append(library.ingestion.add("lease.md", LEASE, progress=paused_while_embedding)))
    app.start()
    try:
        assert embedding.wait(60)
        during = _library_state(services, data_dir, database)
        assert [row for row in during["documents"] if "ingesting" in row]  # the app's, part-way
        second = build_services(Settings(data_dir=data_dir))  # as `docchat api` beside the page

        with pytest.raises(DocchatError, match="open in another docchat process"):
            second.ingestion.add("lease.md", LEASE)

        assert _library_state(services, data_dir, database) == during
    finally:
        go_on.set()
        app.join(60)
    [report] = added
    assert [d.id for d in services.documents.list()] == [report.document.id]
    assert report.document.status is DocumentStatus.READY
    assert services.index.health().problem is None  # every chunk has its vector

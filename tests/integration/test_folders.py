"""FolderService over the real store (SQLite and PostgreSQL), parser workers, embedder and
index, with real files in a temporary folder: what a sync leaves in the library and in each
file's status."""

from __future__ import annotations

import pytest

from docchat.errors import LLMError


pytestmark = pytest.mark.both_databases


@pytest.fixture
def folders(services):
    yield services.folders
    services.close()


@pytest.fixture
def ledger(tmp_path):
    folder = tmp_path / "ledger"
    (folder / "2026").mkdir(parents=True)
    (folder / "rent.md").write_text("# Rent\n\nThe shop's rent is 1,450 pounds a month.\n")
    (folder / "2026" / "rates.txt").write_text("Business rates fall due on the first of April.\n")
    return folder


def names(services) -> list[str]:
    return sorted(d.name for d in services.documents.list())


def test_a_folder_is_followed_synced_and_unfollowed(folders, services, ledger):
    first = folders.add(str(ledger))
    (ledger / "rent.md").write_text("# Rent\n\nThe shop's rent is 1,600 pounds a month from May.\n")
    (ledger / "2026" / "rates.txt").unlink()
    (ledger / "insurance.md").write_text("# Insurance\n\nThe policy renews in June.\n")
    second = folders.sync()

    assert first.counts.as_dict() == {"added": 2, "changed": 0, "removed": 0, "unchanged": 0, "refused": 0,
                                      "failed": 0}
    assert second.counts.as_dict() == {"added": 1, "changed": 1, "removed": 1, "unchanged": 0, "refused": 0,
                                       "failed": 0}
    assert names(services) == ["insurance.md", "rent.md"]
    [hit] = services.retrieval.retrieve("What is the shop's rent?", top_k=1)
    assert "1,600 pounds" in hit.chunk.text
    [state] = folders.list()
    assert state.files_by_status == {"ready": 2}
    assert state.folder.last_counts == second.counts

    assert folders.remove(str(ledger)) == 2
    assert names(services) == [] and folders.list() == []


def test_an_uploaded_document_stays_when_its_copy_in_a_followed_folder_goes(folders, services, ledger):
    services.ingestion.add("rent-upload.md", (ledger / "rent.md").read_bytes())
    folders.add(str(ledger))

    (ledger / "rent.md").unlink()
    folders.sync()

    assert names(services) == ["2026/rates.txt", "rent-upload.md"]
    folders.remove(str(ledger))
    assert names(services) == ["rent-upload.md"]


def test_two_files_with_one_content_hold_one_document_until_both_are_gone(folders, services, ledger):
    (ledger / "rent-copy.md").write_bytes((ledger / "rent.md").read_bytes())
    folders.add(str(ledger))
    # The document is named after the file read first.
    assert names(services) == ["2026/rates.txt", "rent-copy.md"]

    (ledger / "rent-copy.md").unlink()
    assert folders.sync().counts.removed == 1
    assert names(services) == ["2026/rates.txt", "rent-copy.md"]

    (ledger / "rent.md").unlink()
    folders.sync()
    assert names(services) == ["2026/rates.txt"]


def test_a_link_to_nothing_is_refused_with_why(folders, ledger, tmp_path):
    (ledger / "minutes.md").symlink_to(tmp_path / "moved-away.md")

    report = folders.add(str(ledger))

    assert report.counts.refused == 1
    [problem] = report.problems
    assert (problem.relative_path, problem.reason) == ("minutes.md", "a link to nothing (its target is gone)")


def test_a_folder_that_is_gone_keeps_its_documents(folders, services, ledger, tmp_path):
    folders.add(str(ledger))
    ledger.rename(tmp_path / "unmounted")

    report = folders.sync()

    assert report.counts.removed == 0
    assert [p.reason for p in report.problems] == ["the folder is not there any more"]
    assert names(services) == ["2026/rates.txt", "rent.md"]


class _DownEmbedder:
    name = model_id = "down"
    dimension = 384

    def embed(self, texts):
        raise LLMError("the embeddings server at 127.0.0.1:9 does not answer")


def test_a_file_that_failed_for_another_reason_than_its_content_is_tried_again(folders, services, ledger,
                                                                                shared_embedder):
    services.index.open()  # opened with the working embedder, as a running app has it
    services.ingestion._embedder = _DownEmbedder()
    failed = folders.add(str(ledger))

    assert failed.counts.failed == 2
    assert {p.reason for p in failed.problems} == {"the embeddings server at 127.0.0.1:9 does not answer"}
    assert folders.list()[0].files_by_status == {"failed": 2}
    assert names(services) == []

    services.ingestion._embedder = shared_embedder
    again = folders.sync()

    assert again.counts.added == 2 and again.problems == ()
    assert names(services) == ["2026/rates.txt", "rent.md"]


def test_a_followed_folder_holding_the_data_folder_does_not_follow_its_stored_copies(folders, services, ledger,
                                                                                    data_dir):
    home = ledger.parent
    assert data_dir.parent == home  # the data folder sits beside the ledger, in the folder followed

    folders.add(str(home))
    folders.sync()  # the stored copies the first pass wrote are there now

    assert names(services) == ["ledger/2026/rates.txt", "ledger/rent.md"]
    (ledger / "rent.md").unlink()
    folders.sync()
    assert names(services) == ["ledger/2026/rates.txt"]

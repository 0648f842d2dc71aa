"""`docchat folders`: a followed folder kept in step with the library, through the real command
(a subprocess over a temporary data dir), real files and the real index."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from docchat.bootstrap import build_services
from docchat.config import Settings

from tests.integration.test_cli_ingest import docchat  # noqa: F401 (a fixture: the real command)
from tests.integration.sqlite_files import sql


@pytest.fixture
def vault(tmp_path) -> Path:
    """An Obsidian vault: notes with [[links]], a subfolder, and the app's own hidden folders."""
    notes = tmp_path / "vault"
    (notes / "leases").mkdir(parents=True)
    (notes / ".obsidian").mkdir()
    (notes / ".git").mkdir()
    (notes / "rent-review.md").write_text("# Rent review\n\nThe rent is reviewed every fifth year, "
                                          "as [[Whitby lease]] says.\n")
    (notes / "bread.txt").write_text("Knead the dough for ten minutes, then leave it to rise.\n")
    (notes / "leases" / "whitby.md").write_text("# Whitby\n\nThe house in Whitby is let on a twelve-month lease.\n")
    (notes / ".obsidian" / "workspace.md").write_text("# Workspace\n\nPanes and tabs.\n")
    (notes / ".git" / "notes.txt").write_text("a git object\n")
    (notes / "photo.heic").write_bytes(b"\x00\x00\x00\x18ftypheic a photo")
    return notes


def documents(docchat) -> list[str]:
    """The names `docchat documents list` shows."""
    listed = docchat("documents", "list")
    assert listed.returncode == 0, listed.stderr
    return sorted(line.split()[-1] for line in listed.stdout.splitlines() if not line.startswith("No documents"))


def search(data_dir, embedder, question: str) -> list[tuple[str, str]]:
    """(document, passage) of the best hits, as a question in the app would find them."""
    services = build_services(Settings(data_dir=data_dir), contact_llm=False, embedder=embedder)
    try:
        return [(hit.document, hit.chunk.text) for hit in services.retrieval.retrieve(question, top_k=3)]
    finally:
        services.close()


def test_adding_a_folder_adds_the_files_docchat_reads_and_skips_hidden_folders(docchat, vault):
    done = docchat("folders", "add", str(vault))

    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "3 added, 0 changed, 0 removed, 0 unchanged, 0 refused"
    assert documents(docchat) == ["bread.txt", "leases/whitby.md", "rent-review.md"]
    listed = docchat("folders", "list")
    assert listed.stdout.startswith(f"{vault.resolve()}  3 ready  last sync ")


def test_documents_list_says_each_document_is_ready(docchat, vault):
    docchat("folders", "add", str(vault))

    lines = docchat("documents", "list").stdout.splitlines()
    assert [line.split()[1] for line in lines] == ["ready"] * 3
    assert {d["status"] for d in json.loads(docchat("documents", "list", "--json").stdout)} == {"ready"}


def test_folders_list_as_json_gives_each_file_status_and_the_last_sync(docchat, vault):
    (vault / "minutes.pdf").write_bytes(b"%PDF-1.7 cut short")
    docchat("folders", "add", str(vault))

    [folder] = json.loads(docchat("folders", "list", "--json").stdout)

    assert folder["path"] == str(vault.resolve())
    assert folder["files"] == {"ready": 3, "refused": 1}
    assert folder["last_sync"] == {"added": 3, "changed": 0, "removed": 0, "unchanged": 0, "refused": 1, "failed": 0}
    assert [(p["path"], p["status"]) for p in folder["problems"]] == [("minutes.pdf", "refused")]


def test_obsidian_links_are_read_as_text(docchat, vault, data_dir, shared_embedder):
    docchat("folders", "add", str(vault))

    hits = search(data_dir, shared_embedder, "Whitby lease rent review")
    assert any("as [[Whitby lease]] says" in text for _, text in hits)


def test_a_sync_with_nothing_changed_counts_every_file_unchanged(docchat, vault):
    docchat("folders", "add", str(vault))

    done = docchat("folders", "sync")

    assert done.returncode == 0
    assert done.stdout == "0 added, 0 changed, 0 removed, 3 unchanged, 0 refused\n"


def test_a_changed_file_is_read_again_and_its_old_version_leaves_the_index(docchat, vault, data_dir,
                                                                            shared_embedder):
    docchat("folders", "add", str(vault))
    (vault / "bread.txt").write_text("Proof the sourdough overnight in the fridge, then bake it at 240 degrees.\n")

    done = docchat("folders", "sync")

    assert done.stdout == "0 added, 1 changed, 0 removed, 2 unchanged, 0 refused\n"
    assert documents(docchat) == ["bread.txt", "leases/whitby.md", "rent-review.md"]
    texts = [text for (text,) in sql(data_dir, "SELECT text FROM chunks")]
    assert not any("Knead the dough" in text for text in texts)
    hits = search(data_dir, shared_embedder, "How long should the dough be kneaded?")
    assert not any("Knead" in text for _, text in hits)
    assert hits[0] == ("bread.txt", "Proof the sourdough overnight in the fridge, then bake it at 240 degrees.")


def test_a_touched_file_is_unchanged_and_keeps_its_document(docchat, vault, data_dir):
    docchat("folders", "add", str(vault))
    [(before,)] = sql(data_dir, "SELECT id FROM documents WHERE name = 'bread.txt'")
    later = (vault / "bread.txt").stat().st_mtime_ns + 5_000_000_000
    os.utime(vault / "bread.txt", ns=(later, later))

    done = docchat("folders", "sync")

    assert done.stdout == "0 added, 0 changed, 0 removed, 3 unchanged, 0 refused\n"
    assert sql(data_dir, "SELECT id FROM documents WHERE name = 'bread.txt'") == [(before,)]


def test_a_deleted_file_takes_its_document_out_of_the_library(docchat, vault, data_dir, shared_embedder):
    docchat("folders", "add", str(vault))
    (vault / "leases" / "whitby.md").unlink()

    done = docchat("folders", "sync")

    assert done.stdout == "0 added, 0 changed, 1 removed, 2 unchanged, 0 refused\n"
    assert documents(docchat) == ["bread.txt", "rent-review.md"]
    assert not any("twelve-month" in text for _, text in search(data_dir, shared_embedder, "Whitby house lease"))


def test_a_damaged_file_is_refused_with_why_and_retried_only_when_it_changes(docchat, vault):
    (vault / "minutes.pdf").write_bytes(b"%PDF-1.7\n1 0 obj << /Type /Catalog >> truncated")
    added = docchat("folders", "add", str(vault))

    assert added.stdout.splitlines()[0] == "3 added, 0 changed, 0 removed, 0 unchanged, 1 refused"
    [refusal] = added.stdout.splitlines()[1:]
    why = '"minutes.pdf" is not a readable PDF (it may be damaged)'
    assert refusal == f"  refused: {vault.resolve()}/minutes.pdf: {why}"
    listed = docchat("folders", "list").stdout.splitlines()
    assert listed[0].split("  ")[1] == "3 ready, 1 refused"
    assert listed[1] == f"  refused: minutes.pdf: {why}"
    assert docchat("folders", "sync").stdout.splitlines()[0] == \
        "0 added, 0 changed, 0 removed, 3 unchanged, 1 refused"

    (vault / "minutes.pdf").unlink()
    (vault / "minutes.md").write_text("# Minutes\n\nThe board approved the budget.\n")
    done = docchat("folders", "sync")

    assert done.stdout == "1 added, 0 changed, 1 removed, 3 unchanged, 0 refused\n"
    assert "minutes.md" in documents(docchat)


def test_a_link_that_loops_does_not_hang_the_walk(docchat, vault):
    (vault / "leases" / "back-to-the-vault").symlink_to(vault, target_is_directory=True)
    (vault / "leases" / "here").symlink_to(".", target_is_directory=True)

    done = docchat("folders", "add", str(vault))

    assert done.stdout.splitlines()[0] == "3 added, 0 changed, 0 removed, 0 unchanged, 0 refused"
    assert documents(docchat) == ["bread.txt", "leases/whitby.md", "rent-review.md"]


def test_a_folder_reached_through_a_link_is_walked(docchat, vault, tmp_path):
    archive = tmp_path / "archive"
    archive.mkdir()
    (archive / "deed.md").write_text("# Deed\n\nSigned in 1911.\n")
    (vault / "archive").symlink_to(archive, target_is_directory=True)

    done = docchat("folders", "add", str(vault))

    assert done.stdout.splitlines()[0] == "4 added, 0 changed, 0 removed, 0 unchanged, 0 refused"
    assert "archive/deed.md" in documents(docchat)


def test_folder_documents_join_the_conversation_scope(docchat, vault, data_dir):
    conversation = docchat("conversations", "new", "--title", "Household").stdout.strip()

    docchat("folders", "add", str(vault), "--conversation", conversation[:8])
    (vault / "bread.txt").write_text("Rye bread needs no kneading.\n")
    docchat("folders", "sync")

    services = build_services(Settings(data_dir=data_dir), contact_llm=False)
    scope = services.conversations.get(conversation).settings.document_scope
    names = {d.id: d.name for d in services.documents.list()}
    assert sorted(names[d] for d in scope) == ["bread.txt", "leases/whitby.md", "rent-review.md"]


def test_removing_a_folder_takes_its_documents_out_of_the_library_and_leaves_the_files(docchat, vault):
    docchat("folders", "add", str(vault))

    done = docchat("folders", "remove", str(vault))

    assert done.returncode == 0
    assert done.stdout == f"no longer following {vault}; 3 documents left the library\n"
    assert documents(docchat) == []
    assert (vault / "bread.txt").exists()
    assert docchat("folders", "list").stdout == "No folder followed. Follow one with: docchat folders add DIR\n"


@pytest.mark.parametrize("verb", ["add", "remove"])
def test_a_path_that_is_not_a_followed_folder_is_refused_in_one_line(docchat, vault, verb):
    missing = vault / "no-such-folder"

    done = docchat("folders", verb, str(missing))

    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and str(missing) in done.stderr
    assert docchat("folders", "list").stdout.startswith("No folder followed")


def test_a_file_given_as_a_folder_is_refused(docchat, vault):
    done = docchat("folders", "add", str(vault / "bread.txt"))

    assert (done.returncode, done.stderr) == (1, f"docchat: {vault / 'bread.txt'} is not a folder\n")
    assert documents(docchat) == []


def test_a_folder_followed_already_is_refused_with_nothing_changed(docchat, vault):
    docchat("folders", "add", str(vault))

    done = docchat("folders", "add", str(vault / "leases" / ".."))

    assert (done.returncode, done.stderr) == (1, f"docchat: {vault.resolve()} is followed already\n")
    assert len(docchat("folders", "list").stdout.splitlines()) == 1


def test_while_the_app_holds_the_index_an_idle_sync_runs_and_a_change_waits(docchat, vault, data_dir):
    docchat("folders", "add", str(vault))
    app = build_services(Settings(data_dir=data_dir), contact_llm=False)
    app.index.open()  # held, as the running app holds it
    try:
        assert docchat("folders", "sync").stdout.startswith("0 added, 0 changed, 0 removed, 3 unchanged")

        (vault / "bread.txt").write_text("Rye bread needs no kneading.\n")
        done = docchat("folders", "sync")

        assert done.returncode == 1
        assert "open in another docchat process" in done.stderr and done.stdout == ""
        assert done.stderr.endswith("While the app runs, it syncs the followed folders itself.\n")
    finally:
        app.close()
    assert docchat("folders", "sync").stdout.startswith("0 added, 1 changed")


def test_adding_a_folder_shows_its_progress_and_a_sync_with_nothing_to_read_shows_none(docchat, vault):
    added = docchat("folders", "add", str(vault))

    bars = [part for part in added.stderr.replace("\n", "\r").split("\r") if "[" in part and "%" in part]
    assert bars and all(bar.startswith("vault ") for bar in bars)
    assert bars[-1].split("]")[1].strip().startswith("100% 3 of 3 files")
    assert docchat("folders", "sync").stderr == ""

"""Followed folders over the API: follow, list with each file's status, sync, unfollow."""

from __future__ import annotations

import pytest


@pytest.fixture
def notes(tmp_path):
    folder = tmp_path / "notes"
    (folder / ".obsidian").mkdir(parents=True)
    (folder / "harbour.md").write_text("# Harbour\n\nThe harbour dues are paid every quarter.\n")
    (folder / "minutes.pdf").write_bytes(b"%PDF-1.7 cut short")
    (folder / ".obsidian" / "app.md").write_text("# Settings\n")
    return folder


def test_following_a_folder_adds_its_files_and_lists_each_status(client, notes):
    added = client.post("/api/v1/folders", json={"path": str(notes)})

    assert added.status_code == 201, added.text
    body = added.json()
    assert (body["added"], body["refused"], body["unchanged"]) == (1, 1, 0)
    assert [(p["path"], p["status"]) for p in body["problems"]] == [("minutes.pdf", "refused")]
    [folder] = client.get("/api/v1/folders").json()
    assert folder["path"] == str(notes.resolve())
    assert folder["files"] == {"ready": 1, "refused": 1}
    assert folder["problems"][0]["reason"] == '"minutes.pdf" is not a readable PDF (it may be damaged)'
    assert folder["last_sync"]["added"] == 1 and folder["last_sync_at"]
    assert [(d["name"], d["status"]) for d in client.get("/api/v1/documents").json()] == [("harbour.md", "ready")]


def test_a_sync_reads_what_changed_and_unfollowing_takes_the_documents_out(client, notes):
    client.post("/api/v1/folders", json={"path": str(notes)})
    (notes / "harbour.md").write_text("# Harbour\n\nThe harbour dues are paid every month now.\n")
    (notes / "tides.txt").write_text("High tide at 06:40.\n")

    synced = client.post("/api/v1/folders/sync").json()

    assert (synced["added"], synced["changed"], synced["refused"]) == (1, 1, 1)
    assert sorted(d["name"] for d in client.get("/api/v1/documents").json()) == ["harbour.md", "tides.txt"]
    assert client.delete("/api/v1/folders", params={"path": str(notes)}).status_code == 204
    assert client.get("/api/v1/folders").json() == []
    assert client.get("/api/v1/documents").json() == []


@pytest.mark.parametrize("path, status", [("notes", 400), ("/no/such/folder", 400)])
def test_a_path_that_cannot_be_followed_is_refused_in_one_line(client, path, status):
    refused = client.post("/api/v1/folders", json={"path": path})

    assert refused.status_code == status
    assert path in refused.json()["detail"]
    assert client.get("/api/v1/folders").json() == []


def test_following_a_folder_twice_or_unfollowing_one_not_followed_is_refused(client, notes):
    client.post("/api/v1/folders", json={"path": str(notes)})

    assert client.post("/api/v1/folders", json={"path": str(notes)}).status_code == 400
    assert client.delete("/api/v1/folders", params={"path": str(notes / "harbour.md")}).status_code == 404
    assert len(client.get("/api/v1/folders").json()) == 1

"""`docchat ingest` of many files and of a folder, run as a real subprocess over a temporary data dir."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.sqlite_files import sql


@pytest.fixture
def docchat(data_dir, tmp_path):
    command = Path(sys.executable).with_name("docchat")

    def run(*args: str) -> subprocess.CompletedProcess:
        env = {**os.environ, "DOCCHAT_DATA_DIR": str(data_dir)}
        env.pop("DOCCHAT_DATABASE_URL", None)
        return subprocess.run([str(command), *args], env=env, cwd=tmp_path, capture_output=True, text=True,
                              timeout=300)

    return run


@pytest.fixture
def folder(tmp_path) -> Path:
    """Notes a user keeps: three good files (one in a subfolder), a damaged one, and files that
    are not documents."""
    notes = tmp_path / "notes"
    (notes / "leases").mkdir(parents=True)
    (notes / ".cache").mkdir()
    (notes / "rent-review.md").write_text("# Rent review\n\nThe rent is reviewed every fifth year.\n")
    (notes / "bread.txt").write_text("Knead the dough for ten minutes, then leave it to rise.\n")
    (notes / "leases" / "whitby.md").write_text("# Whitby\n\nThe house in Whitby is let on a twelve-month lease.\n")
    (notes / "scan.docx").write_bytes(b"PK\x03\x04 not really a Word document")
    (notes / "photo.heic").write_bytes(b"\x00\x00\x00\x18ftypheic a photo")  # a kind docchat does not read
    (notes / ".cache" / "draft.md").write_text("# Draft\n\nNot for the library.\n")
    return notes


def test_ingesting_a_folder_prints_a_line_per_file_under_one_progress_bar(docchat, folder, data_dir):
    done = docchat("ingest", str(folder))

    assert done.returncode == 1  # one file was refused
    lines = done.stdout.splitlines()
    assert len(lines) == 3
    assert sorted(line.split(":")[0] for line in lines) == ["bread.txt", "rent-review.md", "whitby.md"]
    assert all(" 1 chunk " in line for line in lines)
    errors = [line for line in done.stderr.replace("\r", "\n").splitlines() if line.startswith("docchat:")]
    assert len(errors) == 1 and "scan.docx" in errors[0]
    # One bar for the four documents found (the photo and the hidden folder are not taken), never one per file.
    bars = [part for part in done.stderr.replace("\n", "\r").split("\r") if "[" in part and "%" in part]
    assert bars and all(bar.startswith("4 files ") for bar in bars)
    assert sorted(name for (name,) in sql(data_dir, "SELECT name FROM documents")) == [
        "bread.txt", "rent-review.md", "whitby.md"]


def test_files_named_one_by_one_are_ingested_and_a_missing_one_is_named_in_its_error(docchat, folder):
    done = docchat("ingest", str(folder / "bread.txt"), str(folder / "gone.md"), str(folder / "rent-review.md"))

    assert done.returncode == 1
    assert [line.split(":")[0] for line in done.stdout.splitlines()] == ["bread.txt", "rent-review.md"]
    errors = [line for line in done.stderr.replace("\r", "\n").splitlines() if line.startswith("docchat:")]
    assert errors == [f"docchat: {folder / 'gone.md'}: No such file or directory"]

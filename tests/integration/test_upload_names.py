"""An uploaded file's name never becomes a path: through the document service, a name that
climbs out, is absolute, is a Windows path, holds NUL or a bidi override, is stored under the
data folder's documents folder, named by its hash and its sanitised last component, and nothing
else is created."""

from __future__ import annotations

import pytest

from docchat.errors import InvalidInput

from tests.integration.test_parsing import pdf_of

HOSTILE_NAMES = [
    "../../etc/passwd.txt",
    "/abs/path.pdf",
    "C:\\Windows\\x.pdf",
    "..\\..\\x.pdf",
    "....//....//trust-deed.pdf",
    "minutes\x00.pdf",
    "invoice\u202efdp.pdf",
    "Q3 board\nminutes.md",
]


def _files(root) -> set:
    """Every file under root but the database's, the index's and the kept tables' own."""
    return {path for path in root.rglob("*") if path.is_file()
            and not path.name.startswith(("docchat.db", "tables.sqlite")) and "vectors" not in path.parts}


def _content(name: str) -> bytes:
    text = f"The Trustee received a file called {name!r}."
    return pdf_of(text) if name.endswith(".pdf") else text.encode()


@pytest.mark.parametrize("name", HOSTILE_NAMES, ids=repr)
def test_a_hostile_upload_name_is_stored_under_the_documents_folder_only(library, data_dir, name):
    library.index.open()  # the index's own files are made before we look
    before = _files(data_dir.parent)

    report = library.ingestion.add(name, _content(name))

    [added] = _files(data_dir.parent) - before
    assert added.parent.parent == data_dir / "documents"
    assert added.name.startswith(f"{report.document.content_hash}-")
    assert not any(mark in added.name for mark in ("/", "\\", "\x00", "\u202e", "\n", ".."))
    assert (data_dir / report.document.path).resolve() == added.resolve()


def test_a_name_like_a_system_file_without_a_supported_type_is_refused_and_creates_nothing(library, data_dir):
    library.index.open()
    before = _files(data_dir.parent)

    with pytest.raises(InvalidInput, match="is not a supported type"):
        library.ingestion.add("../../etc/passwd", b"root:x:0:0:root:/root:/bin/sh\n")

    assert _files(data_dir.parent) == before

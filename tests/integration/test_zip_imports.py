"""Zips from outside, checked entry by entry: an import (`import_bytes`) or a restore refuses a
zip bomb, a header that understates what its entry unpacks to, entry names that lead outside,
symbolic links and too many entries, in one line, with nothing imported or restored."""

from __future__ import annotations

import io
import stat
import zipfile
import zlib

import pytest

from docchat.errors import InvalidExport
from docchat.services import transfer

from tests.hostile_files import GB, MB, zip_bomb, zip_of_raw_entries
from tests.integration.sample_data import quarterly_conversation
from tests.integration.test_backup import backup_archive, filled, refused  # noqa: F401 (fixtures)

GOOD = "q3-report.json"


@pytest.fixture
def export(other_services) -> bytes:
    """A JSON export from another installation, of a conversation this one does not have."""
    return other_services.transfer.export_json(quarterly_conversation(other_services)).encode()


def conversations(services) -> int:
    health = services.health.store()
    return health.conversations + health.deleted_conversations


def refusal(services, archive: bytes) -> str:
    """The one-line refusal of importing `archive`, once nothing was imported."""
    before = conversations(services)
    with pytest.raises(InvalidExport) as refused_import:
        services.transfer.import_bytes(archive, name="exports.zip")
    assert conversations(services) == before
    message = str(refused_import.value)
    assert "\n" not in message and message.startswith("exports.zip: ")
    return message


def test_a_zip_of_good_exports_still_imports(services, export):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"exports/{GOOD}", export)

    [report] = services.transfer.import_bytes(buffer.getvalue(), name="exports.zip")

    assert report.messages > 0 and conversations(services) == 1


def test_a_zip_bomb_is_refused_before_it_unpacks_past_the_cap(services, export):
    bomb = zip_bomb("conversations.json", 1 * GB, also={GOOD: export})
    assert len(bomb) < 2 * MB

    assert refusal(services, bomb) == ("exports.zip: refused: its entry 'conversations.json' unpacks to more than "
                                       "256 MB; nothing was imported")


def test_a_zip_whose_header_understates_what_its_entry_unpacks_to_is_refused(services, export):
    liar = zip_bomb("conversations.json", 1 * GB, declared=4096, also={GOOD: export})

    assert "Bad CRC-32 for file 'conversations.json'" in refusal(services, liar)


def test_entries_that_unpack_past_the_total_between_them_are_refused(services, export, monkeypatch):
    monkeypatch.setattr(transfer, "MAX_IMPORT_BYTES", 3 * MB)
    entries = {f"part-{n}.json": bytes(MB) for n in range(4)}
    archive = zip_of_raw_entries([(name, zlib.compress(data, 9, wbits=-15), zlib.crc32(data), len(data), len(data))
                                  for name, data in {GOOD: export, **entries}.items()])

    assert refusal(services, archive) == "exports.zip: refused: it unpacks to more than 3 MB; nothing was imported"


@pytest.mark.parametrize("name", ["../evil.json", "exports/../../evil.json", "/tmp/evil.json", "C:\\evil.json",
                                  "exports\\..\\evil.json"])
def test_an_entry_whose_name_leads_outside_is_refused_by_name(services, export, name):
    archive = zip_of_raw_entries([(entry, zlib.compress(export, 9, wbits=-15), zlib.crc32(export), len(export),
                                   len(export)) for entry in (GOOD, name)])

    message = refusal(services, archive)

    assert message.startswith(f"exports.zip: refused: its entry {name!r} has ")
    assert message.endswith("; nothing was imported")


def test_an_entry_that_is_a_symbolic_link_is_refused_by_name(services, export):
    link = zipfile.ZipInfo("passwords.json")
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(GOOD, export)
        archive.writestr(link, "/etc/passwd")

    assert refusal(services, buffer.getvalue()) == ("exports.zip: refused: its entry 'passwords.json' is a symbolic "
                                                    "link; nothing was imported")


def test_a_zip_of_too_many_entries_is_refused(services, export, monkeypatch):
    monkeypatch.setattr(transfer, "MAX_ZIP_ENTRIES", 10)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(GOOD, export)
        for n in range(10):
            archive.writestr(f"notes/{n}.txt", "Remember the Q4 report.")

    assert refusal(services, buffer.getvalue()) == ("exports.zip: refused: it holds 11 entries, more than the 10 "
                                                    "allowed; nothing was imported")


# restoring a backup


def test_a_backup_holding_a_symbolic_link_is_refused_and_nothing_is_restored(backup_archive, tmp_path,
                                                                           shared_embedder):
    hostile = tmp_path / "hostile.zip"
    hostile.write_bytes(backup_archive.read_bytes())
    link = zipfile.ZipInfo("documents/ab/abcdef-notes.md")
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    with zipfile.ZipFile(hostile, "a") as archive:
        archive.writestr(link, "/etc/passwd")

    assert refused(hostile, tmp_path / "restored", shared_embedder) == (
        "hostile.zip: refused: its entry 'documents/ab/abcdef-notes.md' is a symbolic link; nothing was restored")


def test_a_backup_whose_manifest_is_a_zip_bomb_is_refused_and_nothing_is_restored(tmp_path, shared_embedder):
    hostile = tmp_path / "hostile.zip"
    hostile.write_bytes(zip_bomb("manifest.json", 1 * GB))

    assert refused(hostile, tmp_path / "restored", shared_embedder) == (
        "hostile.zip is not a docchat backup (its entry 'manifest.json' unpacks to more than 1 MB); "
        "nothing was restored")


def test_a_backup_whose_document_unpacks_past_what_it_declares_is_refused(backup_archive, tmp_path,
                                                                          shared_embedder):
    with zipfile.ZipFile(backup_archive) as source:
        entries = {info.filename: source.read(info) for info in source.infolist()}
    hostile = tmp_path / "hostile.zip"
    hostile.write_bytes(zip_bomb("documents/ab/abcdef-notes.md", 1 * GB, declared=4096, also=entries))

    assert "Bad CRC-32 for file 'documents/ab/abcdef-notes.md'" in refused(hostile, tmp_path / "restored",
                                                                          shared_embedder)

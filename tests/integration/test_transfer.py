"""Export and import between two real installations (two data dirs, two databases), on SQLite and
on PostgreSQL."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

from docchat.errors import InvalidExport
from docchat.exchange import VERSION, checksum

from tests.integration.sample_data import quarterly_conversation, trust_conversation

pytestmark = pytest.mark.both_databases


def zip_of(*files: tuple[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in files:
            archive.writestr(name, content)
    return buffer.getvalue()


def edited(export: str, change) -> bytes:
    """The export with `change` applied to its parsed JSON."""
    document = json.loads(export)
    change(document)
    return json.dumps(document).encode("utf-8")


def resealed(document: dict) -> None:
    """Recomputes the checksum, as someone crafting a file would, so only the other edits are judged."""
    document["checksum"]["messages"] = checksum(document["messages"])


@pytest.fixture
def quarterly_export(other_services) -> str:
    """A JSON export from another installation, of a conversation the default one does not have."""
    return other_services.transfer.export_json(quarterly_conversation(other_services))


# round trip


def test_exporting_importing_and_exporting_again_gives_the_same_messages(services, other_services):
    conversation_id = quarterly_conversation(services)
    first = json.loads(services.transfer.export_json(conversation_id))

    other_services.transfer.import_bytes(json.dumps(first).encode("utf-8"))
    second = json.loads(other_services.transfer.export_json(conversation_id))

    assert second["messages"] == first["messages"]
    assert second["checksum"] == first["checksum"]
    assert second["summaries"] == first["summaries"]
    assert second["conversation"] == first["conversation"]


def test_reimporting_the_same_export_adds_nothing(services, other_services, other_database):
    raw = services.transfer.export_json(trust_conversation(services)).encode("utf-8")
    other_services.transfer.import_bytes(raw, name="hartley-trust.json")
    before = other_database.table_contents()

    [report] = other_services.transfer.import_bytes(raw, name="hartley-trust.json")

    assert report.already_present is True
    assert report.messages == 0
    assert other_database.table_contents() == before


def test_reimporting_a_deleted_conversation_says_it_is_deleted_and_adds_nothing(services, database):
    conversation_id = trust_conversation(services)
    raw = services.transfer.export_json(conversation_id).encode("utf-8")
    services.conversations.delete(conversation_id)
    before = database.table_contents()

    [report] = services.transfer.import_bytes(raw, name="hartley-trust.json")

    assert report.already_present and report.present_but_deleted
    assert database.table_contents() == before


def test_importing_as_a_copy_gives_new_conversation_and_message_ids(services):
    original_id = quarterly_conversation(services)
    raw = services.transfer.export_json(original_id).encode("utf-8")

    [report] = services.transfer.import_bytes(raw, as_copy=True)

    assert report.already_present is False
    assert report.conversation_id != original_id
    original = services.messages.history(original_id)
    copy = services.messages.history(report.conversation_id)
    assert [(m.seq, m.role, m.content) for m in copy] == [(m.seq, m.role, m.content) for m in original]
    assert not {m.id for m in copy} & {m.id for m in original}
    assert services.conversations.get(report.conversation_id).title == "Q3 2025 quarterly report (copy)"


def test_a_zip_of_every_conversation_imports_every_conversation(services, other_services):
    trust_conversation(services)
    quarterly_conversation(services)
    lease = services.conversations.create("Lease renewal for the Leeds office")
    services.conversations.pin(lease.id)

    reports = other_services.transfer.import_bytes(services.transfer.export_all_zip(), name="backup.zip")

    assert len(reports) == 3
    assert [(c.id, c.title, c.pinned, c.message_count) for c in other_services.conversations.list()] == [
        (c.id, c.title, c.pinned, c.message_count) for c in services.conversations.list()
    ]


# bad files


# Each spoiled file, and the words its refusal must contain: the reason, not just any error.
BAD_FILES = {
    "malformed JSON": (
        lambda export: export.encode("utf-8").replace(b'"messages":', b'"messages"', 1), "not valid JSON"),
    "truncated file": (lambda export: export.encode("utf-8")[: len(export) // 2], "not valid JSON"),
    "wrong version": (lambda export: edited(export, lambda d: d.update(version=VERSION + 1)),
                      f"unsupported export version {VERSION + 1}"),
    "checksum mismatch": (
        lambda export: edited(export, lambda d: d["messages"][1].update(content="Recurring revenue fell 40%.")),
        "checksum mismatch",
    ),
    "role robot": (
        lambda export: edited(export, lambda d: (d["messages"][1].update(role="robot"), resealed(d))),
        "role",
    ),
    "empty file": (lambda export: b"", "not valid JSON"),
    "zip with no json": (
        lambda export: zip_of(("notes.txt", b"Remember to export the Q4 report too.")), "no .json exports"),
}


@pytest.mark.parametrize(("spoil", "reason"), BAD_FILES.values(), ids=BAD_FILES.keys())
def test_a_bad_file_is_refused_and_leaves_the_database_unchanged(services, database, quarterly_export, spoil, reason):
    trust_conversation(services)
    before = database.table_contents()

    with pytest.raises(InvalidExport, match=reason):
        services.transfer.import_bytes(spoil(quarterly_export), name="q3-report.json")

    assert database.table_contents() == before


def test_a_zip_whose_second_file_is_bad_imports_nothing(services, database, other_services, quarterly_export):
    good = other_services.transfer.export_json(trust_conversation(other_services)).encode("utf-8")
    bad = quarterly_export.encode("utf-8")[:-40]
    before = database.table_contents()

    with pytest.raises(InvalidExport, match="q3-report.json"):
        services.transfer.import_bytes(
            zip_of(("hartley-trust.json", good), ("q3-report.json", bad)), name="backup.zip"
        )

    assert database.table_contents() == before


def test_a_zip_whose_second_conversation_clashes_imports_nothing(services, database, other_services):
    # The second file passes every check but its message ids are taken: found only while writing.
    existing = services.transfer.export_json(trust_conversation(services))
    clash = edited(existing, lambda d: d["conversation"].update(id="0b7e57ed-1a5e-4c1e-9d2a-3f0c2a9e8b11"))
    good = other_services.transfer.export_json(quarterly_conversation(other_services)).encode("utf-8")
    before = database.table_contents()

    with pytest.raises(InvalidExport, match="as-copy"):
        services.transfer.import_bytes(zip_of(("q3-report.json", good), ("hartley-again.json", clash)))

    assert database.table_contents() == before

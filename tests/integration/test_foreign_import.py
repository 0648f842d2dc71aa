"""Importing ChatGPT and Open WebUI exports through the transfer service into a real SQLite file."""

from __future__ import annotations

import pytest

from docchat.domain import Role, Status
from docchat.errors import InvalidExport

from tests.foreign_exports import (
    as_file,
    chatgpt_export,
    chatgpt_lease_conversation,
    open_webui_export,
    open_webui_quarterly_chat,
)
from tests.integration.sample_data import trust_conversation
from tests.integration.sqlite_files import table_contents
from tests.integration.test_transfer import zip_of



def test_a_chatgpt_export_imports_every_conversation_with_its_current_branch(services):
    reports = services.transfer.import_bytes(as_file(chatgpt_export()), name="conversations.json")

    assert [(r.messages, r.already_present) for r in reports] == [(2, False), (4, False)]
    lease = services.messages.history(reports[1].conversation_id)
    assert [m.role for m in lease] == [Role.USER, Role.ASSISTANT, Role.USER, Role.ASSISTANT]
    assert lease[1].content.startswith("Every fifth year: clause 4.1")
    assert {c.title for c in services.conversations.list()} == {r.title for r in reports}


def test_imported_messages_are_counted_by_the_services_token_counter(services):
    [report] = services.transfer.import_bytes(as_file([chatgpt_lease_conversation()]))

    counter = services.conversations.counter
    for message in services.messages.history(report.conversation_id):
        assert message.status is Status.COMPLETE
        assert (message.token_count, message.tokenizer) == (
            counter.count_message(message.role.value, message.content), counter.id)


def test_an_imported_conversation_can_be_continued(services):
    [report] = services.transfer.import_bytes(as_file([open_webui_quarterly_chat()]))

    services.messages.append_message(report.conversation_id, "assistant", "Gross margin held at 61%.")

    assert [m.seq for m in services.messages.history(report.conversation_id)] == [1, 2, 3, 4]


def test_an_open_webui_export_imports_with_and_without_history(services):
    reports = services.transfer.import_bytes(as_file(open_webui_export()), name="chat-export-1741944600000.json")

    assert [r.messages for r in reports] == [3, 2]


def test_reimporting_the_same_chatgpt_file_says_already_present_and_adds_nothing(services, data_dir):
    services.transfer.import_bytes(as_file(chatgpt_export()), name="conversations.json")
    before = table_contents(data_dir)

    reports = services.transfer.import_bytes(as_file(chatgpt_export()), name="conversations.json")

    assert [(r.already_present, r.messages) for r in reports] == [(True, 0), (True, 0)]
    assert table_contents(data_dir) == before


def test_a_chatgpt_file_whose_second_conversation_is_broken_imports_nothing(services, data_dir):
    trust_conversation(services)
    broken = chatgpt_lease_conversation()
    del broken["mapping"]["user-0001"]["message"]["author"]
    before = table_contents(data_dir)

    with pytest.raises(InvalidExport, match=r"conversations\.json: ChatGPT conversation 2 \(Leeds office lease"):
        services.transfer.import_bytes(as_file([chatgpt_export()[0], broken]), name="conversations.json")

    assert table_contents(data_dir) == before


def test_a_list_of_something_else_is_refused_and_nothing_is_written(services, data_dir):
    trust_conversation(services)
    before = table_contents(data_dir)

    with pytest.raises(InvalidExport, match="expected docchat's JSON export .* ChatGPT's conversations.json"):
        services.transfer.import_bytes(b'[{"role": "user", "content": "Who signs for the trustee?"}]',
                                       name="history.json")

    assert table_contents(data_dir) == before


def test_a_zip_holding_a_chatgpt_export_and_a_docchat_export_imports_both(services, other_services):
    own = other_services.transfer.export_json(trust_conversation(other_services)).encode("utf-8")

    reports = services.transfer.import_bytes(
        zip_of(("conversations.json", as_file(chatgpt_export())), ("hartley-trust.json", own)), name="backup.zip")

    assert len(reports) == 3
    assert len(services.conversations.list()) == 3

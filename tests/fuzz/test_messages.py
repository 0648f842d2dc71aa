"""Any text a user can type or paste: stored, read back, exported and imported again byte for
byte, or refused on one line with nothing stored.

Other controls, zero-width characters and byte-order marks, right-to-left text and bidi
overrides, emoji sequences are text, and are kept exactly. A lone surrogate (what Python makes
of invalid UTF-8, in a command's arguments for one) has no UTF-8 bytes, and PostgreSQL's text
cannot hold NUL: both are refused, on SQLite too (see docchat.text).
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from docchat.errors import InvalidInput
from docchat.text import unstorable

from tests.fuzz.checks import database_rows, examples, one_line, outcome, refusal
from tests.fuzz.texts import hostile_text, surrogate_text

TEN_MB = 10 * 1024 * 1024


@pytest.fixture(scope="module")
def chatting(fuzz_services, fuzz_root):
    return fuzz_services, fuzz_root / "data"


def stored_bytes(data_dir: Path, message_id: str) -> bytes:
    """The message's content as the database file holds it, read with plain sqlite3."""
    with closing(sqlite3.connect(data_dir / "docchat.db")) as db:
        (content,) = db.execute("SELECT CAST(content AS BLOB) FROM messages WHERE id = ?", (message_id,)).fetchone()
    return content


def refused(data_dir: Path, act) -> str:
    """Runs `act`, which must be refused by docchat's own error on one line, changing nothing."""
    before = database_rows(data_dir)
    with pytest.raises(Exception) as error:
        act()
    message = one_line(error.value)
    outcome(refusal(message))
    assert database_rows(data_dir) == before, "a refused message changed the database"
    return message


@examples(100)
@given(text=st.one_of(hostile_text(max_size=400), surrogate_text()))
def test_any_question_is_stored_and_exported_byte_exact_or_refused_on_one_line(chatting, text):
    services, data_dir = chatting
    if unstorable(text) is not None or not text.strip():
        refused(data_dir, lambda: services.chat.answer(None, text))
        return

    turn = services.chat.answer(None, text)
    turn.text()
    outcome("stored")

    question, answer = services.messages.history(turn.conversation_id)
    assert question.content == text
    assert stored_bytes(data_dir, question.id) == text.encode("utf-8")
    exported = services.transfer.export_json(turn.conversation_id)
    assert json.loads(exported)["messages"][0]["content"] == text
    assert text.rstrip() in services.transfer.export_markdown(turn.conversation_id)
    [copy] = services.transfer.import_bytes(exported.encode("utf-8"), name="copy.json", as_copy=True)
    assert services.messages.history(copy.conversation_id)[0].content == text


@examples(60)
@given(text=st.one_of(hostile_text(max_size=400), surrogate_text()), role=st.sampled_from(["user", "assistant"]))
def test_any_message_appended_to_a_conversation_reads_back_byte_exact_or_is_refused(chatting, text, role):
    services, data_dir = chatting
    conversation = services.conversations.create("Harbour Street Trust")
    if unstorable(text) is not None or not text.strip():
        refused(data_dir, lambda: services.messages.append_message(conversation.id, role, text))
        return

    message = services.messages.append_message(conversation.id, role, text)
    outcome("stored")

    assert stored_bytes(data_dir, message.id) == text.encode("utf-8")
    assert [m.content for m in services.messages.history(conversation.id)] == [text]


@examples(80)
@given(text=st.one_of(hostile_text(max_size=300), surrogate_text()),
       use=st.sampled_from(["title", "instructions", "search", "edit"]))
def test_titles_instructions_searches_and_edits_take_any_text_or_refuse_it_on_one_line(chatting, text, use):
    services, data_dir = chatting
    conversation = services.conversations.create("Harbour Street Trust")
    asked = services.messages.append_message(conversation.id, "user", "When is the Determination Date?")
    act = {
        "title": lambda: services.conversations.rename(conversation.id, text),
        "instructions": lambda: services.conversations.set_instructions(conversation.id, text),
        "search": lambda: services.messages.search(text),
        "edit": lambda: services.chat.edit(conversation.id, asked.id, text).text(),
    }[use]
    before = database_rows(data_dir)
    try:
        act()
    except Exception as error:
        outcome(f"{use} {refusal(one_line(error))}")
        assert database_rows(data_dir) == before
        return
    outcome(f"{use} taken")
    assert unstorable(text) is None or use == "search", "text with NUL or a lone surrogate was taken"
    if use == "title":
        assert services.conversations.get(conversation.id).title == " ".join(text.split())
    elif use == "instructions":
        assert services.conversations.get(conversation.id).settings.instructions == text.strip()
    elif use == "edit":
        shown = [m for m in services.messages.history(conversation.id) if m.shown]
        assert shown[-2].content == text


def test_a_ten_megabyte_question_is_refused_as_too_long_for_the_model_and_nothing_is_stored(chatting):
    services, data_dir = chatting
    question = ("When is the Determination Date? " * (TEN_MB // 32 + 1))[:TEN_MB]

    message = refused(data_dir, lambda: services.chat.answer(None, question))

    assert "too long for the model" in message


def test_a_ten_megabyte_question_with_a_stateless_history_is_refused_as_too_long(chatting):
    services, data_dir = chatting
    question = "Ünïcödé and 🏳️‍🌈 " * (TEN_MB // 20)

    with pytest.raises(InvalidInput, match="too long for the model"):
        services.stateless.answer([{"role": "user", "content": "Hello"}], question)


# the command line: arguments and files that are not UTF-8


def _docchat() -> str:
    return str(Path(sys.executable).with_name("docchat"))


def run_docchat(environment: dict, *args) -> subprocess.CompletedProcess:
    """`docchat ARGS...` as a real process; arguments may be bytes that are not UTF-8."""
    return subprocess.run([_docchat(), *args], env=environment, capture_output=True, timeout=120,
                          stdin=subprocess.DEVNULL)


def one_error_line(process: subprocess.CompletedProcess) -> str:
    assert process.returncode == 1, process.stderr
    lines = process.stderr.decode("utf-8", "backslashreplace").replace("\r", "").splitlines()
    assert len(lines) == 1, process.stderr
    assert lines[0].startswith("docchat: ") and "Traceback" not in lines[0]
    return lines[0]


INVALID_UTF8 = [b"When is the \xff\xfe Determination Date?", b"\xc3\x28 latin-1: caf\xe9", b"\xed\xa0\x80 CESU"]


@pytest.mark.parametrize("argument", INVALID_UTF8, ids=["ff-fe", "latin-1", "encoded-surrogate"])
def test_a_question_that_is_not_utf8_on_the_command_line_is_refused_on_one_line(chatting, cli_environment,
                                                                                 argument):
    services, data_dir = chatting
    before = database_rows(data_dir)

    process = run_docchat(cli_environment, "ask", argument)

    assert "is not valid Unicode" in one_error_line(process)
    assert database_rows(data_dir) == before


@pytest.mark.parametrize("verb", [["conversations", "new", "--title"], ["conversations", "search"]])
def test_a_title_or_search_that_is_not_utf8_on_the_command_line_is_refused_or_finds_nothing(
        chatting, cli_environment, verb):
    services, data_dir = chatting
    before = database_rows(data_dir)

    process = run_docchat(cli_environment, *verb, INVALID_UTF8[0])

    if verb[1] == "search":
        assert process.returncode == 0 and process.stderr == b""
    else:
        assert "is not valid Unicode" in one_error_line(process)
    assert database_rows(data_dir) == before


def test_importing_a_file_that_is_not_utf8_under_a_name_that_is_not_either_is_refused_on_one_line(
        chatting, cli_environment, fuzz_root):
    services, data_dir = chatting
    name = fuzz_root / b"q3 report \xff.json".decode("utf-8", "surrogateescape")
    name.write_bytes(b'{"schema": "docchat.conversation", "title": "caf\xe9"}')
    before = database_rows(data_dir)

    process = run_docchat(cli_environment, "import", bytes(name))

    assert "not UTF-8 text" in one_error_line(process)
    assert database_rows(data_dir) == before

"""What a user sees when the LLM server misbehaves: a readable error, and a transcript that keeps
their question and whatever part of the answer arrived, with the answer's state marked.

Each test runs the real services against the fake server in one failure mode.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import uuid
from datetime import timedelta
from pathlib import Path

import pytest

from docchat.bootstrap import STALE_STREAM, build_services
from docchat.domain import AnswerFacts, Message, Role, Status, utcnow
from docchat.errors import ContextOverflow, InvalidInput, LLMServerError, LLMTimeout, LLMUnavailable, StreamCut

from tests.fault.conftest import CONNECT_RETRIES
from tests.fault.fake_server import ANSWER, MODEL, PARTIAL, USAGE, FakeLLMServer

# A stalled or refusing server must never hang the suite.
pytestmark = pytest.mark.timeout(30)

QUESTION = "When is the Determination Date for the Series 2024-A notes?"
FULL_ANSWER = "".join(ANSWER)
PARTIAL_ANSWER = "".join(PARTIAL)


def closed_port() -> int:
    """A port nothing listens on, so connecting is refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def transcript(services, conversation_id: str) -> tuple[Message, Message]:
    """The question and the one answer of a single-turn conversation."""
    question, answer = services.messages.history(conversation_id)
    return question, answer


def only_conversation(services) -> str:
    (conversation,) = services.conversations.list()
    return conversation.id


def assert_question_kept(question: Message) -> None:
    assert question.role is Role.USER
    assert question.content == QUESTION
    assert question.status is Status.COMPLETE


# the normal answer


def test_a_normal_answer_streams_in_pieces_and_is_stored_complete(chat_services, fake_llm):
    turn = chat_services.chat.answer(None, QUESTION)
    pieces = list(turn)

    assert len(pieces) > 1
    assert "".join(pieces) == FULL_ANSWER
    question, answer = transcript(chat_services, turn.conversation_id)
    assert_question_kept(question)
    assert answer.role is Role.ASSISTANT
    assert answer.status is Status.COMPLETE
    assert answer.content == FULL_ANSWER
    assert answer.facts.error is None
    assert answer.facts.model == MODEL
    assert answer.facts.usage["prompt_tokens"] == USAGE["prompt_tokens"]
    assert answer.facts.usage["completion_tokens"] == USAGE["completion_tokens"]


def test_the_request_asks_for_at_most_the_answer_reserve_with_the_system_prompt_first(chat_services, fake_llm):
    turn = chat_services.chat.answer(None, QUESTION)
    turn.text()

    (request,) = fake_llm.requests
    assert request["max_tokens"] == turn.budget.answer_reserve
    assert request["stream"] is True
    messages = request["messages"]
    assert messages[0] == {"role": "system", "content": chat_services.settings.system_prompt}
    assert messages[-1] == {"role": "user", "content": QUESTION}
    assert turn.budget.prompt + turn.budget.answer_reserve <= turn.budget.max_model_len


def test_each_answer_names_its_conversation_where_a_router_of_several_model_servers_reads_it(
        chat_services, fake_llm):
    first = chat_services.chat.answer(None, QUESTION)
    first.text()
    second = chat_services.chat.answer(None, QUESTION)
    second.text()
    chat_services.chat.answer(first.conversation_id, "And then?").text()

    assert [headers["x-docchat-conversation"] for headers in fake_llm.headers] == [
        first.conversation_id, second.conversation_id, first.conversation_id]
    assert first.conversation_id != second.conversation_id


def test_a_long_answer_is_checkpointed_while_it_streams(chat_services, fake_llm):
    fake_llm.mode = "slow"
    turn = chat_services.chat.answer(None, QUESTION)
    received = ""
    # Deltas come every 0.2 s, so eight of them span more than the one-second checkpoint interval.
    for _, delta in zip(range(8), turn):
        received += delta

    _, answer = transcript(chat_services, turn.conversation_id)
    assert answer.status is Status.STREAMING
    assert answer.content
    assert received.startswith(answer.content)
    turn.stop.set()
    list(turn)


# the server is not there


def test_a_refused_connection_says_the_server_is_not_running_and_keeps_the_question(settings_for):
    services = build_services(settings_for(f"http://127.0.0.1:{closed_port()}/v1"))

    with pytest.raises(LLMUnavailable, match="not running"):
        services.chat.answer(None, QUESTION).text()

    question, answer = transcript(services, only_conversation(services))
    assert_question_kept(question)
    assert answer.role is Role.ASSISTANT
    assert answer.status is Status.ERROR
    assert answer.content == ""
    assert "not running" in answer.facts.error


def test_a_dropped_connection_is_retried_and_the_answer_still_arrives(fake_llm, chat_services):
    services = chat_services
    fake_llm.mode, fake_llm.resets = "flaky", CONNECT_RETRIES

    turn = services.chat.answer(None, QUESTION)

    assert turn.text() == FULL_ANSWER
    assert fake_llm.attempts == CONNECT_RETRIES + 1
    _, answer = transcript(services, turn.conversation_id)
    assert answer.status is Status.COMPLETE


def test_connection_attempts_stop_after_the_configured_retries(fake_llm, chat_services):
    services = chat_services
    fake_llm.mode = "reset"

    turn = services.chat.answer(None, QUESTION)
    with pytest.raises(LLMUnavailable):
        turn.text()

    assert fake_llm.attempts == CONNECT_RETRIES + 1
    question, answer = transcript(services, turn.conversation_id)
    assert_question_kept(question)
    assert answer.status is Status.ERROR


def test_a_server_that_comes_back_while_the_connection_is_retried_answers(fake_llm, chat_services):
    services = chat_services
    first = services.chat.answer(None, QUESTION)
    first.text()
    fake_llm.stop()
    # Connecting is refused until the server is back; the retries (0.5 s, then 1 s later) reach it.
    replacement = FakeLLMServer(port=fake_llm.port)
    restart = threading.Timer(0.2, replacement.start)
    restart.start()
    try:
        again = services.chat.answer(first.conversation_id, "And the Payment Date?")
        assert again.text() == FULL_ANSWER
    finally:
        restart.join()
        replacement.stop()

    assert replacement.attempts == 1
    *_, answer = services.messages.history(first.conversation_id)
    assert answer.status is Status.COMPLETE


# the server answers with an error


def test_a_server_error_is_reported_with_its_status_and_stored_as_an_error(chat_services, fake_llm):
    fake_llm.mode = "500"
    turn = chat_services.chat.answer(None, QUESTION)

    with pytest.raises(LLMServerError, match="500") as raised:
        turn.text()

    assert "illegal memory access" in str(raised.value)
    question, answer = transcript(chat_services, turn.conversation_id)
    assert_question_kept(question)
    assert answer.status is Status.ERROR
    assert answer.content == ""
    assert "500" in answer.facts.error


def test_retrying_after_a_server_error_answers_and_keeps_the_failed_answer(chat_services, fake_llm):
    fake_llm.mode = "500"
    failed = chat_services.chat.answer(None, QUESTION)
    with pytest.raises(LLMServerError):
        failed.text()

    fake_llm.mode = "ok"
    retried = chat_services.chat.retry(failed.conversation_id)

    assert retried.text() == FULL_ANSWER
    history = chat_services.messages.history(failed.conversation_id)
    assert [(m.role, m.status) for m in history] == [
        (Role.USER, Status.COMPLETE), (Role.ASSISTANT, Status.ERROR), (Role.ASSISTANT, Status.COMPLETE),
    ]
    assert history[-1].content == FULL_ANSWER
    # The failed answer stays in the transcript but is not sent back to the model.
    assert fake_llm.requests[-1]["messages"][1:] == [{"role": "user", "content": QUESTION}]


def test_a_regenerated_answer_is_asked_for_sampled_and_the_first_greedily(chat_services, fake_llm):
    first = chat_services.chat.answer(None, QUESTION)
    first.text()

    chat_services.chat.retry(first.conversation_id).text()

    asked, regenerated = fake_llm.requests[-2:]
    # The cpu profile: greedy, so that an answer is repeatable; a new version must be new words.
    assert (asked["temperature"], asked.get("top_p")) == (0.0, None)
    assert (regenerated["temperature"], regenerated["top_p"]) == (0.7, 0.9)
    assert asked["repetition_penalty"] == regenerated["repetition_penalty"] == 1.1


def test_a_prompt_too_long_for_the_window_is_a_context_overflow(chat_services, fake_llm):
    fake_llm.mode = "overflow"
    turn = chat_services.chat.answer(None, QUESTION)

    with pytest.raises(ContextOverflow, match="maximum context length is 4096"):
        turn.text()

    question, answer = transcript(chat_services, turn.conversation_id)
    assert_question_kept(question)
    assert answer.status is Status.ERROR
    assert "maximum context length" in answer.facts.error


# the answer breaks off


def test_a_stream_cut_mid_answer_keeps_the_text_that_arrived_as_interrupted(chat_services, fake_llm):
    fake_llm.mode = "cut"
    turn = chat_services.chat.answer(None, QUESTION)
    received = []

    with pytest.raises(StreamCut) as raised:
        for delta in turn:
            received.append(delta)

    assert "".join(received) == PARTIAL_ANSWER
    question, answer = transcript(chat_services, turn.conversation_id)
    assert_question_kept(question)
    assert answer.status is Status.INTERRUPTED
    assert answer.content == PARTIAL_ANSWER
    assert answer.facts.error == str(raised.value)


def test_a_server_silent_before_the_first_token_times_out_as_an_error(impatient_services, fake_llm):
    fake_llm.mode = "stall_first"
    turn = impatient_services.chat.answer(None, QUESTION)

    with pytest.raises(LLMTimeout, match="first token"):
        turn.text()

    question, answer = transcript(impatient_services, turn.conversation_id)
    assert_question_kept(question)
    assert answer.status is Status.ERROR
    assert answer.content == ""
    assert "first token" in answer.facts.error


def test_a_server_silent_between_tokens_times_out_keeping_the_partial_answer(impatient_services, fake_llm):
    fake_llm.mode = "stall_middle"
    turn = impatient_services.chat.answer(None, QUESTION)

    with pytest.raises(LLMTimeout, match="next token"):
        turn.text()

    question, answer = transcript(impatient_services, turn.conversation_id)
    assert_question_kept(question)
    assert answer.status is Status.INTERRUPTED
    assert answer.content == PARTIAL_ANSWER
    assert "next token" in answer.facts.error


# the user or the page goes away


def test_stopping_an_answer_ends_the_stream_quietly_and_keeps_it_as_interrupted(chat_services, fake_llm):
    fake_llm.mode = "slow"
    turn = chat_services.chat.answer(None, QUESTION)
    received = []

    for delta in turn:
        received.append(delta)
        turn.stop.set()

    assert received
    _, answer = transcript(chat_services, turn.conversation_id)
    assert answer.status is Status.INTERRUPTED
    assert answer.content == "".join(received)
    assert fake_llm.attempts == 1


def test_a_page_that_abandons_the_stream_leaves_the_answer_interrupted(chat_services, fake_llm):
    fake_llm.mode = "slow"
    turn = chat_services.chat.answer(None, QUESTION)
    stream = iter(turn)
    first = next(stream)

    stream.close()

    _, answer = transcript(chat_services, turn.conversation_id)
    assert answer.status is Status.INTERRUPTED
    assert answer.content == first


def test_an_answer_left_streaming_by_a_crash_is_interrupted_at_the_next_start(chat_services, fake_llm, settings_for):
    conversation = chat_services.conversations.create("Series 2024-A closing checklist")
    chat_services.messages.append_message(conversation.id, "user", QUESTION)
    crashed_at = utcnow() - STALE_STREAM - timedelta(minutes=5)
    with chat_services.conversations._uow(write=True) as uow:
        uow.conversations.append_message(Message(
            id=str(uuid.uuid4()), conversation_id=conversation.id, seq=0, role=Role.ASSISTANT,
            content=PARTIAL_ANSWER, created_at=crashed_at, status=Status.STREAMING, facts=AnswerFacts(model=MODEL),
        ))
        uow.commit()

    restarted = build_services(settings_for(fake_llm.url + "/v1"))

    _, answer = transcript(restarted, conversation.id)
    assert answer.status is Status.INTERRUPTED
    assert answer.content == PARTIAL_ANSWER


def test_an_answer_still_streaming_in_another_process_is_left_alone_at_start(chat_services, fake_llm,
                                                                            settings_for):
    conversation = chat_services.conversations.create("Series 2024-A closing checklist")
    chat_services.messages.append_message(conversation.id, "user", QUESTION)
    with chat_services.conversations._uow(write=True) as uow:
        uow.conversations.append_message(Message(
            id=str(uuid.uuid4()), conversation_id=conversation.id, seq=0, role=Role.ASSISTANT,
            content=PARTIAL_ANSWER, created_at=utcnow(), status=Status.STREAMING, facts=AnswerFacts(model=MODEL),
        ))
        uow.commit()

    restarted = build_services(settings_for(fake_llm.url + "/v1"))

    _, answer = transcript(restarted, conversation.id)
    assert answer.status is Status.STREAMING


# bad input


@pytest.mark.parametrize("blank", ["", "   \n\t "])
def test_an_empty_question_is_refused_and_stores_nothing(chat_services, fake_llm, blank):
    with pytest.raises(InvalidInput, match="empty"):
        chat_services.chat.answer(None, blank)

    assert chat_services.conversations.list() == []
    assert fake_llm.attempts == 0


# the command line


def test_docchat_ask_against_a_failing_server_prints_one_error_line_and_exits_non_zero(fake_llm, data_dir, tmp_path):
    fake_llm.mode = "500"
    command = Path(sys.executable).with_name("docchat")
    env = {**os.environ, "DOCCHAT_DATA_DIR": str(data_dir), "DOCCHAT_LLM_URL": fake_llm.url + "/v1"}
    env.pop("DOCCHAT_DATABASE_URL", None)

    finished = subprocess.run([str(command), "ask", QUESTION], env=env, cwd=tmp_path, capture_output=True,
                              text=True, timeout=60)

    assert finished.returncode != 0
    lines = finished.stderr.splitlines()
    assert len(lines) == 1, finished.stderr
    assert lines[0].startswith("docchat:")
    assert "500" in lines[0]
    assert fake_llm.attempts == 1


# the server is told when nobody listens any more


def test_stopping_an_answer_hangs_up_on_the_server(chat_services, fake_llm):
    fake_llm.mode = "slow"
    turn = chat_services.chat.answer(None, QUESTION)
    for _ in turn:
        turn.stop.set()

    # vLLM aborts a generation when its client disconnects; until then it keeps a slot busy.
    assert fake_llm.hung_up.wait(timeout=5)


def test_an_answer_that_timed_out_hangs_up_on_the_server(impatient_services, fake_llm):
    fake_llm.mode = "stall_middle"
    turn = impatient_services.chat.answer(None, QUESTION)
    with pytest.raises(LLMTimeout):
        turn.text()

    assert fake_llm.hung_up.wait(timeout=5)


@pytest.mark.parametrize("command", [["conversations", "list"], ["documents", "list"], ["folders", "list"],
                                     ["folders", "sync"]])
def test_commands_that_never_ask_the_model_do_not_contact_the_llm_server(fake_llm, data_dir, command):
    env = {**os.environ, "DOCCHAT_DATA_DIR": str(data_dir), "DOCCHAT_LLM_URL": fake_llm.url + "/v1"}

    result = subprocess.run([str(Path(sys.executable).with_name("docchat")), *command], capture_output=True,
                            text=True, env=env, timeout=120)

    assert result.returncode == 0, result.stderr
    assert fake_llm.looked_up == [] and fake_llm.requests == []


def test_doctor_does_ask_the_llm_server_what_it_serves(fake_llm, data_dir):
    env = {**os.environ, "DOCCHAT_DATA_DIR": str(data_dir), "DOCCHAT_LLM_URL": fake_llm.url + "/v1"}

    subprocess.run([str(Path(sys.executable).with_name("docchat")), "doctor", "--json"], capture_output=True,
                   text=True, env=env, timeout=120)

    assert "/v1/models" in fake_llm.looked_up

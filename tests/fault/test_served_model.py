"""The token counter follows the model the server actually serves: a server that comes up after
docchat, or comes back with another model, is counted with that model's own tokenizer, the
figures already stored are recounted once, and a count is never called exact on a guess."""

from __future__ import annotations

from pathlib import Path

import pytest
from tokenizers import Tokenizer, models, pre_tokenizers, trainers

from docchat.bootstrap import build_services
from docchat.errors import LLMUnavailable
from docchat.memory.tokens import TokenizerJsonCounter

from tests.fault.fake_server import FakeLLMServer
from tests.fault.test_failures import QUESTION, closed_port

pytestmark = pytest.mark.timeout(30)

FOLLOW_UP = "And what happens when the Determination Date falls on a weekend?"


def weights_with_a_tokenizer(folder: Path, corpus: list[str]) -> Path:
    """A folder like a model's, with a real tokenizer.json (a small BPE with ChatML's tokens)."""
    tokenizer = Tokenizer(models.BPE(unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel()
    tokenizer.train_from_iterator(corpus, trainers.BpeTrainer(
        vocab_size=300, special_tokens=["<unk>", "<|im_start|>", "<|im_end|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    folder.mkdir(parents=True)
    tokenizer.save(str(folder / "tokenizer.json"))
    return folder


def test_a_server_that_comes_up_after_docchat_is_counted_with_its_own_tokenizer(settings_for, tmp_path):
    port = closed_port()
    services = build_services(settings_for(f"http://127.0.0.1:{port}/v1"))
    # Nothing answers yet: the question is kept, counted with the profile's tokenizer, a guess.
    with pytest.raises(LLMUnavailable):
        services.chat.answer(None, QUESTION).text()
    (conversation,) = services.conversations.list()
    assert not services.llm.status().counter_exact
    guessed = services.messages.history(conversation.id)[0]

    weights = weights_with_a_tokenizer(tmp_path / "tiny-chatml", [QUESTION, FOLLOW_UP] * 20)
    own = TokenizerJsonCounter(weights / "tokenizer.json", model="tiny-chatml")
    server = FakeLLMServer(port=port, model="tiny-chatml", root=str(weights)).start()
    try:
        retried = services.chat.retry(conversation.id)
        retried.text()
        follow_up = services.chat.answer(conversation.id, FOLLOW_UP)
        follow_up.text()
        status = services.llm.status()
    finally:
        server.stop()

    assert status.model == "tiny-chatml"
    assert status.counter == own.id and status.counter_exact
    assert follow_up.budget.exact and follow_up.budget.counter == own.id
    question, *_ = services.messages.history(conversation.id)
    assert guessed.token_count != own.count_message("user", QUESTION)
    # The question stored while the server was down is recounted, and the new figure kept.
    assert (question.tokenizer, question.token_count) == (own.id, own.count_message("user", QUESTION))
    assert follow_up.budget.question == own.count_message("user", FOLLOW_UP)


def test_a_server_back_with_another_model_is_followed(fake_llm, settings_for, tmp_path):
    services = build_services(settings_for(fake_llm.url + "/v1"))
    first = services.chat.answer(None, QUESTION)
    first.text()
    before = services.llm.status().counter
    fake_llm.stop()

    weights = weights_with_a_tokenizer(tmp_path / "tiny-chatml", [QUESTION, FOLLOW_UP] * 20)
    own = TokenizerJsonCounter(weights / "tokenizer.json", model="tiny-chatml")
    replacement = FakeLLMServer(port=fake_llm.port, model="tiny-chatml", root=str(weights)).start()
    try:
        # What the page does before it offers the question box.
        assert services.llm.reachable() is None
        again = services.chat.answer(first.conversation_id, FOLLOW_UP)
        again.text()
    finally:
        replacement.stop()

    assert before != own.id
    assert again.budget.counter == own.id and again.budget.exact
    assert [m.tokenizer for m in services.messages.history(first.conversation_id)] == [own.id] * 4

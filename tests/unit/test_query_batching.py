"""Questions asked at the same time are embedded in one call, and each gets its own vector."""

from __future__ import annotations

import threading

import pytest

from docchat.documents.index.batching import QueryBatcher


class SlowEmbedder:
    """Vectors that name their text; each call waits until released, so questions pile up."""

    name, model_id, dimension = "slow", "slow-model", 2

    def __init__(self, fail: Exception | None = None) -> None:
        self.calls: list[list[str]] = []
        self.release = threading.Event()
        self.fail = fail

    def embed(self, texts):
        self.calls.append(list(texts))
        self.release.wait(5)
        if self.fail:
            raise self.fail
        return [[float(len(t)), float(ord(t[0]))] for t in texts]


def _ask_at_once(batcher, texts):
    results, errors = {}, {}

    def ask(text):
        try:
            results[text] = batcher.embed([text])
        except Exception as error:
            errors[text] = error

    threads = [threading.Thread(target=ask, args=(t,)) for t in texts]
    for thread in threads:
        thread.start()
    return threads, results, errors


def test_questions_waiting_while_the_model_is_busy_are_embedded_together_each_with_its_own_vector():
    model = SlowEmbedder()
    batcher = QueryBatcher(model)
    first, _, _ = _ask_at_once(batcher, ["a"])
    while not model.calls:
        threading.Event().wait(0.01)
    threads, results, errors = _ask_at_once(batcher, ["bb", "ccc", "dddd"])
    threading.Event().wait(0.2)  # all three are waiting behind the first
    model.release.set()
    for thread in first + threads:
        thread.join(5)

    assert model.calls[0] == ["a"]
    assert sorted(model.calls[1]) == ["bb", "ccc", "dddd"]
    assert results == {"bb": [[2.0, 98.0]], "ccc": [[3.0, 99.0]], "dddd": [[4.0, 100.0]]}
    assert errors == {}


def test_a_failure_of_the_model_reaches_every_question_of_its_batch():
    model = SlowEmbedder(fail=RuntimeError("the embeddings server is down"))
    model.release.set()
    batcher = QueryBatcher(model)

    threads, results, errors = _ask_at_once(batcher, ["a", "b"])
    for thread in threads:
        thread.join(5)

    assert results == {}
    assert {str(e) for e in errors.values()} == {"the embeddings server is down"}
    with pytest.raises(RuntimeError):
        batcher.embed(["c"])


def test_a_list_of_texts_is_embedded_in_one_call_as_given():
    model = SlowEmbedder()
    model.release.set()

    assert QueryBatcher(model).embed(["xy", "z"]) == [[2.0, 120.0], [1.0, 122.0]]
    assert model.calls == [["xy", "z"]]

"""The citation check over real services: the passages' vectors come from the document index
(Qdrant Edge), so the check embeds the answer's own sentences and nothing of the passages."""

from __future__ import annotations

import pytest


class Recording:
    """The real embedder, keeping every batch it is asked for."""

    def __init__(self, inner):
        self._inner, self.calls = inner, []
        self.name, self.model_id, self.dimension = inner.name, inner.model_id, inner.dimension

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        return self._inner.embed(texts)

    def __getattr__(self, name):
        return getattr(self._inner, name)


@pytest.fixture
def embedder(embedder):
    return Recording(embedder)


QUESTION = "What is the Trustee paid?"


def test_the_check_embeds_the_answer_s_sentences_and_reads_the_passages_vectors(client, gateway, embedder, trust):
    given = client.post("/api/v1/rag/query", json={"query": QUESTION}).json()["citations"]
    fees = next(c["n"] for c in given if c["section"] == "Trustee fees")
    answer = (f"The Trustee earns GBP 40,000 a year, paid in instalments on the Payment Dates [{fees}]. "
              f"The Trustee may use the Reserve Account to pay its own fees [{fees}].")
    gateway.enqueue([answer])
    embedder.calls.clear()

    body = client.post("/api/v1/rag/query", json={"query": QUESTION}).json()

    question, check = embedder.calls
    assert question == [QUESTION]
    assert check and all(text in answer for text in check)  # no passage's text is embedded again
    assert [s["supported"] for s in body["citation_check"]["sentences"]] == [True, False]

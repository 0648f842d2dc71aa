"""However the ONNX embedder groups texts into runs of the model, the vectors stay the same."""

from __future__ import annotations

import numpy as np

from docchat.documents.index.onnx_embeddings import OnnxMiniLMEmbedder

TEXTS = [
    "When is the Determination Date?",
    "The Trustee shall keep proper accounts of the Trust Fund and have them audited each year.",
    "Knead the dough for ten minutes, then leave it to rise in a warm place until doubled. " * 12,
    "Die Kündigungsfrist beträgt sechs Monate.",
    "",
]


def test_texts_embedded_one_run_each_or_all_in_one_get_the_same_vectors(shared_embedder):
    one_each = np.array(OnnxMiniLMEmbedder(tokens_per_run=1).embed(TEXTS))
    all_together = np.array(OnnxMiniLMEmbedder(tokens_per_run=100_000).embed(TEXTS))

    assert np.allclose((one_each * all_together).sum(axis=1), 1.0, atol=1e-5)
    assert np.allclose((np.array(shared_embedder.embed(TEXTS)) * one_each).sum(axis=1), 1.0, atol=1e-5)

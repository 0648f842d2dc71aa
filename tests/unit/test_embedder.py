"""The MiniLM embedder loads its model lazily, once, whichever thread asks first."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import numpy as np
import pytest

from docchat.documents.index.onnx_embeddings import OnnxMiniLMEmbedder


class _CountingOnnxEmbedder(OnnxMiniLMEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.loads = 0

    def _load(self):
        self.loads += 1
        time.sleep(0.05)  # wide enough for every thread to arrive while the first one loads
        return _Tokenizer(), _Session()


class _Tokenizer:
    def encode_batch(self, texts):
        return [_Encoding() for _ in texts]


class _Encoding:
    ids = [101, 2000, 102]
    attention_mask = [1, 1, 1]


class _Session:
    def run(self, outputs, inputs):
        batch, tokens = inputs["input_ids"].shape
        return [np.ones((batch, tokens, 384), dtype=np.float32)]


def test_onnx_vectors_are_unit_length_and_in_the_order_asked():
    vectors = _CountingOnnxEmbedder().embed(["a", "b", "c"])
    assert len(vectors) == 3
    assert np.linalg.norm(vectors, axis=1) == pytest.approx([1.0, 1.0, 1.0])


@pytest.mark.parametrize("heavy", ["onnxruntime", "torch"])
def test_building_an_embedder_imports_nothing_heavy(heavy):
    # A fresh interpreter: these take seconds to import, only on first use.
    code = ("import sys; from docchat.documents.index.onnx_embeddings import OnnxMiniLMEmbedder; OnnxMiniLMEmbedder(); "
            f"print({heavy!r} in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_threads_asking_at_once_load_the_model_once():
    embedder = _CountingOnnxEmbedder()
    threads = [threading.Thread(target=embedder.embed, args=(["Determination Date"],)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert embedder.loads == 1


def test_nothing_to_embed_loads_nothing():
    embedder = _CountingOnnxEmbedder()
    assert embedder.embed([]) == []
    assert embedder.loads == 0

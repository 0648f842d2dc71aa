"""Opening the document library's adapters as the settings say: the embedder, the chunk index
(Qdrant Edge in the data dir, pgvector in the store's PostgreSQL, or a Qdrant server), at once
or early on a thread, and the word index beside a SQLite store."""

from __future__ import annotations

import atexit
import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from sqlalchemy.engine import make_url

from docchat.config import Settings

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from docchat.documents.index.edge_index import EdgeChunkIndex
    from docchat.documents.index.embeddings import Embedder
    from docchat.documents.index.pgvector_index import PgVectorChunkIndex
    from docchat.documents.index.qdrant_index import QdrantServerIndex
    from docchat.documents.index.word_index import TantivyWordIndex


def embedder_for(settings: Settings) -> Embedder:
    """A server's embeddings when the settings name one, else the bundled ONNX model's."""
    if settings.embeddings_url:
        from docchat.documents.index.remote_embeddings import OpenAIEmbedder

        return OpenAIEmbedder(settings.embeddings_url, settings.embeddings_model)
    from docchat.documents.index.onnx_embeddings import OnnxMiniLMEmbedder

    return OnnxMiniLMEmbedder(settings.resolved_cache_dir)


def open_chunk_index(settings: Settings, embedder: Embedder) -> EdgeChunkIndex | PgVectorChunkIndex | QdrantServerIndex:
    """The collection on the Qdrant server the settings name; else, with the store on PostgreSQL,
    its pgvector table (filled once from this data dir's shard); else the data dir's Qdrant Edge
    shard (moved there from an older docchat's local-mode folder first, once). Raises IndexInUse
    when another process holds the shard."""
    # Asked first: a remote embedder may fail here, and an index opened before that would keep
    # the folder locked against the next try.
    dimension, model_id = embedder.dimension, embedder.model_id
    if settings.qdrant_url:
        from qdrant_client import QdrantClient

        from docchat.documents.index.qdrant_index import QdrantServerIndex

        client = QdrantClient(url=settings.qdrant_url)
        atexit.register(client.close)
        return QdrantServerIndex(client, dimension=dimension, embedder=model_id)
    if settings.database_url and make_url(settings.database_url).get_backend_name() == "postgresql":
        shared = _pgvector_index(settings, dimension, model_id)
        if shared is not None:
            return shared
    from docchat.documents.index.edge_index import EdgeChunkIndex
    from docchat.documents.index.moving import NEW, move_local_mode

    move_local_mode(settings.resolved_data_dir)
    index = EdgeChunkIndex(settings.resolved_data_dir / NEW, dimension=dimension, embedder=model_id)
    # A shard left open at exit loses nothing (its log is written at each change), but closing
    # flushes its segments and waits for an index build under way.
    atexit.register(index.close)
    return index


def _pgvector_index(settings: Settings, dimension: int, model_id: str | None) -> PgVectorChunkIndex | None:
    """The store's pgvector table, or None when its server has no pgvector: the vectors then
    stay in this machine's data dir, as before docchat kept them in PostgreSQL."""
    from docchat.documents.index.moving import move_into_pgvector
    from docchat.documents.index.pgvector_index import PgVectorChunkIndex, pgvector_installed
    from docchat.store.engine import make_engine

    engine = make_engine(settings.resolved_database_url)
    if not pgvector_installed(engine):
        engine.dispose()
        log.warning("this PostgreSQL server has no pgvector: the document index stays in %s, this machine's "
                    "own; install pgvector on the server to share it", settings.resolved_data_dir)
        return None
    index = PgVectorChunkIndex(engine, dimension=dimension, embedder=model_id)
    move_into_pgvector(settings.resolved_data_dir, index, dimension=dimension, embedder=model_id)
    atexit.register(index.close)
    return index


def keeps_words_apart(settings: Settings) -> bool:
    """Whether the store's chunks are searched by words in a word index beside it (SQLite), not
    by the store itself (PostgreSQL's text search)."""
    return make_url(settings.resolved_database_url).get_backend_name() == "sqlite"


def open_word_index(settings: Settings) -> TantivyWordIndex:
    """The word index beside a SQLite store; it opens at its first search (or `prepare`)."""
    from docchat.documents.index.word_index import FOLDER, TantivyWordIndex
    from docchat.store.engine import make_engine

    return TantivyWordIndex(settings.resolved_data_dir / FOLDER, make_engine(settings.resolved_database_url))


class _Closable(Protocol):
    def close(self) -> None: ...


Index = TypeVar("Index", bound=_Closable)


class OpenedEarly(Generic[Index]):
    """The document index, opened on a thread from the moment this is made, then the embedding
    model loaded on the same thread: a first question typed meanwhile finds them ready (loading
    the model takes seconds of CPU, and so does an older docchat's index moved at its first opening).
    Called, it hands the index over, waiting for it if need be, or raises what opening it
    raised; after that it opens a new one each time, as the plain factory does."""

    def __init__(self, open_index: Callable[[], Index], embedder: Embedder,
                 words: Callable[[], TantivyWordIndex] | None = None) -> None:
        self._open_index = open_index
        self._opened = threading.Event()
        self._lock = threading.Lock()
        self._index: Index | None = None
        self._error: Exception | None = None
        threading.Thread(target=self._open, args=(embedder, words), name="docchat-open-documents",
                         daemon=True).start()

    def _open(self, embedder: Embedder, words: Callable[[], TantivyWordIndex] | None) -> None:
        try:
            self._index = self._open_index()
        except Exception as error:  # raised to whoever asks for the index first
            self._error = error
        finally:
            self._opened.set()
        try:
            embedder.embed(["warming up"])
        except Exception:
            pass  # the first question meets the same failure, and says what it is
        try:
            if words is not None:
                words().prepare()  # built at the first start after an upgrade: seconds per 100,000 chunks
        except Exception:
            log.exception("the keyword index could not be opened; the first question tries again")

    def __call__(self) -> Index:
        self._opened.wait()
        with self._lock:
            index, error, self._index, self._error = self._index, self._error, None, None
        if error is not None:
            raise error
        return index if index is not None else self._open_index()

    def close(self) -> None:
        """Lets go of an index opened but never handed over (the folder stays locked otherwise)."""
        self._opened.wait()
        with self._lock:
            index, self._index = self._index, None
        if index is not None:
            index.close()

"""The composition root: the only place where real parts are wired together."""

from __future__ import annotations

import atexit
import logging
import os
import threading
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from pathlib import Path

from docchat import preferences
from docchat.config import Settings
from docchat.context.engine import ContextEngine
from docchat.context.pipeline import AnswerPipeline, PassageLimits
from docchat.context.planner import Caps
from docchat.context.programs import Programs, vllm_lm_factory
from docchat.context.rewrite import RewriteGate
from docchat.domain import utcnow
from docchat.errors import IndexInUse, LLMError
from docchat.llm.discovery import fetch_info
from docchat.llm.gateway import Sampling, Timeouts, VllmGateway
from docchat.llm.profiles import (CPU_MAX_OUTPUT, CPU_MODEL_NAME, CPU_SAMPLING, CPU_VARIED_SAMPLING, GPU_MAX_OUTPUT,
                                  GPU_SAMPLING, start_advice)
from docchat.llm.server_key import llm_key
from docchat.llm.skill_record import JsonSkillRecord
from docchat.memory.tokens import ServedCounter, TokenCounter, counter_for
from docchat.ports import Embedder, Parser
from docchat.services.backup import DATABASE, BackupService
from docchat.services.chat import ChatService
from docchat.services.conversations import ConversationService
from docchat.documents.batching import QueryBatcher
from docchat.documents.isolated import IsolatedParser
from docchat.documents.onnx_embeddings import OnnxMiniLMEmbedder
from docchat.documents.parsing import InProcessParser
from docchat.services.documents import DocumentService
from docchat.services.llm import LLMService
from docchat.services.stateless import StatelessChat
from docchat.services.transfer import TransferService
from docchat.store.backup import SqliteFiles, sqlite_path
from docchat.store.engine import make_engine
from docchat.store.message_log import SqlMessageLog
from docchat.store.migrate import current_revision, upgrade
from docchat.store.presence import Presence
from docchat.store.unit_of_work import SqlUnitOfWorkFactory

# Libraries below us otherwise try the network at import time and wait on it.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# torch's OpenMP threads (the embedding model) would otherwise spin while they wait, taking
# the cores from the LLM server beside us: a 6 ms query embedding took 500 ms while it generated.
# Read when torch loads, so it is set before anything imports it.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
# A program that falls back is normal here; dspy's own warnings would only be noise on stderr.
logging.getLogger("dspy").setLevel(logging.ERROR)

EMBEDDED_MODEL_DIR = "smollm2-135m-instruct"
# A streaming answer checkpoints every second; one silent for this long was cut off by a crash
# (the rule when another process may be streaming it: see store/presence.py).
STALE_STREAM = timedelta(minutes=2)


@dataclass(frozen=True)
class Services:
    settings: Settings
    conversations: ConversationService
    transfer: TransferService
    chat: ChatService
    stateless: StatelessChat
    documents: DocumentService
    llm: LLMService
    presence: Presence | None = None
    opened_early: "_OpenedEarly | None" = None
    parser: Parser | None = None

    def close(self) -> None:
        """Lets go of what one process may hold at a time (the local document index), of its
        claim on the database, and of the parsing workers."""
        self.documents.close()
        if self.parser is not None:
            self.parser.close()
        if self.opened_early is not None:
            self.opened_early.close()
        if self.presence is not None:
            self.presence.close()


def build_services(settings: Settings | None = None, *, counter: TokenCounter | None = None,
                   gateway=None, programs: Programs | None = None, embedder: Embedder | None = None,
                   parser: Parser | None = None, contact_llm: bool = True,
                   open_documents_early: bool = False) -> Services:
    """Opens the database, applies pending migrations, and wires the services over it.

    `contact_llm=False` (commands that never ask the model) skips asking the server which
    model it serves; tokens are then counted with the profile's tokenizer.
    `open_documents_early=True` (a process about to wait for its user's first question) starts
    opening the document index and loading the embedding model on a thread at once, when the
    library has documents and the server answers; the first search waits for them only if they
    are not ready. Without it they open when the first search needs them."""
    settings = settings or Settings()
    engine = make_engine(settings.resolved_database_url, busy_timeout_s=settings.busy_timeout_s)
    upgrade(engine)
    uow = SqlUnitOfWorkFactory(engine)
    presence = Presence(sqlite_path(settings.resolved_database_url),
                        while_alone=lambda: _recover_interrupted_answers(uow, before=None))
    if not presence.alone:
        _recover_interrupted_answers(uow, before=utcnow() - STALE_STREAM)
    gateway = gateway or gateway_for(settings)
    info = _server_info(gateway) if contact_llm else None
    embedder = embedder or QueryBatcher(_embedder(settings))
    index_factory = partial(_chunk_index, settings, embedder)
    if open_documents_early and info is not None and _has_documents(uow):
        # Before the token counter: its tokenizer loads without holding the GIL, so it loads
        # while that thread imports Qdrant.
        index_factory = _OpenedEarly(index_factory, embedder)
    counter = counter or _counter(settings, gateway, info)
    conversations = ConversationService(uow, counter, log=SqlMessageLog(uow),
                                        database=engine.url.render_as_string(hide_password=True),
                                        schema_version=lambda: current_revision(engine))
    # "Check this address" on the Settings page: the key that address would be sent.
    llm = LLMService(gateway, counter, probe=lambda url: fetch_info(
        url, timeout=3.0, api_key=llm_key(settings.model_copy(update={"llm_url": url}))()),
        start_advice=start_advice(settings))
    programs = programs if programs is not None else _programs(settings, gateway)
    caps = Caps(system=settings.cap_system, summary=settings.cap_summary, chunks=settings.cap_chunks,
                question=settings.cap_question)
    context = ContextEngine(counter, programs, system_prompt=settings.system_prompt, caps=caps)
    parser = parser or IsolatedParser(timeout_s=settings.parse_timeout_s, memory_mb=settings.parse_memory_mb)
    documents = DocumentService(uow, settings.resolved_data_dir, index_factory, embedder, counter, parser=parser,
                                max_bytes=settings.max_upload_mb * 1024 * 1024)
    rewrite_gate = RewriteGate(JsonSkillRecord(settings.resolved_data_dir))
    if info is not None:
        rewrite_gate.follow(info)
    gateway.watch(rewrite_gate.follow)
    pipeline = AnswerPipeline(context, counter, programs=programs, retriever=documents,
                              limits=PassageLimits(floor=settings.passages_min, ceiling=settings.passages_max),
                              rewrite_gate=rewrite_gate)
    chat = ChatService(conversations, uow, gateway, counter, pipeline, programs=programs,
                       answer_reserve=settings.max_tokens or profile_answer_tokens(settings))
    if info is not None:
        llm.calibration()  # once, at start-up, while the server is known to answer
    return Services(
        settings=settings,
        conversations=conversations,
        transfer=TransferService(uow, counter),
        chat=chat,
        stateless=StatelessChat(chat, pipeline, counter, gateway),
        documents=documents,
        llm=llm,
        presence=presence,
        opened_early=index_factory if isinstance(index_factory, _OpenedEarly) else None,
        parser=parser,
    )


def embedded_model_dir(settings: Settings) -> Path:
    return settings.models_dir / EMBEDDED_MODEL_DIR


def gateway_for(settings: Settings) -> VllmGateway:
    """The client of the LLM server the settings name (benchmarks also talk to it directly)."""
    # The profile picks the sampling (the model card's for Qwen3, greedy for the tiny model);
    # a server given by URL may serve any model, so none is expected by name.
    cpu = settings.llm_profile == "cpu"
    sampling = Sampling(**(CPU_SAMPLING if cpu else GPU_SAMPLING))
    varied = Sampling(**CPU_VARIED_SAMPLING) if cpu else sampling
    return VllmGateway(
        settings.resolved_llm_url,
        expected_model=CPU_MODEL_NAME if cpu and settings.llm_url is None else None,
        api_key=llm_key(settings),
        sampling=sampling,
        varied=varied,
        timeouts=Timeouts(first_token_s=settings.first_token_timeout_s,
                          between_tokens_s=settings.between_tokens_timeout_s,
                          connect_retries=settings.connect_retries),
    )


def _server_info(gateway):
    try:
        return fetch_info(gateway.base_url, timeout=1.5, api_key=gateway.api_key())
    except LLMError:
        return None


def _counter(settings: Settings, gateway, info) -> ServedCounter:
    """The served model's tokenizer, following the server; until it answers, the profile's."""
    if info is not None:
        counter = ServedCounter.serving(info)
    elif settings.llm_url is None and settings.llm_profile == "cpu" and (
            embedded_model_dir(settings) / "tokenizer.json").exists():
        counter = ServedCounter(counter_for(CPU_MODEL_NAME, embedded_model_dir(settings) / "tokenizer.json"))
    else:
        counter = ServedCounter(counter_for(settings.tokenizer_model))
    gateway.watch(counter.follow)
    return counter


def _embedder(settings: Settings):
    if settings.embeddings_url:
        from docchat.documents.remote_embeddings import OpenAIEmbedder

        return OpenAIEmbedder(settings.embeddings_url, settings.embeddings_model)
    return OnnxMiniLMEmbedder()


def _chunk_index(settings: Settings, embedder):
    from qdrant_client import QdrantClient

    from docchat.documents.index import ChunkIndex

    # Asked first: a remote embedder may fail here, and a local-mode client made before that
    # would keep the folder locked against the next try.
    dimension, model_id = embedder.dimension, embedder.model_id
    if settings.qdrant_url:
        client = QdrantClient(url=settings.qdrant_url)
    else:
        folder = settings.resolved_data_dir / "qdrant"
        try:
            client = QdrantClient(path=str(folder))
        except RuntimeError as error:
            if "already accessed" not in str(error):
                raise
            raise IndexInUse(f"The document index ({folder}) is open in another docchat process (the app?); "
                               "stop it first, or use a Qdrant server (DOCCHAT_QDRANT_URL).") from None
    # An unclosed local-mode client complains from __del__ at interpreter exit.
    atexit.register(client.close)
    return ChunkIndex(client, dimension=dimension, local=not settings.qdrant_url, embedder=model_id)


def _has_documents(uow: SqlUnitOfWorkFactory) -> bool:
    with uow() as work:
        return work.documents.any_ready()


class _OpenedEarly:
    """The document index, opened on a thread from the moment this is made, then the embedding
    model loaded on the same thread: a first question typed meanwhile finds them ready (Qdrant's
    import and local mode's loading of every vector take seconds of CPU).
    Called, it hands the index over, waiting for it if need be, or raises what opening it
    raised; after that it opens a new one each time, as the plain factory does."""

    def __init__(self, open_index, embedder) -> None:
        self._open_index = open_index
        self._opened = threading.Event()
        self._lock = threading.Lock()
        self._index = self._error = None
        threading.Thread(target=self._open, args=(embedder,), name="docchat-open-documents", daemon=True).start()

    def _open(self, embedder) -> None:
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

    def __call__(self):
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


def _programs(settings: Settings, gateway) -> Programs | None:
    """The DSPy programs over the chat's own server, or none when off."""
    if not settings.context_programs:
        return None

    def lm_for(max_tokens: int):
        return vllm_lm_factory(gateway.base_url, gateway.info().model, timeout_s=settings.program_timeout_s,
                               api_key=gateway.api_key)(max_tokens)

    return Programs(lm_for)


def profile_answer_tokens(settings: Settings) -> int:
    return CPU_MAX_OUTPUT if settings.llm_profile == "cpu" else GPU_MAX_OUTPUT


def _recover_interrupted_answers(uow: SqlUnitOfWorkFactory, *, before) -> None:
    """Answers a crash left `streaming` become interrupted, their text kept: every one when no
    other process uses the database (`before` None), else those silent since `before`."""
    with uow(write=True) as work:
        work.conversations.interrupt_stale_streaming(before)
        work.commit()


def build_backup(settings: Settings | None = None, *, embedder: Embedder | None = None) -> BackupService:
    """Backup and restore of the data dir. Nothing is opened until they run: a backup reads the
    database file beside a running app, without its services."""
    settings = settings or Settings()
    path = sqlite_path(settings.resolved_database_url)
    database = SqliteFiles(path, busy_timeout_s=settings.busy_timeout_s) if path else None
    return BackupService(settings.resolved_data_dir, database,
                         lambda folder, progress: _rebuild_index(settings, folder, embedder, progress))


def _rebuild_index(settings: Settings, folder: Path, embedder: Embedder | None, progress) -> int:
    """Upgrades the database restored into `folder` and embeds its chunks into the folder's own
    index (or the Qdrant server's), as the restored installation will: with the embedder its
    settings.json names, unless the environment names another."""
    restored = preferences.load(data_dir=folder, database_url=f"sqlite:///{folder / DATABASE}",
                                qdrant_url=settings.qdrant_url)
    engine = make_engine(restored.resolved_database_url, busy_timeout_s=restored.busy_timeout_s)
    try:
        upgrade(engine)
        embedder = embedder or _embedder(restored)
        documents = DocumentService(SqlUnitOfWorkFactory(engine), restored.resolved_data_dir,
                                    lambda: _chunk_index(restored, embedder), embedder,
                                    counter_for(restored.tokenizer_model), parser=InProcessParser())
        try:
            return documents.reindex(progress=progress)
        finally:
            documents.close()
    finally:
        # Every connection closed, so the database is one file again before it is moved.
        engine.dispose()

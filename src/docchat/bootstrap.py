"""The composition root: the only place where real parts are wired together. It wires and does
nothing else: probes, threads and policies live with their adapters and services, and every
adapter can be given instead (tests give fakes)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Callable

import docchat.environment  # noqa: F401  (first: before any library under docchat loads)
from docchat import preferences
from docchat.config import Settings
from docchat.documents.index.batching import QueryBatcher
from docchat.documents.files import StoredFiles
from docchat.documents.folders.disk_files import DiskFolders
from docchat.documents.isolated import IsolatedParser
from docchat.documents.index.opening import OpenedEarly, embedder_for, open_chunk_index
from docchat.documents.render import page_with_passage
from docchat.domain import utcnow
from docchat.errors import DocchatError
from docchat.llm.profiles import (CPU_MODEL_NAME, CPU_SAMPLING, CPU_VARIED_SAMPLING, GPU_SAMPLING, answer_tokens,
                                  embedded_model_dir, guessed_tokenizer, start_advice)
from docchat.llm.server_key import llm_key
from docchat.memory.tokens import ServedCounter, counter_for
from docchat.ports import (ChunkIndex, Embedder, FileStore, PageRenderer, Parser, Programs, Retriever, SkillRecord,
                           TokenCounter, UnitOfWorkFactory)
from docchat.services.backup import DATABASE, BackupService
from docchat.services.conversations import ConversationService
from docchat.services.trash import TrashService
from docchat.services.library import build_library
from docchat.services.library_index import IndexService
from docchat.services.folders import FolderService
from docchat.services.health import HealthService
from docchat.services.recovery import STALE_STREAM, interrupt_abandoned_answers
from docchat.services.registry import Answering, Once, Services
from docchat.services.transfer import TransferService
from docchat.store.backup import SqliteFiles, sqlite_path
from docchat.store.engine import make_engine
from docchat.store.migrate import Upgrading, current_revision, upgrade
from docchat.store.presence import Presence
from docchat.store.unit_of_work import SqlUnitOfWorkFactory
from docchat.store.upgrade import open_for_this_version
from docchat.text import one_line
from docchat.upgrade_backups import FOLDER as UPGRADE_BACKUPS

if TYPE_CHECKING:
    from docchat.llm.gateway import ServerGateway

# Kept importable from here, where callers have found them.
__all__ = ["STALE_STREAM", "Services", "build_backup", "build_services", "embedded_model_dir", "gateway_for"]


def build_services(settings: Settings | None = None, *, uow: UnitOfWorkFactory | None = None,
                   counter: TokenCounter | None = None, gateway=None, programs: Programs | None = None,
                   embedder: Embedder | None = None, index: Callable[[], ChunkIndex] | None = None,
                   parser: Parser | None = None, files: FileStore | None = None, renderer: PageRenderer | None = None,
                   skills: SkillRecord | None = None, retriever: Retriever | None = None, contact_llm: bool = True,
                   open_documents_early: bool = False) -> Services:
    """Wires the services over the settings' database (opened, and migrated to this version),
    or over `uow` when given; any other adapter given is used instead of the real one
    (`retriever`: what the answer pipeline searches instead of the document library).

    `contact_llm=False` (commands that never ask the model) skips asking the server which
    model it serves; tokens are then counted with the profile's tokenizer. The services that
    talk to the server (`chat`, `stateless`, `llm`) are then built at their first use: the
    server's client (httpx) and the answer pipeline are not imported by a command that lists
    conversations or syncs folders (importing this module took 1.32 s of CPU with them, 1.05 s
    without, on two shared cores: docs/perf/cli-start.md).
    `open_documents_early=True` (a process about to wait for its user's first question) starts
    opening the document index and loading the embedding model on a thread at once, when the
    library has documents and the server answers; the first search waits for them only if they
    are not ready. Without it they open when the first search needs them."""
    settings = settings or Settings()
    presence, database, schema_version, upgraded = None, "given", lambda: None, None
    if uow is None:
        engine = make_engine(settings.resolved_database_url, busy_timeout_s=settings.busy_timeout_s)
        done = open_for_this_version(engine, settings.resolved_data_dir / UPGRADE_BACKUPS,
                                     busy_timeout_s=settings.busy_timeout_s)
        upgraded = done.line() if done else None
        uow = SqlUnitOfWorkFactory(engine)
        database = engine.url.render_as_string(hide_password=True)
        schema_version = partial(current_revision, engine)
        presence = Presence(sqlite_path(settings.resolved_database_url),
                            while_alone=partial(interrupt_abandoned_answers, uow, before=None))
        if not presence.alone:
            interrupt_abandoned_answers(uow, before=utcnow() - STALE_STREAM)
    client = Once(lambda: gateway or gateway_for(settings))
    info = _server_info(settings, client()) if contact_llm else None
    embedder = embedder or QueryBatcher(embedder_for(settings))
    index = index or partial(open_chunk_index, settings, embedder)
    if open_documents_early and info is not None and _has_documents(uow):
        # Before the token counter: its tokenizer loads without holding the GIL, so it loads
        # while that thread imports Qdrant.
        index = OpenedEarly(index, embedder)
    listeners: tuple[Callable, ...] = ()
    if counter is None:  # one built here follows the model the server serves; one given stays as it is
        counter = _following_counter(settings, client, info)
        listeners = (counter.follow,)
    conversations = ConversationService(uow, counter)
    parser = parser or IsolatedParser(timeout_s=settings.parse_timeout_s, memory_mb=settings.parse_memory_mb)
    library = build_library(uow, index, embedder, counter, parser=parser,
                            files=files or StoredFiles(settings.resolved_data_dir),
                            renderer=renderer or page_with_passage, max_bytes=settings.max_upload_mb * 1024 * 1024)
    answering = Once(partial(_answering, settings, client, info, listeners, uow=uow, counter=counter,
                             conversations=conversations, retriever=retriever or library.retrieval,
                             passage_vectors=library.index.passage_vectors, embedder=embedder, programs=programs,
                             skills=skills))
    if contact_llm:
        answering()  # at once: the server is asked now, and its token counts calibrated
    return Services(
        settings=settings,
        conversations=conversations,
        trash=TrashService(uow),
        transfer=TransferService(uow, counter),
        documents=library.documents,
        ingestion=library.ingestion,
        retrieval=library.retrieval,
        index=library.index,
        folders=FolderService(uow, library, conversations, DiskFolders(skipped=(str(settings.resolved_data_dir),))),
        health=HealthService(uow, counter, lambda: answering().llm.status(), library.index, settings.resolved_data_dir,
                             database=database, schema_version=schema_version),
        preferences=preferences.SavedPreferences(settings),
        answering=answering,
        presence=presence,
        opened_early=index if isinstance(index, OpenedEarly) else None,
        parser=parser,
        upgraded=upgraded,
    )


def _answering(settings: Settings, client: Callable, info, listeners, *, uow: UnitOfWorkFactory,
               counter: TokenCounter, conversations: ConversationService, retriever: Retriever,
               passage_vectors: Callable[[Sequence[str]], dict[str, list[float]]], embedder: Embedder,
               programs: Programs | None, skills: SkillRecord | None) -> Answering:
    """The services that talk to the LLM server, over its client; `listeners` follow what the
    server says from now on."""
    # Imported here, not at the top: a command that never asks the model does without them.
    from docchat.context.engine import ContextEngine
    from docchat.context.pipeline import AnswerPipeline, PassageLimits
    from docchat.context.planner import Caps
    from docchat.context.programs import programs_over
    from docchat.context.rewrite import RewriteGate
    from docchat.llm.discovery import fetch_info
    from docchat.llm.skill_record import JsonSkillRecord
    from docchat.llm.start_progress import starting
    from docchat.services.chat import ChatService
    from docchat.services.grounding import CitationChecker
    from docchat.services.llm import LLMService
    from docchat.services.stateless import StatelessChat

    gateway = client()
    for listener in listeners:
        _follow(gateway, info, listener)
    # "Check this address" on the Settings page: the key that address would be sent.
    llm = LLMService(gateway, counter, probe=lambda url: fetch_info(
        url, timeout=3.0, api_key=llm_key(settings.model_copy(update={"llm_url": url}))(), window=settings.llm_window),
        start_advice=start_advice(settings), starting=partial(starting, settings.resolved_llm_url))
    if programs is None and settings.context_programs:
        programs = programs_over(gateway, timeout_s=settings.program_timeout_s)
    caps = Caps(system=settings.cap_system, summary=settings.cap_summary, chunks=settings.cap_chunks,
                question=settings.cap_question)
    context = ContextEngine(counter, programs, system_prompt=settings.system_prompt, caps=caps)
    rewrite_gate = RewriteGate(skills or JsonSkillRecord(settings.resolved_data_dir))
    _follow(gateway, info, rewrite_gate.follow)
    pipeline = AnswerPipeline(context, counter, programs=programs, retriever=retriever,
                              limits=PassageLimits(floor=settings.passages_min, ceiling=settings.passages_max),
                              rewrite_gate=rewrite_gate)
    chat = ChatService(conversations, uow, gateway, counter, pipeline, programs=programs,
                       answer_reserve=answer_tokens(settings), documents_only=settings.documents_only,
                       checker=CitationChecker(embedder, passage_vectors))
    if info is not None:
        llm.calibration()  # once, at start-up, while the server is known to answer
    return Answering(chat=chat, stateless=StatelessChat(chat, pipeline, counter, gateway), llm=llm)


def gateway_for(settings: Settings) -> ServerGateway:
    """The client of the LLM server the settings name (benchmarks also talk to it directly)."""
    from docchat.llm.gateway import Sampling, ServerGateway, Timeouts

    # The profile picks the sampling (the model card's for Qwen3, greedy for the tiny model).
    cpu = settings.llm_profile == "cpu"
    sampling = Sampling(**(CPU_SAMPLING if cpu else GPU_SAMPLING))
    varied = Sampling(**CPU_VARIED_SAMPLING) if cpu else sampling
    return ServerGateway(
        settings.resolved_llm_url,
        expected_model=_expected_model(settings),
        api_key=llm_key(settings),
        window=settings.llm_window,
        sampling=sampling,
        varied=varied,
        timeouts=Timeouts(first_token_s=settings.first_token_timeout_s,
                          between_tokens_s=settings.between_tokens_timeout_s,
                          connect_retries=settings.connect_retries),
    )


def _expected_model(settings: Settings) -> str | None:
    """The model the user chose; else docchat's own server's; a server given by URL may serve
    any model, so then none is expected by name (the first it lists answers)."""
    if settings.llm_model:
        return settings.llm_model
    return CPU_MODEL_NAME if settings.llm_profile == "cpu" and settings.llm_url is None else None


def _server_info(settings: Settings, gateway):
    """What the server says it serves, or None when it does not answer."""
    from docchat.llm.discovery import info_if_up

    return info_if_up(gateway.base_url, api_key=gateway.api_key(), window=settings.llm_window,
                      expected_model=_expected_model(settings))


def _following_counter(settings: Settings, client: Callable, info) -> ServedCounter:
    """The served model's tokenizer (once it follows the server); until it answers, the profile's."""
    return ServedCounter(lambda: counter_for(*guessed_tokenizer(settings)), served=info,
                         by_server=partial(_counter_asking, client))


def _counter_asking(client: Callable, served):
    """A counter that asks the server, for a model docchat has no tokenizer of."""
    from docchat.llm.server_tokens import server_counter

    return server_counter(served, api_key=client().api_key())


def _follow(gateway, info, listener) -> None:
    """`listener` hears what the server says now (if it answered) and each time it is asked afresh."""
    if info is not None:
        listener(info)
    gateway.watch(listener)


def _has_documents(uow: UnitOfWorkFactory) -> bool:
    with uow() as work:
        return work.documents.any_ready()


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
        try:
            upgrade(engine)
        except Upgrading as failed:
            raise DocchatError(f"the backup's database could not be upgraded ({one_line(str(failed), limit=200)}); "
                               "nothing was changed") from None
        embedder = embedder or embedder_for(restored)
        index = IndexService(SqlUnitOfWorkFactory(engine), partial(open_chunk_index, restored, embedder), embedder,
                             StoredFiles(restored.resolved_data_dir))
        try:
            return index.reindex(progress=progress)
        finally:
            index.close()
    finally:
        # Every connection closed, so the database is one file again before it is moved.
        engine.dispose()

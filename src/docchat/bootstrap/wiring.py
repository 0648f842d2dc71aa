"""The services wired over a database and the adapters: objects made and handed to each other,
nothing opened, asked or started. Every test can wire the services over fakes here (through
`build_services`, which takes each adapter)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING

from docchat.bootstrap.adapters import Adapters, Client
from docchat.bootstrap.database import Database
from docchat.config import Settings
from docchat.documents.index.opening import OpenedEarly
from docchat.llm.profiles import answer_tokens, start_advice
from docchat.llm.server_key import llm_key
from docchat.ports import Embedder, Figures, Programs, Retriever, SkillRecord, TokenCounter, UnitOfWorkFactory
from docchat.services.conversation_log import ConversationLog
from docchat.services.conversations import ConversationService
from docchat.services.folders import FolderService
from docchat.services.health import HealthService
from docchat.services.library import build_library
from docchat.services.messages import MessageService
from docchat.services.registry import Answering, Once, Services
from docchat.services.transfer import TransferService
from docchat.services.trash import TrashService

if TYPE_CHECKING:
    from docchat.llm.discovery import ServerInfo
    from docchat.llm.gateway import ServerGateway



def wire(settings: Settings, database: Database, adapters: Adapters, info: ServerInfo | None) -> Services:
    """The services; `chat`, `stateless` and `llm` are built at their first use (`answering`).
    `info`: what the LLM server said it serves, or None."""
    uow, counter = database.uow, adapters.counter
    log = ConversationLog(uow, counter)
    conversations = ConversationService(uow, counter, log)
    messages = MessageService(uow, counter, log)
    library = build_library(uow, adapters.index, adapters.embedder, counter, parser=adapters.parser,
                            files=adapters.files, renderer=adapters.renderer,
                            max_bytes=settings.max_upload_mb * 1024 * 1024, words=adapters.words,
                            tables=adapters.tables)
    answering = Once(partial(_answering, settings, adapters.client, info, adapters.listeners, uow=uow,
                             counter=counter, conversations=conversations, messages=messages, log=log,
                             retriever=adapters.retriever or library.retrieval,
                             figures=adapters.figures or library.figures,
                             passage_vectors=library.index.passage_vectors, embedder=adapters.embedder,
                             programs=adapters.programs, skills=adapters.skills))
    return Services(
        settings=settings,
        conversations=conversations,
        messages=messages,
        trash=TrashService(uow, log),
        transfer=TransferService(uow, log),
        documents=library.documents,
        ingestion=library.ingestion,
        retrieval=library.retrieval,
        figures=library.figures,
        index=library.index,
        folders=FolderService(uow, library, conversations, adapters.folders),
        health=HealthService(uow, counter, lambda: answering().llm.status(), library.index, settings.resolved_data_dir,
                             database=database.shown, schema_version=database.schema_version),
        preferences=adapters.preferences,
        answering=answering,
        presence=database.presence,
        opened_early=adapters.index if isinstance(adapters.index, OpenedEarly) else None,
        parser=adapters.parser,
        upgraded=database.upgraded,
    )


def _answering(settings: Settings, client: Client, info: ServerInfo | None,
               listeners: Sequence[Callable[[ServerInfo], None]], *, uow: UnitOfWorkFactory,
               counter: TokenCounter, conversations: ConversationService, messages: MessageService, log: ConversationLog,
               retriever: Retriever, figures: Figures,
               passage_vectors: Callable[[Sequence[str]], dict[str, list[float]]], embedder: Embedder,
               programs: Programs | None, skills: SkillRecord | None) -> Answering:
    """The services that talk to the LLM server, over its client; `listeners` follow what the
    server says from now on. With `info` (the server answered at start-up), its token counts are
    calibrated once, here."""
    # Imported here, not at the top: a command that never asks the model does without them.
    from docchat.context.engine import ContextEngine
    from docchat.context.pipeline import AnswerPipeline, PassageLimits
    from docchat.context.planner import Caps
    from docchat.context.programs import programs_over
    from docchat.context.citing import CitationGate
    from docchat.context.model_queries import SKILL as QUERY_SKILL, ModelQueries
    from docchat.context.rewrite import RewriteGate
    from docchat.context.skill_gate import SkillGate
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
    skill_record = skills or JsonSkillRecord(settings.resolved_data_dir)
    rewrite_gate = RewriteGate(skill_record)
    query_gate = SkillGate(skill_record, QUERY_SKILL)
    for gate in (rewrite_gate, query_gate):
        _follow(gateway, info, gate.follow)
    pipeline = AnswerPipeline(context, counter, programs=programs, retriever=retriever, figures=figures,
                              limits=PassageLimits(floor=settings.passages_min, ceiling=settings.passages_max),
                              rewrite_gate=rewrite_gate, gateway=gateway,
                              queries=ModelQueries(programs, query_gate) if programs is not None else None)
    chat = ChatService(conversations, messages, log, uow, gateway, counter, pipeline, programs=programs,
                       answer_reserve=answer_tokens(settings), documents_only=settings.documents_only,
                       quoted_answers=settings.quoted_answers,
                       checker=CitationChecker(embedder, passage_vectors), citation_gate=CitationGate(skill_record))
    if info is not None:
        llm.calibration()  # once, at start-up, while the server is known to answer
    return Answering(chat=chat, stateless=StatelessChat(chat, pipeline, counter, gateway), llm=llm)


def _follow(gateway: ServerGateway, info: ServerInfo | None, listener: Callable[[ServerInfo], None]) -> None:
    """`listener` hears what the server says now (if it answered) and each time it is asked afresh."""
    if info is not None:
        listener(info)
    gateway.watch(listener)

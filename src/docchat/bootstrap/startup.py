"""How a docchat process starts, in this order (`build_services`; the page, the API and every
command start here):

1. the database opened for this docchat: refused, backed up and upgraded, claimed, and what an
   earlier process left streaming settled (docchat.bootstrap.database; `docchat run` takes the
   upgrade alone first, before it starts the LLM server);
2. the LLM server asked what it serves (a command that never asks the model skips it);
3. the adapters built (docchat.bootstrap.adapters), the document index opening on a thread at
   once when the process will wait for its user;
4. the services wired (docchat.bootstrap.wiring);
5. the LLM server's token counts calibrated, when it was asked.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from docchat.bootstrap.adapters import adapters_for, expected_model, gateway_for
from docchat.bootstrap.database import Database, open_database
from docchat.bootstrap.environment import keep_library_logs
from docchat.bootstrap.wiring import wire
from docchat.config import Settings
from docchat.ports import (Embedder, FileStore, Figures, FolderFiles, PageRenderer, Parser, Preferences, Programs, Retriever,
                           SkillRecord, TokenCounter, UnitOfWorkFactory)
from docchat.services.library_index import ClosableIndex
from docchat.services.registry import Once, Services

if TYPE_CHECKING:
    from docchat.llm.discovery import ServerInfo
    from docchat.llm.gateway import ServerGateway


def build_services(settings: Settings | None = None, *, uow: UnitOfWorkFactory | None = None,
                   counter: TokenCounter | None = None, gateway: ServerGateway | None = None,
                   programs: Programs | None = None, embedder: Embedder | None = None,
                   index: Callable[[], ClosableIndex] | None = None,
                   parser: Parser | None = None, files: FileStore | None = None, renderer: PageRenderer | None = None,
                   skills: SkillRecord | None = None, retriever: Retriever | None = None,
                   figures: Figures | None = None,
                   folders: FolderFiles | None = None, preferences: Preferences | None = None,
                   contact_llm: bool = True, open_documents_early: bool = False) -> Services:
    """The services over the settings' database, or over `uow` when given (then step 1 is
    skipped); any other adapter given is used instead of the real one (`retriever`: what the
    answer pipeline searches instead of the document library, `figures` what it computes figures
    from; `folders`: followed folders' files
    on disk; `preferences`: where the Settings page saves).

    `contact_llm=False` (commands that never ask the model) skips steps 2 and 5; tokens are then
    counted with the profile's tokenizer, and the services that talk to the server (`chat`,
    `stateless`, `llm`) are built at their first use: the server's client (httpx) and the answer
    pipeline are not imported by a command that lists conversations or syncs folders (docs/perf/
    cli-start.md). `open_documents_early=True` (a process about to wait for its user's first
    question) opens the document index and loads the embedding model on a thread at once, when
    the library has documents and the server answers; the first search waits for them only if
    they are not ready."""
    settings = settings or Settings()
    keep_library_logs(settings.resolved_data_dir / "logs")
    database = open_database(settings) if uow is None else Database(uow)
    client = Once(lambda: gateway or gateway_for(settings))
    info = _server_info(settings, client()) if contact_llm else None
    adapters = adapters_for(settings, client, info,
                            index_early=open_documents_early and info is not None and _has_documents(database),
                            counter=counter, embedder=embedder, index=index, parser=parser, files=files,
                            renderer=renderer, skills=skills, programs=programs, retriever=retriever, figures=figures,
                            folders=folders, saved=preferences)
    services = wire(settings, database, adapters, info)
    if contact_llm:
        services.answering()  # at once: the server is asked now, and its token counts calibrated
    return services


def _server_info(settings: Settings, gateway: ServerGateway) -> ServerInfo | None:
    """What the server says it serves, or None when it does not answer."""
    from docchat.llm.discovery import info_if_up

    return info_if_up(gateway.base_url, api_key=gateway.api_key(), window=settings.llm_window,
                      expected_model=expected_model(settings))


def _has_documents(database: Database) -> bool:
    with database.uow() as work:
        return work.documents.any_ready()

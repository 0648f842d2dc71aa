"""The real adapters a process's services run over, built from the settings: the LLM server's
client and a token counter that follows the model it serves, the embedder and the vector index,
the parsing workers, the stored files, the page renderer, followed folders on disk and the saved
preferences. Each one given is used instead (tests give fakes). Building them opens nothing: the
index opens at its first use, the model loads at its first text, the parsing workers start with
the first file."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from docchat import preferences
from docchat.config import Settings
from docchat.documents.files import StoredFiles
from docchat.store.sheet_tables import SqliteSheetTables
from docchat.documents.folders.disk_files import DiskFolders
from docchat.documents.index.batching import QueryBatcher
from docchat.documents.index.opening import (OpenedEarly, embedder_for, keeps_words_apart, open_chunk_index,
                                             open_word_index)
from docchat.documents.isolated import IsolatedParser
from docchat.documents.render import page_with_passage
from docchat.llm.profiles import CPU_MODEL_NAME, CPU_SAMPLING, CPU_VARIED_SAMPLING, GPU_SAMPLING, guessed_tokenizer
from docchat.llm.server_key import llm_key
from docchat.memory.tokens import ServedCounter, counter_for
from docchat.ports import (Embedder, FileStore, Figures, FolderFiles, PageRenderer, Parser, Preferences, Programs, Retriever,
                           SheetTables, SkillRecord, TokenCounter, WordIndex)
from docchat.services.library_index import ClosableIndex
from docchat.services.registry import Once

if TYPE_CHECKING:
    from docchat.llm.discovery import ServerInfo
    from docchat.llm.gateway import ServerGateway
    from docchat.memory.tokens import ServerCounter

# The LLM server's client, made at its first use (the same one after it).
Client = Callable[[], "ServerGateway"]


@dataclass(frozen=True)
class Adapters:
    """What the services are wired over, beside the database's unit of work."""

    counter: TokenCounter
    client: Client
    embedder: Embedder
    index: Callable[[], ClosableIndex]
    # The chunks by their words, beside a SQLite store (None: PostgreSQL searches them itself).
    words: Callable[[], WordIndex] | None
    parser: Parser
    files: FileStore
    # Spreadsheets' sheets kept as tables, for figures computed over them.
    tables: SheetTables
    renderer: PageRenderer
    folders: FolderFiles
    preferences: Preferences
    skills: SkillRecord | None = None
    programs: Programs | None = None
    # What the answer pipeline searches, and computes figures from, instead of the document
    # library (tests).
    retriever: Retriever | None = None
    figures: Figures | None = None
    # What hears which model the server serves, each time it is asked afresh.
    listeners: tuple[Callable[[ServerInfo], None], ...] = ()


def adapters_for(settings: Settings, client: Client, info: ServerInfo | None, *, index_early: bool = False,
                 counter: TokenCounter | None = None, embedder: Embedder | None = None,
                 index: Callable[[], ClosableIndex] | None = None, parser: Parser | None = None,
                 files: FileStore | None = None, renderer: PageRenderer | None = None,
                 skills: SkillRecord | None = None, programs: Programs | None = None,
                 retriever: Retriever | None = None, figures: Figures | None = None,
                 folders: FolderFiles | None = None,
                 saved: Preferences | None = None) -> Adapters:
    """The settings' adapters, but those given. `info`: what the server said it serves (None
    when it was not asked or did not answer). `index_early`: the index opens, and the embedding
    model loads, on a thread at once (see OpenedEarly)."""
    embedder = embedder or QueryBatcher(embedder_for(settings))
    index = index or partial(open_chunk_index, settings, embedder)
    # One per process, made at its first use: it follows the database's changes as it searches.
    words = Once(partial(open_word_index, settings)) if keeps_words_apart(settings) else None
    if index_early:
        # Before the token counter: its tokenizer loads without holding the GIL, so it loads
        # while that thread imports Qdrant.
        index = OpenedEarly(index, embedder, words)
    listeners: tuple[Callable[[ServerInfo], None], ...] = ()
    if counter is None:  # one built here follows the model the server serves; one given stays as it is
        counter = _following_counter(settings, client, info)
        listeners = (counter.follow,)
    return Adapters(
        counter=counter, client=client, embedder=embedder, index=index, words=words,
        parser=parser or IsolatedParser(timeout_s=settings.parse_timeout_s, memory_mb=settings.parse_memory_mb),
        files=files or StoredFiles(settings.resolved_data_dir),
        tables=SqliteSheetTables(settings.resolved_data_dir, busy_timeout_s=settings.busy_timeout_s),
        renderer=renderer or page_with_passage,
        folders=folders or DiskFolders(skipped=(str(settings.resolved_data_dir),)),
        preferences=saved or preferences.SavedPreferences(settings),
        skills=skills, programs=programs, retriever=retriever, figures=figures, listeners=listeners,
    )


def gateway_for(settings: Settings) -> ServerGateway:
    """The client of the LLM server the settings name (benchmarks also talk to it directly)."""
    from docchat.llm.gateway import Sampling, ServerGateway, Timeouts

    # The profile picks the sampling (the model card's for Qwen3, greedy for the tiny model).
    cpu = settings.llm_profile == "cpu"
    sampling = Sampling(**(CPU_SAMPLING if cpu else GPU_SAMPLING))
    varied = Sampling(**CPU_VARIED_SAMPLING) if cpu else sampling
    return ServerGateway(
        settings.resolved_llm_url,
        expected_model=expected_model(settings),
        api_key=llm_key(settings),
        window=settings.llm_window,
        sampling=sampling,
        varied=varied,
        timeouts=Timeouts(first_token_s=settings.first_token_timeout_s,
                          between_tokens_s=settings.between_tokens_timeout_s,
                          connect_retries=settings.connect_retries),
    )


def expected_model(settings: Settings) -> str | None:
    """The model the user chose; else docchat's own server's; a server given by URL may serve
    any model, so then none is expected by name (the first it lists answers)."""
    if settings.llm_model:
        return settings.llm_model
    return CPU_MODEL_NAME if settings.llm_profile == "cpu" and settings.llm_url is None else None


def _following_counter(settings: Settings, client: Client, info: ServerInfo | None) -> ServedCounter[ServerInfo]:
    """The served model's tokenizer (once it follows the server); until it answers, the profile's."""
    return ServedCounter(lambda: counter_for(*guessed_tokenizer(settings)), served=info,
                         by_server=partial(_counter_asking, client))


def _counter_asking(client: Client, served: ServerInfo) -> ServerCounter | None:
    """A counter that asks the server, for a model docchat has no tokenizer of."""
    from docchat.llm.server_tokens import server_counter

    return server_counter(served, api_key=client().api_key())

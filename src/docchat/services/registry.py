"""The services of one process, as the composition root (docchat.bootstrap) wires them: what
the page, the HTTP API and the commands use."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

if TYPE_CHECKING:  # the types only: each module is imported by what builds its service
    from docchat.config import Settings
    from docchat.ports import Parser, Preferences
    from docchat.services.chat import ChatService
    from docchat.services.conversations import ConversationService
    from docchat.services.documents import DocumentService
    from docchat.services.figures import FigureService
    from docchat.services.folders import FolderService
    from docchat.services.health import HealthService
    from docchat.services.ingestion import IngestionService
    from docchat.services.library_index import IndexService
    from docchat.services.llm import LLMService
    from docchat.services.messages import MessageService
    from docchat.services.retrieval import RetrievalService
    from docchat.services.stateless import StatelessChat
    from docchat.services.transfer import TransferService
    from docchat.services.trash import TrashService


T = TypeVar("T")


class Once(Generic[T]):
    """What `make()` returns, made at the first call and the same at every call after; under a
    lock, so that two threads of a server asking at once get one, not two."""

    def __init__(self, make: Callable[[], T]) -> None:
        self._make = make
        self._lock = threading.Lock()
        self._made: list[T] = []

    def __call__(self) -> T:
        with self._lock:
            if not self._made:
                self._made.append(self._make())
            return self._made[0]


class Held(Protocol):
    """Something one process holds until it lets go of it."""

    def close(self) -> None: ...


@dataclass(frozen=True)
class Answering:
    """The services that talk to the LLM server, built together."""

    chat: ChatService
    stateless: StatelessChat
    llm: LLMService


@dataclass(frozen=True)
class Services:
    settings: Settings
    conversations: ConversationService
    messages: MessageService
    trash: TrashService
    transfer: TransferService
    # The document library: what is in it, adding files, searching it, figures computed over
    # its tables, the vector index's care.
    documents: DocumentService
    ingestion: IngestionService
    retrieval: RetrievalService
    figures: FigureService
    index: IndexService
    folders: FolderService
    health: HealthService
    # The settings the Settings page changes (saved for the next build of the services).
    preferences: Preferences
    # `chat`, `stateless` and `llm`, built together at their first use (the same ones after
    # it): a command that never asks the model does not import the LLM server's client
    # (httpx) or the answer pipeline.
    answering: Callable[[], Answering]
    # What this process holds, let go of by `close`: its claim on the database, a document index
    # opened early on a thread, the parsing workers.
    presence: Held | None = None
    opened_early: Held | None = None
    parser: Parser | None = None
    # What opening the database did to its schema, as the start-up line says it (where the
    # backup made before it is); None when there was nothing to upgrade.
    upgraded: str | None = None

    @property
    def chat(self) -> ChatService:
        return self.answering().chat

    @property
    def stateless(self) -> StatelessChat:
        return self.answering().stateless

    @property
    def llm(self) -> LLMService:
        return self.answering().llm

    def close(self) -> None:
        """Lets go of what one process may hold at a time (the local document index), of its
        claim on the database, and of the parsing workers."""
        self.index.close()
        if self.parser is not None:
            self.parser.close()
        if self.opened_early is not None:
            self.opened_early.close()
        if self.presence is not None:
            self.presence.close()

"""The services of one process, as the composition root (docchat.bootstrap) wires them: what
the page, the HTTP API and the commands use."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from docchat.config import Settings
from docchat.ports import Parser, Preferences
from docchat.services.chat import ChatService
from docchat.services.conversations import ConversationService
from docchat.services.documents import DocumentService
from docchat.services.folders import FolderService
from docchat.services.health import HealthService
from docchat.services.llm import LLMService
from docchat.services.stateless import StatelessChat
from docchat.services.transfer import TransferService
from docchat.services.trash import TrashService


class Held(Protocol):
    """Something one process holds until it lets go of it."""

    def close(self) -> None: ...


@dataclass(frozen=True)
class Services:
    settings: Settings
    conversations: ConversationService
    trash: TrashService
    transfer: TransferService
    chat: ChatService
    stateless: StatelessChat
    documents: DocumentService
    folders: FolderService
    llm: LLMService
    health: HealthService
    # The settings the Settings page changes (saved for the next build of the services).
    preferences: Preferences
    # What this process holds, let go of by `close`: its claim on the database, a document index
    # opened early on a thread, the parsing workers.
    presence: Held | None = None
    opened_early: Held | None = None
    parser: Parser | None = None
    # What opening the database did to its schema, as the start-up line says it (where the
    # backup made before it is); None when there was nothing to upgrade.
    upgraded: str | None = None

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

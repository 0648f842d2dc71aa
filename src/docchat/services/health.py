"""docchat's health in one report: the store, the LLM server, the document library and the
last backup. The Settings page, the API's /health and `docchat doctor` all show this one."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docchat.domain import LibraryHealth, LLMStatus, StoreHealth
from docchat.services.backup import BackupStatus, backup_status
from docchat.services.conversations import ConversationService
from docchat.services.documents import DocumentService
from docchat.services.llm import LLMService


@dataclass(frozen=True)
class HealthReport:
    store: StoreHealth
    llm: LLMStatus
    documents: LibraryHealth
    backup: BackupStatus

    def as_dict(self) -> dict[str, dict[str, Any]]:
        return {part: vars(getattr(self, part)) for part in ("store", "llm", "documents", "backup")}


class HealthService:
    def __init__(self, conversations: ConversationService, llm: LLMService, documents: DocumentService,
                 data_dir: Path):
        self._conversations = conversations
        self._llm = llm
        self._documents = documents
        self._data_dir = data_dir

    def report(self) -> HealthReport:
        return HealthReport(store=self._conversations.health(), llm=self._llm.status(),
                            documents=self._documents.health(), backup=backup_status(self._data_dir))

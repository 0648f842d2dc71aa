"""docchat's health in one report: the store, the LLM server, the document library and the
last backup. The Settings page, the API's /health and `docchat doctor` all show this one."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from docchat.domain import LibraryHealth, LLMStatus, StoreHealth
from docchat.ports import TokenCounter, UnitOfWorkFactory
from docchat.services.backup import BackupStatus, backup_status
from docchat.services.library_index import IndexService


@dataclass(frozen=True)
class HealthReport:
    store: StoreHealth
    llm: LLMStatus
    documents: LibraryHealth
    backup: BackupStatus

    def as_dict(self) -> dict[str, dict[str, Any]]:
        return {part: vars(getattr(self, part)) for part in ("store", "llm", "documents", "backup")}


class HealthService:
    """`llm_status`: the LLM server's state (the LLM service's, asked only for a whole report);
    `database`: where the store is, as shown (its password hidden); `schema_version` reads the
    store's schema revision."""

    def __init__(self, uow: UnitOfWorkFactory, counter: TokenCounter, llm_status: Callable[[], LLMStatus],
                 index: IndexService, data_dir: Path, *, database: str,
                 schema_version: Callable[[], str | None] = lambda: None):
        self._uow = uow
        self._counter = counter
        self._llm_status = llm_status
        self._index = index
        self._data_dir = data_dir
        self._database = database
        self._schema_version = schema_version

    def report(self) -> HealthReport:
        return HealthReport(store=self.store(), llm=self._llm_status(),
                            documents=self._index.health(), backup=backup_status(self._data_dir))

    def store(self) -> StoreHealth:
        with self._uow() as uow:
            counts = uow.conversations.counts()
            integrity = uow.conversations.integrity()
        return StoreHealth(database=self._database, schema_version=self._schema_version(), integrity=integrity,
                           tokenizer=self._counter.id, **counts)

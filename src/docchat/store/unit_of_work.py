"""A unit of work: one connection, one transaction, rolled back unless committed."""

from __future__ import annotations

from sqlalchemy import Engine

from docchat.store.engine import WRITE_OPTION
from docchat.store.documents import DocumentRepository
from docchat.store.folders import FolderRepository
from docchat.store.repository import ConversationRepository


class SqlUnitOfWork:
    def __init__(self, engine: Engine):
        self._engine = engine
        self._connection = None
        self._transaction = None

    def __enter__(self) -> "SqlUnitOfWork":
        self._connection = self._engine.connect()
        self._transaction = self._connection.begin()
        self.conversations = ConversationRepository(self._connection)
        self.documents = DocumentRepository(self._connection)
        self.folders = FolderRepository(self._connection)
        return self

    def commit(self) -> None:
        self._transaction.commit()

    def __exit__(self, *exc) -> None:
        try:
            if self._transaction.is_active:
                self._transaction.rollback()
        finally:
            self._connection.close()


class SqlUnitOfWorkFactory:
    """Thread-safe: shares the engine's pool; each call opens its own unit of work."""

    def __init__(self, engine: Engine):
        self.engine = engine
        self._writer = engine.execution_options(**{WRITE_OPTION: True})

    def __call__(self, *, write: bool = False) -> SqlUnitOfWork:
        return SqlUnitOfWork(self._writer if write else self.engine)

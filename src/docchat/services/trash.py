"""The trash, and what is purged for good: conversations deleted but not purged, restored or
emptied, and the cleanup of what is old."""

from __future__ import annotations

import builtins
from datetime import timedelta

from docchat.domain import CleanupReport, Conversation, utcnow
from docchat.errors import InvalidInput
from docchat.ports import UnitOfWorkFactory
from docchat.services.conversation_log import ConversationLog, stale_conversations


class TrashService:
    # builtins.list: the method named list hides the builtin in this class's annotations.

    def __init__(self, uow: UnitOfWorkFactory, log: ConversationLog):
        self._uow = uow
        self._log = log

    def list(self) -> builtins.list[Conversation]:
        """Deleted conversations, with their message counts, the most recently deleted first."""
        with self._uow() as uow:
            return uow.conversations.deleted_conversations()

    def restore(self, conversation_id: str) -> Conversation:
        """Takes a conversation out of the trash, back where its last update puts it in the list."""
        return self._log.restore(conversation_id)

    def empty(self) -> builtins.list[Conversation]:
        """Purges every conversation in the trash, with its messages; returns those it removed."""
        return self._log.empty_trash()

    def cleanup(self, *, older_than_days: int, dry_run: bool = False) -> CleanupReport:
        """Purges unpinned conversations not updated for `older_than_days` days, and those that
        have been in the trash that long. A conversation in the trash counts from its deletion
        (pinned or not), so one deleted today stays restorable for the whole period."""
        if not isinstance(older_than_days, int) or older_than_days < 1:
            raise InvalidInput("--older-than must be a whole number of days, at least 1")
        cutoff = utcnow() - timedelta(days=older_than_days)
        if not dry_run:
            return CleanupReport(conversations=self._log.purge_stale(cutoff), dry_run=False)
        with self._uow() as uow:
            return CleanupReport(conversations=stale_conversations(uow, cutoff), dry_run=True)

"""The trash, and what is purged for good: conversations deleted but not purged, restored or
emptied, and the cleanup of what is old."""

from __future__ import annotations

import builtins
from datetime import timedelta

from docchat.domain import CleanupReport, Conversation, utcnow
from docchat.errors import InvalidInput, NotFound
from docchat.ports import UnitOfWorkFactory
from docchat.services.conversations import required


class TrashService:
    # builtins.list: the method named list hides the builtin in this class's annotations.

    def __init__(self, uow: UnitOfWorkFactory):
        self._uow = uow

    def list(self) -> builtins.list[Conversation]:
        """Deleted conversations, with their message counts, the most recently deleted first."""
        with self._uow() as uow:
            return uow.conversations.deleted_conversations()

    def restore(self, conversation_id: str) -> Conversation:
        """Takes a conversation out of the trash, back where its last update puts it in the list."""
        with self._uow(write=True) as uow:
            found = uow.conversations.get_conversation(conversation_id, include_deleted=True)
            if found is None:
                raise NotFound(f"no conversation with id {conversation_id} in the trash")
            if found.deleted_at is None:
                raise NotFound(f"“{found.title}” ({conversation_id}) is not in the trash")
            uow.conversations.set_deleted(conversation_id, None)
            restored = required(uow, conversation_id)
            uow.commit()
            return restored

    def empty(self) -> builtins.list[Conversation]:
        """Purges every conversation in the trash, with its messages; returns those it removed."""
        with self._uow(write=True) as uow:
            purged = uow.conversations.deleted_conversations()
            for conversation in purged:
                uow.conversations.purge_conversation(conversation.id)
            uow.commit()
        return purged

    def cleanup(self, *, older_than_days: int, dry_run: bool = False) -> CleanupReport:
        """Purges unpinned conversations not updated for `older_than_days` days, and those that
        have been in the trash that long. A conversation in the trash counts from its deletion
        (pinned or not), so one deleted today stays restorable for the whole period."""
        if not isinstance(older_than_days, int) or older_than_days < 1:
            raise InvalidInput("--older-than must be a whole number of days, at least 1")
        cutoff = utcnow() - timedelta(days=older_than_days)
        with self._uow(write=not dry_run) as uow:
            stale = (uow.conversations.conversations_updated_before(cutoff)
                     + uow.conversations.deleted_conversations(deleted_before=cutoff))
            if not dry_run:
                for conversation in stale:
                    uow.conversations.purge_conversation(conversation.id)
                uow.commit()
        return CleanupReport(conversations=stale, dry_run=dry_run)

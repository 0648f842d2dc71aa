"""The store side of the memory's MessageLog port."""

from __future__ import annotations

from docchat.domain import Message
from docchat.errors import NotFound
from docchat.memory.log import LogState
from docchat.store.unit_of_work import SqlUnitOfWorkFactory


class SqlMessageLog:
    def __init__(self, uow: SqlUnitOfWorkFactory):
        self._uow = uow

    def load(self, conversation_id: str, *, after_seq: int) -> LogState:
        with self._uow() as uow:
            marks = uow.conversations.memory_marks(conversation_id)
            if marks is None:
                raise NotFound(f"no conversation with id {conversation_id}")
            return LogState(uow.conversations.messages(conversation_id, after_seq=after_seq), *marks)

    def append(self, message: Message) -> Message:
        with self._uow(write=True) as uow:
            if not uow.conversations.is_active(message.conversation_id):
                raise NotFound(f"no conversation with id {message.conversation_id}")
            stored = uow.conversations.append_message(message)
            uow.commit()
            return stored

    def set_marks(self, conversation_id: str, *, memory_start_seq: int, pruned_before_seq: int) -> None:
        with self._uow(write=True) as uow:
            uow.conversations.update_conversation(
                conversation_id, memory_start_seq=memory_start_seq, pruned_before_seq=pruned_before_seq
            )
            uow.commit()

    def store_token_counts(self, counts: dict[str, int], tokenizer: str) -> None:
        with self._uow(write=True) as uow:
            uow.conversations.store_token_counts(counts, tokenizer)
            uow.commit()

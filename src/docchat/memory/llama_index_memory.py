"""A conversation's memory as a LlamaIndex BaseMemory, for LlamaIndex code that wants one.

A thin shell over ConversationMemory, which already speaks BaseMemory's interface; only this
module imports LlamaIndex, so docchat's own use of the memory does not wait for it.
"""

from __future__ import annotations

from typing import Any

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.bridge.pydantic import PrivateAttr
from llama_index.core.memory.types import BaseMemory

from docchat.memory.conversation_memory import ConversationMemory


class LlamaIndexMemory(BaseMemory):  # type: ignore[misc]  # LlamaIndex is read as Any (pyproject)
    conversation_id: str

    _memory: ConversationMemory = PrivateAttr()

    @classmethod
    def class_name(cls) -> str:
        return "DocchatConversationMemory"

    @classmethod
    def from_defaults(cls, *, log: Any, conversation_id: str) -> "LlamaIndexMemory":
        """`log`: the conversations' log (docchat.services.conversation_log), which keeps the
        conversation's one memory and writes what it is told."""
        return cls.of(log.memory(conversation_id))

    @classmethod
    def of(cls, memory: ConversationMemory) -> "LlamaIndexMemory":
        shell = cls(conversation_id=memory.conversation_id)
        shell._memory = memory
        return shell

    @property
    def memory(self) -> ConversationMemory:
        """The memory itself, with docchat's own verbs (add, window, prune...)."""
        return self._memory

    def get(self, input: str | None = None, **kwargs: Any) -> list[ChatMessage]:
        return self._memory.get(input, **kwargs)

    def get_all(self) -> list[ChatMessage]:
        return self._memory.get_all()

    def put(self, message: ChatMessage) -> None:
        self._memory.put(message)

    def set(self, messages: list[ChatMessage]) -> None:
        self._memory.set(messages)

    def reset(self) -> None:
        self._memory.reset()

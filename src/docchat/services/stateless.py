"""Answers from history the caller keeps: no stored conversation, the same engine.

The caller's `[{role, content}, ...]` gets the same budget, rewriting and condensation as
a stored conversation; nothing is written. For clients that keep history themselves.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Iterator

from docchat.context.engine import ContextEngine
from docchat.context.rewrite import RECENT_MESSAGES, standalone_query
from docchat.domain import Budget, MemoryStats, Message, Role, Status, utcnow
from docchat.errors import InvalidInput
from docchat.memory.tokens import TokenCounter

ROLES = {role.value for role in Role}


def parse_history(history) -> list[tuple[Role, str]]:
    """Validates caller-supplied history: a list of {role, content} with known roles and text."""
    if not isinstance(history, list):
        raise InvalidInput("history must be a list of {role, content} objects")
    parsed = []
    for number, item in enumerate(history, start=1):
        if not isinstance(item, dict) or set(item) - {"role", "content"} or "role" not in item or "content" not in item:
            raise InvalidInput(f"history item {number} must be an object with exactly 'role' and 'content'")
        if item["role"] not in ROLES:
            raise InvalidInput(f"history item {number}: role must be system, user or assistant, not {item['role']!r}")
        if not isinstance(item["content"], str):
            raise InvalidInput(f"history item {number}: content must be a string")
        parsed.append((Role(item["role"]), item["content"]))
    return parsed


@dataclass
class StatelessTurn:
    budget: Budget
    stats: MemoryStats
    summary: str | None
    stop: threading.Event = field(default_factory=threading.Event)
    answer: str = ""
    usage: dict | None = None
    _deltas: Iterator[str] = field(default=iter(()), repr=False)

    def __iter__(self) -> Iterator[str]:
        return self._deltas

    def text(self) -> str:
        for _ in self:
            pass
        return self.answer


class StatelessChat:
    def __init__(self, chat, engine: ContextEngine, counter: TokenCounter, gateway, programs):
        self._chat = chat
        self._engine = engine
        self._counter = counter
        self._gateway = gateway
        self._programs = programs

    def answer(self, history, question: str) -> StatelessTurn:
        parsed = parse_history(history)
        if not isinstance(question, str) or not question.strip():
            raise InvalidInput("a message cannot be empty")
        started = time.perf_counter()
        info = self._gateway.info()
        now = utcnow()
        messages = [self._message(number, role, content, now) for number, (role, content) in enumerate(parsed, 1)]
        asked = self._message(len(messages) + 1, Role.USER, question, now)
        reserve = self._chat.reserve_for(info.max_model_len)
        assembly = self._engine.assemble(conversation_id="", tail=messages + [asked], summary=None,
                                         max_model_len=info.max_model_len, answer_reserve=reserve)
        rewritten, method = standalone_query(self._programs, messages[-RECENT_MESSAGES:], question)
        budget = self._chat.budget_of(assembly, len(messages) + 1)
        stats = MemoryStats(
            total_messages=len(messages) + 1, total_tokens=sum(m.token_count for m in messages + [asked]),
            kept_verbatim=len(assembly.history) + 1,
            summarised=len(messages) - len(assembly.history) if assembly.new_summary else 0,
            summary_version=1 if assembly.new_summary else None, summary_created_at=None,
            summary_created=assembly.new_summary is not None, compactions=int(bool(assembly.truncated or
                                                                                   assembly.new_summary)),
            counter=self._counter.id, memory_ms=round((time.perf_counter() - started) * 1000, 2),
            rewritten_query=rewritten, rewrite_method=method,
        )
        turn = StatelessTurn(budget=budget, stats=stats,
                             summary=assembly.new_summary.content if assembly.new_summary else None)
        turn._deltas = self._stream(turn, assembly.messages, reserve)
        return turn

    def _message(self, seq: int, role: Role, content: str, now) -> Message:
        return Message(id=f"stateless-{seq}", conversation_id="", seq=seq, role=role, content=content,
                       created_at=now, status=Status.COMPLETE,
                       token_count=self._counter.count_message(role.value, content), tokenizer=self._counter.id)

    def _stream(self, turn: StatelessTurn, messages: list[dict], reserve: int) -> Iterator[str]:
        generation = self._gateway.stream(messages, max_tokens=reserve, stop=turn.stop)
        try:
            for delta in generation:
                turn.answer += delta
                yield delta
        finally:
            generation.close()
            turn.usage = generation.usage

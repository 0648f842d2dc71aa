"""Answers from history the caller keeps: no stored conversation, the same pipeline.

The caller's `[{role, content}, ...]` gets the same budget, rewriting, retrieval (with
citations) and condensation as a stored conversation; nothing is written. For clients
that keep history themselves.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from docchat.context.pipeline import AnswerPipeline, Request
from docchat.domain import AnswerFacts, AnswerForm, Message, Role, Status, utcnow
from docchat.domain.approach import Way
from docchat.errors import InvalidInput
from docchat.ports import Gateway, TokenCounter
from docchat.services.chat import ChatService
from docchat.services.messages import require_message
from docchat.services.turn import Turn
from docchat.text import require_storable

ROLES = {role.value for role in Role}


def parse_history(history: object) -> list[tuple[Role, str]]:
    """Validates caller-supplied history: a list of {role, content} with known roles and text."""
    if not isinstance(history, list):
        raise InvalidInput("history must be a list of {role, content} objects")
    parsed = []
    for number, item in enumerate(history, start=1):
        if not isinstance(item, dict) or set(item) - {"role", "content"} or "role" not in item or "content" not in item:
            raise InvalidInput(f"history item {number} must be an object with exactly 'role' and 'content'")
        if not isinstance(item["role"], str) or item["role"] not in ROLES:
            raise InvalidInput(f"history item {number}: role must be system, user or assistant, not {item['role']!r}")
        if not isinstance(item["content"], str):
            raise InvalidInput(f"history item {number}: content must be a string")
        require_storable(item["content"], f"history item {number}")
        parsed.append((Role(item["role"]), item["content"]))
    return parsed


class StatelessChat:
    """The same pipeline as a stored conversation; the question and answer are only built in memory."""

    def __init__(self, chat: ChatService, pipeline: AnswerPipeline, counter: TokenCounter, gateway: Gateway):
        self._chat = chat
        self._pipeline = pipeline
        self._counter = counter
        self._gateway = gateway

    def answer(self, history: object, question: str, *, document_ids: list[str] | None = None, top_k: int | None = None,
               instructions: str = "", plan: Way | None = None, form: AnswerForm | None = None) -> Turn:
        """`history`: the caller's `[{role, content}, ...]`, oldest first; `document_ids`: the
        documents to search (None: all of them); `top_k`: at most this many passages, retrieved
        even when the documents would fit whole; `instructions`: sent after the system prompt; `plan`:
        how to answer, `form`: how to write it, when the caller chose (None: docchat chooses)."""
        parsed = parse_history(history)
        require_message(question)
        info = self._gateway.info()
        now = utcnow()
        messages = [self._message(number, role, content, now) for number, (role, content) in enumerate(parsed, 1)]

        def keep(sent: str | None, rewritten: str | None) -> Message:
            asked = self._message(len(messages) + 1, Role.USER, question, now, sent_content=sent)
            return replace(asked, rewritten_query=rewritten)

        reserve = self._chat.reserve_for(info.max_model_len)
        request = Request(question=question, history=messages, scope=document_ids, max_passages=top_k,
                          instructions=instructions, plan=plan, quoting=self._chat.writer.quoting(form))
        prepared = self._pipeline.prepare(request,
                                          max_model_len=info.max_model_len, answer_reserve=reserve, keep_question=keep)
        draft = Message(id="stateless-answer", conversation_id="", seq=len(messages) + 2, role=Role.ASSISTANT,
                        content="", created_at=now, status=Status.STREAMING,
                        facts=AnswerFacts(model=info.model, citations=prepared.citations, evidence=prepared.evidence,
                                          approach=prepared.approach, coverage=prepared.coverage,
                                          table=prepared.figure))
        return self._chat.writer.write(prepared, draft, _Unsaved(self._counter), info, chosen=form,
                                       conversation_id=None, max_tokens=reserve)

    def _message(self, seq: int, role: Role, content: str, now: datetime, *, sent_content: str | None = None) -> Message:
        return Message(id=f"stateless-{seq}", conversation_id="", seq=seq, role=role, content=content,
                       created_at=now, status=Status.COMPLETE, sent_content=sent_content, tokenizer=self._counter.id,
                       token_count=self._counter.count_message(role.value, sent_content or content))


class _Unsaved:
    """Keeps nothing: the caller has the answer, and its history."""

    def __init__(self, counter: TokenCounter):
        self._counter = counter

    def checkpoint(self, answer: Message) -> None:
        pass

    def settle(self, answer: Message, *, completing: Turn | None) -> tuple[Message, None]:
        return replace(answer, token_count=self._counter.count_message("assistant", answer.content),
                       tokenizer=self._counter.id), None

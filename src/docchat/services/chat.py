"""Answering: one turn from question to stored answer, streamed.

Write path: the user's message is committed before the LLM is called; the answer is
stored as `streaming` and checkpointed while tokens arrive, then ends `complete`,
`interrupted` (stopped, cut off) or `error`, keeping whatever text arrived. The prompt
never exceeds max_model_len minus the answer reserve: history is trimmed by recency,
system messages always kept.
"""

from __future__ import annotations

import threading
import time
import uuid
from dataclasses import dataclass, field, replace
from typing import Iterator, Protocol

from docchat.domain import Budget, Message, Role, Status, utcnow
from docchat.errors import DocchatError, GenerationStopped, InvalidInput, LLMError, NotFound
from docchat.memory.tokens import TokenCounter
from docchat.services.conversations import ConversationService
from docchat.store.unit_of_work import SqlUnitOfWorkFactory

CHECKPOINT_S = 1.0


class Gateway(Protocol):
    def info(self, *, refresh: bool = False): ...

    def stream(self, messages: list[dict], *, max_tokens: int, stop: threading.Event | None = None): ...


@dataclass
class Turn:
    """A streamed answer: iterate for text deltas; afterwards `answer`, `usage`, `error` are set."""

    conversation_id: str
    question: Message
    budget: Budget | None
    stop: threading.Event = field(default_factory=threading.Event)
    answer: Message | None = None
    usage: dict | None = None
    error: DocchatError | None = None
    _deltas: Iterator[str] = field(default=iter(()), repr=False)

    def __iter__(self) -> Iterator[str]:
        return self._deltas

    def close(self) -> None:
        """Ends the stream now, keeping what arrived as interrupted. Safe to call twice.

        Callers that may be interrupted (a Streamlit rerun) call this in a `finally`: a
        generator left to the garbage collector may be finalised long after.
        """
        self._deltas.close()

    def text(self) -> str:
        """Consumes the stream and returns the whole answer (raises on failure)."""
        for _ in self:
            pass
        return self.answer.content if self.answer else ""


class ChatService:
    def __init__(self, conversations: ConversationService, uow: SqlUnitOfWorkFactory, gateway: Gateway,
                 counter: TokenCounter, *, system_prompt: str, answer_reserve: int | None):
        self._conversations = conversations
        self._uow = uow
        self._gateway = gateway
        self._counter = counter
        self._system_prompt = system_prompt
        self._answer_reserve = answer_reserve

    def answer(self, conversation_id: str | None, question: str) -> Turn:
        """Stores the question, then streams the answer. Bad input changes nothing."""
        if not isinstance(question, str) or not question.strip():
            raise InvalidInput("a message cannot be empty")
        if conversation_id is not None:
            self._conversations.get(conversation_id)
        try:
            info = self._gateway.info()
        except LLMError as error:
            # The question is kept either way; the failure shows when the turn is read.
            stored = self._conversations.post_user_message(conversation_id, question)
            turn = Turn(conversation_id=stored.conversation_id, question=stored, budget=None)
            turn._deltas = self._failed(turn, error)
            return turn
        self._refuse_if_too_long(question, info.max_model_len)
        stored = self._conversations.post_user_message(conversation_id, question)
        return self._turn(stored.conversation_id, stored, info)

    def retry(self, conversation_id: str) -> Turn:
        """Answers the last question again; the failed answer stays in the transcript."""
        history = self._conversations.history(conversation_id)
        questions = [m for m in history if m.role is Role.USER]
        if not questions:
            raise InvalidInput("there is no question to answer again in this conversation")
        try:
            info = self._gateway.info()
        except LLMError as error:
            turn = Turn(conversation_id=conversation_id, question=questions[-1], budget=None)
            turn._deltas = self._failed(turn, error)
            return turn
        return self._turn(conversation_id, questions[-1], info)

    def plan(self, conversation_id: str, max_model_len: int) -> tuple[list[dict], Budget]:
        """The messages to send and how they split the window."""
        reserve = self.reserve_for(max_model_len)
        system_tokens = self._counter.count_message("system", self._system_prompt)
        template = getattr(self._counter, "generation_prompt_tokens", 0)
        room = max_model_len - reserve - system_tokens - template
        memory = self._conversations.memory(conversation_id)
        everything = memory.messages()
        window = memory.window(token_limit=room)
        question_tokens = window[-1].token_count if window and window[-1].role is Role.USER else 0
        history_tokens = sum(m.token_count for m in window) - question_tokens
        budget = Budget(
            max_model_len=max_model_len, answer_reserve=reserve, system=system_tokens,
            history=history_tokens, question=question_tokens, template=template,
            history_messages=len(window) - (1 if question_tokens else 0),
            dropped_messages=len(everything) - len(window),
            counter=self._counter.id, exact=self._counter.exact,
        )
        messages = [{"role": "system", "content": self._system_prompt}]
        messages += [{"role": m.role.value, "content": m.content} for m in window]
        return messages, budget

    def reserve_for(self, max_model_len: int) -> int:
        """The answer reserve: the configured one, never more than a quarter of the window."""
        reserve = self._answer_reserve or 16_384
        return max(16, min(reserve, max_model_len // 4))

    # internals

    def _refuse_if_too_long(self, question: str, max_model_len: int) -> None:
        room = (max_model_len - self.reserve_for(max_model_len)
                - self._counter.count_message("system", self._system_prompt)
                - getattr(self._counter, "generation_prompt_tokens", 0))
        tokens = self._counter.count_message("user", question)
        if tokens > room:
            raise InvalidInput(
                f"this message is too long for the model: {tokens:,} tokens, and the most that fits is {room:,}"
            )

    def _turn(self, conversation_id: str, question: Message, info) -> Turn:
        messages, budget = self.plan(conversation_id, info.max_model_len)
        answer = self._start_answer(conversation_id, info.model)
        turn = Turn(conversation_id=conversation_id, question=question, budget=budget)
        turn._deltas = self._stream(turn, answer, messages, budget)
        return turn

    def _stream(self, turn: Turn, answer: Message, messages: list[dict], budget: Budget) -> Iterator[str]:
        text, last_checkpoint, generation = "", time.monotonic(), None
        status, error_text = Status.INTERRUPTED, None
        try:
            generation = self._gateway.stream(messages, max_tokens=budget.answer_reserve, stop=turn.stop)
            for delta in generation:
                text += delta
                if time.monotonic() - last_checkpoint >= CHECKPOINT_S:
                    self._settle(replace(answer, content=text))
                    last_checkpoint = time.monotonic()
                yield delta
            status = Status.COMPLETE
        except GenerationStopped as stopped:
            turn.error = stopped
        except LLMError as error:
            turn.error, error_text = error, str(error)
            status = Status.INTERRUPTED if text else Status.ERROR
            raise
        except Exception as error:
            error_text, status = f"unexpected failure: {error}", Status.ERROR
            raise
        finally:
            # Also reached when the consumer goes away (GeneratorExit): a closed page, or the
            # Streamlit rerun that the stop button causes. What arrived is kept, as interrupted.
            if generation is not None:
                generation.close()
            turn.usage = generation.usage if generation is not None else None
            turn.answer = self._settle(replace(
                answer, content=text, status=status, usage=turn.usage, error=error_text,
                token_count=self._counter.count_message("assistant", text), tokenizer=self._counter.id,
                model=generation.model if generation is not None else answer.model,
            ))

    def _start_answer(self, conversation_id: str, model: str | None) -> Message:
        message = Message(
            id=str(uuid.uuid4()), conversation_id=conversation_id, seq=0, role=Role.ASSISTANT, content="",
            created_at=utcnow(), status=Status.STREAMING, model=model,
        )
        with self._uow(write=True) as uow:
            if not uow.conversations.is_active(conversation_id):
                raise NotFound(f"no conversation with id {conversation_id}")
            stored = uow.conversations.append_message(message)
            uow.commit()
        return stored

    def _settle(self, message: Message) -> Message:
        with self._uow(write=True) as uow:
            uow.conversations.settle_message(message)
            uow.commit()
        return message

    def _failed(self, turn: Turn, error: LLMError) -> Iterator[str]:
        answer = self._start_answer(turn.conversation_id, None)
        turn.answer = self._settle(replace(answer, status=Status.ERROR, error=str(error)))
        turn.error = error
        raise error
        yield  # a generator, so that the failure shows where the stream is read

"""Answering: one turn from question to stored answer, streamed.

Write path: the user's message is committed before the LLM is called; the answer is
stored as `streaming` and checkpointed while tokens arrive, then ends `complete`,
`interrupted` (stopped, cut off) or `error`, keeping whatever text arrived. The context
engine assembles the prompt; it never exceeds max_model_len minus the answer reserve.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from dataclasses import dataclass, field, replace
from typing import Iterator, Protocol

from docchat.context.engine import ContextEngine
from docchat.context.planner import plan
from docchat.context.prompt import user_turn
from docchat.context.programs import Programs
from docchat.context.session import updated
from docchat.context.rewrite import RECENT_MESSAGES, standalone_query
from docchat.domain import Budget, MemoryStats, Message, Role, Status, utcnow
from docchat.errors import DocchatError, GenerationStopped, InvalidInput, LLMError, NotFound
from docchat.memory.tokens import TokenCounter
from docchat.services.conversations import ConversationService, clean_title, title_from
from docchat.store.unit_of_work import SqlUnitOfWorkFactory

log = logging.getLogger(__name__)

CHECKPOINT_S = 1.0
TITLE_TOKENS = 24
# After a failed condensation, the next try waits this many messages.
CONDENSE_RETRY_AFTER = 8


class Gateway(Protocol):
    def info(self, *, refresh: bool = False): ...

    def stream(self, messages: list[dict], *, max_tokens: int, stop: threading.Event | None = None): ...


@dataclass
class Turn:
    """A streamed answer: iterate for text deltas; afterwards `answer`, `usage`, `error` are set."""

    conversation_id: str
    question: Message
    budget: Budget | None
    stats: MemoryStats | None = None
    session: dict | None = None
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
                 counter: TokenCounter, engine: ContextEngine, *, answer_reserve: int | None,
                 programs: Programs | None = None, documents=None, top_k: int = 4):
        self._conversations = conversations
        self._uow = uow
        self._gateway = gateway
        self._counter = counter
        self._engine = engine
        self._programs = programs
        self._answer_reserve = answer_reserve
        self._documents = documents
        self._top_k = top_k

    def answer(self, conversation_id: str | None, question: str, *, context_chunks: list[str] | None = None) -> Turn:
        """Stores the question, then streams the answer. Bad input changes nothing.

        `context_chunks` (retrieved passages) go into the user turn, before the question, and
        are stored with it as sent, so that later prompts resend them unchanged.
        """
        if not isinstance(question, str) or not question.strip():
            raise InvalidInput("a message cannot be empty")
        if conversation_id is not None:
            self._conversations.get(conversation_id)
        sent = user_turn(question, context_chunks) if context_chunks else None
        try:
            info = self._gateway.info()
        except LLMError as error:
            # The question is kept either way; the failure shows when the turn is read.
            stored = self._conversations.post_user_message(conversation_id, question, sent_content=sent)
            turn = Turn(conversation_id=stored.conversation_id, question=stored, budget=None)
            turn._deltas = self._failed(turn, error)
            return turn
        rewritten, method = self._rewrite(conversation_id, question)
        citations = []
        if context_chunks is None:
            retrieved = self._retrieve(conversation_id, rewritten or question)
            citations = [{"number": n, **r.citation} for n, r in enumerate(retrieved, start=1)]
            if retrieved:
                sent = user_turn(question, [f"{c['document']}, {c['where']}: {c['text']}" for c in citations])
        self._refuse_if_too_long(sent or question, info.max_model_len)
        stored = self._conversations.post_user_message(conversation_id, question, sent_content=sent,
                                                       rewritten_query=rewritten)
        return self._turn(stored.conversation_id, stored, info, rewrite=(rewritten, method), citations=citations)

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

    def reserve_for(self, max_model_len: int) -> int:
        """The answer reserve: the configured one, never more than a quarter of the window."""
        reserve = self._answer_reserve or 16_384
        return max(16, min(reserve, max_model_len // 4))

    # internals

    def _refuse_if_too_long(self, question: str, max_model_len: int) -> None:
        tokens = self._counter.count_message("user", question)
        plan(max_model_len=max_model_len, answer_reserve=self.reserve_for(max_model_len),
             template=self._engine.template_tokens, system=self._engine.system_tokens(), summary=0, chunks=0,
             question=tokens, caps=self._engine.caps)

    def _turn(self, conversation_id: str, question: Message, info, *, rewrite=(None, "none"),
              citations: list | None = None) -> Turn:
        started = time.perf_counter()
        rewritten, method = rewrite
        memory = self._conversations.memory(conversation_id)
        with self._uow() as uow:
            summary = uow.conversations.latest_summary(conversation_id)
        tail, _ = memory.after(summary.last_seq if summary else 0)
        total_messages, total_tokens = memory.count(), memory.token_total()
        reserve = self.reserve_for(info.max_model_len)
        meta = self._conversations.get(conversation_id).metadata
        retry_at = meta.get("condense_after_seq", 0)
        assembly = self._engine.assemble(conversation_id=conversation_id, tail=tail, summary=summary,
                                         max_model_len=info.max_model_len, answer_reserve=reserve,
                                         may_condense=question.seq >= retry_at)
        if assembly.cut_seq is not None:
            memory.forget_before(assembly.cut_seq)
        meta = self._record_compaction(conversation_id, assembly, question, meta)
        budget = self.budget_of(assembly, total_messages)
        stats = MemoryStats(
            total_messages=total_messages, total_tokens=total_tokens,
            kept_verbatim=len(assembly.history) + 1,
            summarised=(assembly.summary.last_seq - assembly.summary.first_seq + 1) if assembly.summary else 0,
            summary_version=assembly.summary.version if assembly.summary else None,
            summary_created_at=assembly.summary.created_at if assembly.summary else None,
            summary_created=assembly.new_summary is not None,
            compactions=meta.get("compactions", 0), counter=self._counter.id,
            memory_ms=round((time.perf_counter() - started) * 1000, 2),
            rewritten_query=rewritten, rewrite_method=method,
        )
        answer = replace(self._start_answer(conversation_id, info.model), citations=citations or [])
        turn = Turn(conversation_id=conversation_id, question=question, budget=budget, stats=stats)
        turn._deltas = self._stream(turn, answer, assembly.messages, budget)
        return turn

    def budget_of(self, assembly, total_messages: int) -> Budget:
        """The budget split of an assembled prompt, for the meter and `ask --json`."""
        p = assembly.plan
        return Budget(
            max_model_len=p.max_model_len, answer_reserve=p.answer_reserve, system=p.system, summary=p.summary,
            chunks=p.chunks, history=sum(m.token_count for m in assembly.history), question=p.question,
            template=p.template, history_messages=len(assembly.history),
            dropped_messages=total_messages - len(assembly.history) - 1,
            counter=self._counter.id, exact=self._counter.exact, history_share=p.history_share,
        )

    def _record_compaction(self, conversation_id: str, assembly, question: Message, current: dict) -> dict:
        """A new summary or a truncation is a compaction: the one event that breaks the prefix."""
        if assembly.new_summary is None and not assembly.truncated and not assembly.condense_error:
            return current  # an ordinary turn writes nothing here
        with self._uow(write=True) as uow:
            changes = {}
            current = uow.conversations.get_conversation(conversation_id).metadata
            if assembly.new_summary is not None:
                uow.conversations.add_summary(assembly.new_summary)
            if assembly.new_summary is not None or assembly.truncated:
                changes["compactions"] = current.get("compactions", 0) + 1
            if assembly.truncated:
                changes["truncations"] = current.get("truncations", 0) + 1
            if assembly.condense_error:
                changes["condense_after_seq"] = question.seq + CONDENSE_RETRY_AFTER
                changes["last_condense_error"] = assembly.condense_error
            meta = uow.conversations.update_metadata(conversation_id, changes)
            uow.commit()
        return meta

    def _rewrite(self, conversation_id: str | None, question: str) -> tuple[str | None, str]:
        """The standalone retrieval query for a follow-up (stored on the question by the caller)."""
        if conversation_id is None:
            return None, "none"
        recent = self._conversations.memory(conversation_id).get_recent(RECENT_MESSAGES)

        def topics() -> list[str]:
            with self._uow() as uow:
                summary = uow.conversations.latest_summary(conversation_id)
            return summary.metadata.get("topics", []) if summary else []

        return standalone_query(self._programs, recent, question, topics=topics)

    def _retrieve(self, conversation_id: str | None, query: str):
        """Passages for the question: within the conversation's scope, its active documents boosted."""
        if self._documents is None:
            return []
        meta = self._conversations.get(conversation_id).metadata if conversation_id else {}
        active = set((meta.get("session") or {}).get("active_documents") or [])
        return self._documents.retrieve(query, top_k=self._top_k, document_ids=meta.get("document_scope"),
                                        active=active)

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
            self._title_after_first_exchange(turn, text)
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
            if status is Status.COMPLETE:
                turn.session = self._remember(turn, turn.answer)

    def _title_after_first_exchange(self, turn: Turn, answer: str) -> None:
        """The first complete exchange names the conversation, unless the user named it."""
        conversation = self._conversations.get(turn.conversation_id)
        if conversation.metadata.get("title_source") == "user" or self._conversations.memory(
                turn.conversation_id).count() > 1:
            return
        title = None
        if self._programs is not None:
            try:
                exchange = f"user: {turn.question.content}\nassistant: {answer}"
                title = clean_title(self._programs.title(exchange, max_tokens=TITLE_TOKENS))
            except Exception as error:  # the provisional title stays
                log.info("titler failed, keeping the first words: %s", error)
        if title is None:
            title = title_from(turn.question.content)
        if title != conversation.title:
            self._conversations.rename(turn.conversation_id, title, source="model")

    def _remember(self, turn: Turn, answer: Message) -> dict:
        cited = answer.citations
        with self._uow(write=True) as uow:
            current = uow.conversations.get_conversation(turn.conversation_id).metadata.get("session")
            session = updated(current, question=turn.question.content, answer=answer.content,
                              documents=[c["document_id"] for c in cited],
                              sections=[f"{c['document']}: {c['where']}" for c in cited])
            uow.documents.add_citations([
                {"message_id": answer.id, "conversation_id": turn.conversation_id, "document_id": c["document_id"],
                 "chunk_id": c["chunk_id"], "number": c["number"], "score": c["score"]} for c in cited])
            uow.conversations.update_metadata(turn.conversation_id, {"session": session})
            uow.commit()
        return session

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

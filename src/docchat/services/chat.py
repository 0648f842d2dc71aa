"""Answering a stored conversation: the answer pipeline, with the conversation saved around it.

Write path: the user's message is committed before the LLM is asked for the answer (the
pipeline hands it back to be kept once its passages are known); the answer is stored as
`streaming` and checkpointed while tokens arrive, then ends `complete`, `interrupted`
(stopped, cut off) or `error`, keeping whatever text arrived. A prompt never exceeds
max_model_len minus the answer reserve. A question the documents do not hold is answered by
docchat itself, without the model (docchat.services.documents_only).
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import replace
from typing import Callable

from docchat.context.citing import Checker, CitationGate
from docchat.context.pipeline import AnswerPipeline, Prepared, Request
from docchat.context.rewrite import RECENT_MESSAGES
from docchat.domain import AnswerForm, ConversationSettings, Message, Role, SessionMemory, Status, TitleSource
from docchat.domain.grounding import DOCUMENTS_ONLY
from docchat.domain.approach import Way
from docchat.domain.turns import last_exchange, may_continue
from docchat.errors import InvalidInput, LLMError, NotFound
from docchat.ports import Gateway, Programs, ServerInfo, TokenCounter, UnitOfWorkFactory
from docchat.services.conversation_log import Compaction, ConversationLog, required
from docchat.services.conversations import ConversationService
from docchat.services.documents_only import NominalServer, refuses
from docchat.services.messages import MessageService, require_message
from docchat.domain.titles import clean_title, title_from
from docchat.services.turn import Turn, streamed
from docchat.services.writing import OWN_WORDS, AnswerWriter

log = logging.getLogger(__name__)

Progress = Callable[[str], None]
# Keeps the question once the pipeline knows how it is sent: (sent content, rewritten query) -> it, stored.
Keep = Callable[[str | None, str | None], Message]
TITLE_TOKENS = 24
# Fewer tokens than this left in the window: continuing an answer would add next to nothing.
MIN_CONTINUATION = 32
# After a failed condensation, the next try waits this many messages.
CONDENSE_RETRY_AFTER = 8


class ChatService:
    def __init__(self, conversations: ConversationService, messages: MessageService, log: ConversationLog,
                 uow: UnitOfWorkFactory, gateway: Gateway, counter: TokenCounter, pipeline: AnswerPipeline, *,
                 answer_reserve: int | None, programs: Programs | None = None, documents_only: bool = False,
                 quoted_answers: bool = False, checker: Checker | None = None, citation_gate: CitationGate | None = None):
        self._conversations = conversations
        self._messages = messages
        self._log = log
        # What conversations that never chose do: answer from their documents only; quote them.
        self._documents_only = documents_only
        self._quoted_answers = quoted_answers
        self._uow = uow
        self._gateway = gateway
        self._pipeline = pipeline
        self._answer_reserve = answer_reserve
        self._pending: set[threading.Thread] = set()
        self._background_lock = threading.Lock()
        # How each new answer is written (its form, and the check of its citations).
        self.writer = AnswerWriter(gateway, checker=checker, citation_gate=citation_gate, background=self._background)
        self._saver = _Saved(log, counter, conversations, programs, self._background)

    def answer(self, conversation_id: str | None, question: str, *, plan: Way | None = None,
               form: AnswerForm | None = None, progress: Progress = lambda stage: None) -> Turn:
        """Stores the question, then streams the answer. Bad input changes nothing.

        `plan`: how to answer, when the user chose (docchat.domain.approach); None: docchat chooses.
        `form`: how to write it (docchat.domain.grounding.AnswerForm); None: the citation gate
        chooses.
        `progress(stage)` hears, in words, what the turn is doing before the model's first token.
        """
        require_message(question)

        def keep(sent: str | None, rewritten: str | None) -> Message:
            return self._messages.post_user_message(conversation_id, question, sent_content=sent,
                                                    rewritten_query=rewritten)

        try:
            info, unavailable = self._server(conversation_id, form)
        except LLMError as error:
            # The question is kept either way; the failure shows when the turn is read.
            return self._failed(self._messages.post_user_message(conversation_id, question), error)
        return self._turn(conversation_id, question, info, keep, progress, unavailable=unavailable, plan=plan,
                          form=form)

    def _server(self, conversation_id: str | None, form: AnswerForm | None = None) -> tuple[ServerInfo, LLMError | None]:
        """The server to plan against. With none answering, unless the user asked for the model's
        own words, plans against a nominal one, with the failure kept: what the documents do not
        hold needs no model, nor do quotes or what docchat states (a figure, the collection, a
        comparison), so the question is judged first and fails for want of a server only if the
        model must write its answer. Otherwise the failure is raised."""
        try:
            return self._gateway.info(), None
        except LLMError as error:
            settings = self._settings(conversation_id)
            form = form if form is not None else self._form(settings)
            if form not in OWN_WORDS or self.documents_only(settings):
                return NominalServer(), error
            raise

    def documents_only(self, settings: ConversationSettings) -> bool:
        """Whether a conversation with these settings answers from its documents only (not
        chosen: the default)."""
        return self._documents_only if settings.documents_only is None else settings.documents_only

    def quotes(self, settings: ConversationSettings) -> bool:
        """Whether a conversation with these settings has its answers quoted from its documents
        (not chosen: the default)."""
        return self._form(settings) is AnswerForm.QUOTED

    def _settings(self, conversation_id: str | None) -> ConversationSettings:
        return ConversationSettings() if conversation_id is None else self._conversations.get(conversation_id).settings

    def _form(self, settings: ConversationSettings) -> AnswerForm | None:
        """The form the conversation asks for: quoted, or None (the citation gate chooses)."""
        quoted = self._quoted_answers if settings.quoted_answers is None else settings.quoted_answers
        return AnswerForm.QUOTED if quoted else None

    def retry(self, conversation_id: str, *, plan: Way | None = None, form: AnswerForm | None = None,
              progress: Progress = lambda stage: None) -> Turn:
        """Answers the last question again (regenerate). An answer it already had is kept as an
        earlier version, hidden; the new one is shown and the history follows it. With `plan`,
        the question is asked again with that plan, a new version of it (see `edit`); with
        `form`, the answer is written in that form (quoted, or in the model's own words)."""
        asked, answered = last_exchange(self._messages.history(conversation_id))
        if asked is None:
            raise InvalidInput("there is no question to answer again in this conversation")
        if plan is not None:
            # A question is kept as it was sent, passages and all, and another plan sends other
            # passages: it is asked again as a new version of the question, as an edit is.
            return self.edit(conversation_id, asked.id, asked.content, plan=plan, form=form, progress=progress)
        version_of = answered.group if answered is not None else None
        try:
            info, unavailable = self._server(conversation_id, form)
        except LLMError as error:
            return self._failed(asked, error, version_of=version_of)
        return self._turn(conversation_id, asked.content, info, lambda sent, rewritten: asked, progress,
                          before_seq=asked.seq, version_of=version_of, unavailable=unavailable, form=form)

    def edit(self, conversation_id: str, question_id: str, text: str, *, plan: Way | None = None,
             form: AnswerForm | None = None, progress: Progress = lambda stage: None) -> Turn:
        """Asks an earlier question again, as edited. The edit starts a branch where the question
        was asked: the question as it was, and everything after it, become an earlier version
        (hidden, kept); the model is sent only what came before the question."""
        require_message(text)
        asked = next((m for m in self._messages.history(conversation_id)
                      if m.id == question_id and m.shown and m.role is Role.USER), None)
        if asked is None:
            raise NotFound(f"no question with id {question_id} in view in this conversation")

        def keep(sent: str | None, rewritten: str | None) -> Message:
            # Only now, once the edit is not refused: a refused edit leaves the branch in view.
            return self._messages.post_user_message(conversation_id, text, sent_content=sent,
                                                    rewritten_query=rewritten, version_of=asked.group)

        try:
            info, unavailable = self._server(conversation_id, form)
        except LLMError as error:
            return self._failed(keep(None, None), error)
        return self._turn(conversation_id, text, info, keep, progress, before_seq=asked.seq, unavailable=unavailable,
                          plan=plan, form=form)

    def continue_answer(self, conversation_id: str, *, progress: Progress = lambda stage: None) -> Turn:
        """Goes on writing the last answer, cut at the token limit, into the same message: the
        model is sent the same prompt with the answer so far as its own unfinished turn."""
        asked, cut = last_exchange(self._messages.history(conversation_id))
        if asked is None or cut is None or not may_continue(cut):
            raise InvalidInput("only an answer cut at the length limit can be continued")
        try:
            info, unavailable = self._server(conversation_id)
        except LLMError as error:
            return self._unchanged(asked, cut, error)
        if unavailable is None and not info.continues_answers:
            raise InvalidInput(f"{info.server} starts a new answer instead of going on with this one: "
                               "ask for the rest instead")
        return self._turn(conversation_id, asked.content, info, lambda sent, rewritten: asked, progress,
                          before_seq=asked.seq, continuing=cut, unavailable=unavailable)

    def wait_for_background(self, timeout_s: float) -> None:
        """Lets work started after an answer (its title) finish: a command about to exit calls it."""
        deadline = time.monotonic() + timeout_s
        with self._background_lock:
            pending = list(self._pending)
        for work in pending:
            work.join(max(0.0, deadline - time.monotonic()))

    def _background(self, work: Callable[[], object]) -> None:
        def run() -> None:
            try:
                work()
            except Exception:  # a nicety failed: nothing the user asked for depends on it
                log.exception("work after an answer failed")
            finally:
                with self._background_lock:
                    self._pending.discard(threading.current_thread())

        thread = threading.Thread(target=run, name="docchat-after-answer", daemon=True)
        with self._background_lock:
            self._pending.add(thread)
        thread.start()

    @property
    def longest_answer(self) -> int | None:
        """The longest answer asked for, as set (or the profile's)."""
        return self._answer_reserve

    def reserve_for(self, max_model_len: int) -> int:
        """The answer reserve: the configured one, never more than a quarter of the window."""
        reserve = self._answer_reserve or 16_384
        return max(16, min(reserve, max_model_len // 4))

    # internals

    def _request(self, conversation_id: str | None, question: str, *,
                 before_seq: int | None = None) -> tuple[Request, tuple[int, int], ConversationSettings]:
        """What the pipeline needs of the stored conversation, read in one unit of work, the
        memory's marks then, and the conversation's settings; `before_seq`: the question is
        stored already (a retry), and only what came before it is history."""
        if conversation_id is None:
            return Request(question=question, history=[]), (1, 1), ConversationSettings()
        memory = self._log.memory(conversation_id)
        with self._uow() as uow:
            settings = required(uow, conversation_id).settings
            summary = uow.conversations.latest_summary(conversation_id, before_seq=before_seq)
            next_seq = uow.conversations.last_seq(conversation_id) + 1
            view = memory.read(uow.conversations)
        history, _ = view.after(summary.last_seq if summary else 0)
        total_messages, total_tokens = view.count(), view.token_total()
        if before_seq is not None:
            asked = [m for m in history if m.seq >= before_seq]
            history = [m for m in history if m.seq < before_seq]
            total_messages -= len(asked)
            total_tokens -= sum(m.token_count or 0 for m in asked)
            next_seq = before_seq
        answers = [m for m in history if m.role is Role.ASSISTANT]
        return Request(
            question=question, history=history, summary=summary, conversation_id=conversation_id,
            scope=list(settings.document_scope) if settings.document_scope is not None else None,
            active_documents=frozenset(settings.session.active_documents),
            # Citations imported from older exports may name no chunk.
            cited_chunks=frozenset(c.chunk_id for c in answers[-1].facts.citations) - {""} if answers else frozenset(),
            recent=[m for m in view.recent(RECENT_MESSAGES + 1) if m.seq < next_seq][-RECENT_MESSAGES:],
            total_messages=total_messages, total_tokens=total_tokens,
            compactions=settings.compactions, may_condense=next_seq >= settings.condense_after_seq,
            instructions=settings.instructions,
        ), view.marks, settings

    def _turn(self, conversation_id: str | None, question: str, info: ServerInfo, keep: Keep, progress: Progress, *,
              before_seq: int | None = None, continuing: Message | None = None,
              version_of: str | None = None, unavailable: LLMError | None = None, plan: Way | None = None,
              form: AnswerForm | None = None) -> Turn:
        request, marks, settings = self._request(conversation_id, question, before_seq=before_seq)
        # A cut answer goes on while the model answers; without one, it is judged as a new answer.
        documents_only = self.documents_only(settings) and (continuing is None or unavailable is not None)
        form = form if form is not None else self._form(settings)
        request = replace(request, plan=plan, quoting=continuing is None and self.writer.quoting(form))
        if unavailable is not None:
            # Planned against a nominal window: nothing may be condensed or cut for good by it.
            request = replace(request, may_condense=False)
        reserve = self.reserve_for(info.max_model_len)
        prepared = self._pipeline.prepare(request, max_model_len=info.max_model_len, answer_reserve=reserve,
                                          keep_question=keep, progress=progress)
        prepared = replace(prepared, budget=replace(prepared.budget, window_source=info.window_source))
        conversation_id = prepared.question.conversation_id
        # Planned against a nominal window (no server), the turn changes nothing for good.
        compaction = _compaction(prepared, marks) if unavailable is None else None

        if continuing is not None and documents_only and refuses(prepared):
            # A cut answer that cannot go on: the reply becomes its new version, the cut one kept.
            version_of = continuing.group
            continuing = None
        if unavailable is not None and not (continuing is None and
                                            self.writer.writable(prepared, form, documents_only=documents_only)):
            if continuing is not None:
                return self._unchanged(prepared.question, continuing, unavailable)
            return self._failed(prepared.question, unavailable, version_of=version_of)
        if continuing is None:
            started = self._messages.start_answer(conversation_id, model=info.model, version_of=version_of,
                                                  compaction=compaction)
            draft = started.with_facts(citations=prepared.citations, budget=prepared.budget, stats=prepared.stats,
                                       evidence=prepared.evidence, approach=prepared.approach,
                                       coverage=prepared.coverage, table=prepared.figure)
            return self.writer.write(prepared, draft, self._saver, info, chosen=form, conversation_id=conversation_id,
                                     max_tokens=reserve, varied=version_of is not None, served=unavailable is None,
                                     documents_only=documents_only)
        else:
            draft, prefix = replace(continuing, status=Status.STREAMING), continuing.content
            # The answer so far now sits in the prompt, so the rest gets what the window has left.
            max_tokens = min(reserve, info.max_model_len - prepared.budget.prompt - (continuing.token_count or 0))
            if max_tokens < MIN_CONTINUATION:
                raise InvalidInput("the window has no room left to continue this answer; ask for the rest instead")
            if compaction is not None:
                self._log.compact(conversation_id, compaction)
            constraint = self.writer.rest_of(info, continuing, prepared)
        return streamed(prepared, draft, self._saver, self._gateway, max_tokens=max_tokens,
                        conversation_id=conversation_id, prefix=prefix, checker=self.checker, constraint=constraint)

    @property
    def checker(self) -> Checker | None:
        """Checks each finished answer's citations (none: answers are kept unchecked)."""
        return self.writer.checker

    @checker.setter
    def checker(self, checker: Checker | None) -> None:
        self.writer.checker = checker

    def _unchanged(self, question: Message, cut: Message, error: LLMError) -> Turn:
        """The answer as it was cut stays; this try fails where the stream is read, as its siblings do."""
        return Turn(conversation_id=question.conversation_id, question=question, draft=cut, budget=None,
                    saver=_Unchanged(cut), failure=error)

    def _failed(self, question: Message, error: LLMError, *, version_of: str | None = None) -> Turn:
        draft = self._messages.start_answer(question.conversation_id, model=None, version_of=version_of)
        return Turn(conversation_id=question.conversation_id, question=question, draft=draft, budget=None,
                    saver=self._saver, failure=error)


def _compaction(prepared: Prepared, marks: tuple[int, int]) -> Compaction | None:
    """What preparing the turn changed for good, None for an ordinary turn: a new summary, a
    truncation (its cut leaves the memory), a failed condensation to try again later."""
    assembly = prepared.assembly
    cut = assembly.cut_seq if assembly.cut_seq is not None and assembly.cut_seq > marks[1] else None
    if cut is None and assembly.new_summary is None and not assembly.truncated and not assembly.condense_error:
        return None
    return Compaction(
        memory_start_seq=marks[0], pruned_before_seq=cut, summary=assembly.new_summary,
        truncated=bool(assembly.truncated), condense_error=assembly.condense_error or None,
        condense_after_seq=prepared.question.seq + CONDENSE_RETRY_AFTER)


class _Unchanged:
    """The saver of a continuation that could not start: the answer as it was cut stays as stored."""

    def __init__(self, cut: Message):
        self._cut = cut

    def checkpoint(self, answer: Message) -> None:
        pass

    def settle(self, answer: Message, *, completing: Turn | None) -> tuple[Message, None]:
        return self._cut, None


class _Saved:
    """How a stored conversation keeps an answer: checkpoints, then the settled row with the
    session memory and what the answer cited (one unit of work), then the title after the
    first exchange."""

    def __init__(self, log: ConversationLog, counter: TokenCounter, conversations: ConversationService,
                 programs: Programs | None, background: Callable[[Callable[[], None]], None]):
        self._log = log
        self._counter = counter
        self._conversations = conversations
        self._programs = programs
        self._background = background

    def checkpoint(self, answer: Message) -> None:
        self._log.checkpoint(answer)

    def settle(self, answer: Message, *, completing: Turn | None) -> tuple[Message, SessionMemory | None]:
        answer = replace(answer, token_count=self._counter.count_message("assistant", answer.content),
                         tokenizer=self._counter.id)
        # A documents-only reply cited nothing: the passages it offers are only the closest there were.
        session = self._log.settle(answer, asked=completing.question.content if completing is not None else None,
                                   cited=[] if answer.facts.model == DOCUMENTS_ONLY else answer.cited)
        if completing is not None and completing.stats is not None and completing.stats.total_messages <= 1:
            # The titler is an LLM call (and, the first time, seconds of importing DSPy): the
            # answer is done without it, and the page must not wait for it to show the answer.
            question = completing.question.content
            self._background(lambda: self._title_after_first_exchange(answer.conversation_id, question,
                                                                      answer.content))
        return answer, session

    def _title_after_first_exchange(self, conversation_id: str, question: str, answer: str) -> None:
        """The first complete exchange names the conversation, unless the user named it."""
        conversations, programs = self._conversations, self._programs
        conversation = conversations.get(conversation_id)
        if conversation.settings.title_source is TitleSource.USER:
            return
        title = None
        if programs is not None:
            try:
                title = clean_title(programs.title(f"user: {question}\nassistant: {answer}", max_tokens=TITLE_TOKENS))
            except Exception as error:  # the provisional title stays
                log.info("titler failed, keeping the first words: %s", error)
        if title is None:
            title = title_from(question)
        if title != conversation.title:
            conversations.rename(conversation_id, title, source=TitleSource.MODEL)


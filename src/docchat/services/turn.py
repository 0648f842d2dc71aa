"""One answer, streamed: the same type for stored and stateless answers.

A turn reads the LLM's deltas, hands the text to its `Saver` now and then (a stored
conversation checkpoints it; a stateless one keeps nothing) and settles the answer once
the stream ends, however it ends: `complete`, `interrupted` (stopped, cut off, the reader
gone) or `error`, keeping whatever text arrived.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Generator, Iterator, Protocol

from docchat.context.citing import Checker
from docchat.context.pipeline import Prepared
from docchat.context.quotes import chosen_quotes, documents_text, quotes_text
from docchat.domain import (FINISHED, AnswerForm, Budget, Citation, EvidenceStrength, Grounding, Judgement,
                            MemoryStats, Message, SessionMemory, Status)
from docchat.domain.approach import Way
from docchat.domain.grounding import DOCUMENTS_ONLY, QUOTED_BY, STATED_BY, Constraint, marks_in, unclaimed
from docchat.domain.stated import figures_of, stated_text
from docchat.grounding.numbers import check_numbers
from docchat.errors import DocchatError, GenerationStopped, LLMError
from docchat.ports import Gateway, Generation
from docchat.services.documents_only import Reply, offered, reply_text
from docchat.services.lead import LeadWriter
from docchat.text import NUL

CHECKPOINT_S = 1.0
log = logging.getLogger(__name__)


class Saver(Protocol):
    def checkpoint(self, answer: Message) -> None: ...

    def settle(self, answer: Message, *, completing: "Turn | None") -> tuple[Message, SessionMemory | None]:
        """The answer as it ended, as kept (with its token count); when it completes `completing`,
        also what the conversation now remembers (session memory), kept with it."""


@dataclass(eq=False)
class Turn:
    """Iterate for text deltas; afterwards `answer`, `usage`, `error` (and `session`) are set.

    `start(stop)` begins the generation; a turn made with `failure` instead raises it where
    the stream is read, after settling the answer as an error.
    """

    conversation_id: str | None
    question: Message
    draft: Message
    budget: Budget | None
    saver: Saver
    start: Callable[[threading.Event], Generation] | None = None
    failure: DocchatError | None = None
    stats: MemoryStats | None = None
    citations: list[Citation] = field(default_factory=list)
    # Whether the documents in scope held the answer (None: nothing was searched).
    evidence: EvidenceStrength | None = None
    summary: str | None = None
    stop: threading.Event = field(default_factory=threading.Event)
    answer: Message | None = None
    usage: dict[str, Any] | None = None
    error: DocchatError | None = None
    session: SessionMemory | None = None
    # The answer so far when the turn continues one cut at the token limit; deltas add to it.
    prefix: str = ""
    checker: Checker | None = None
    # What docchat wrote at the start of the answer (a figure it states): not the model's, so
    # not checked as the model's claims are; its marks are among those the answer cites.
    docchat_wrote: str = ""
    # The quotes docchat chose, which end a quoted answer: the passages' own numbers, unchecked.
    docchat_quoted: str = ""

    def __post_init__(self) -> None:
        self._deltas = self._run()
        self._closed_because: str | None = None

    def __iter__(self) -> Iterator[str]:
        return self._deltas

    def close(self, why: str | None = None) -> None:
        """Ends the stream now, keeping what arrived as interrupted, with `why` when the reader
        can say (none: its user stopped it). Safe to call twice.

        Callers that may be interrupted (a Streamlit rerun) call this in a `finally`: a
        generator left to the garbage collector may be finalised long after.
        """
        self._closed_because = why
        self._deltas.close()

    def interrupted_by(self, why: str | None) -> None:
        """Says what interrupted an answer, when the reader learns it only after the answer was
        settled (a page's next run knows whether Stop was pressed); kept with the answer. An
        answer that the LLM server cut keeps the server's reason."""
        answer = self.answer
        if (answer is not None and answer.status is Status.INTERRUPTED and not isinstance(self.error, LLMError)
                and answer.facts.error != why):
            self.answer = answer.with_facts(error=why)
            self.saver.checkpoint(self.answer)  # the settled row again, with its reason

    def text(self) -> str:
        """Consumes the stream and returns the whole answer (raises on failure)."""
        for _ in self:
            pass
        return self.answer.content if self.answer else ""

    def _run(self) -> Generator[str, None, None]:
        text, last_checkpoint, generation = self.prefix, time.monotonic(), None
        status, error_text = Status.INTERRUPTED, None
        try:
            if self.failure is not None:
                raise self.failure
            assert self.start is not None  # a turn has one or the other
            generation = self.start(self.stop)
            for delta in generation:
                # The model's text is a reading, not the user's words: a NUL in it (a byte token),
                # which no PostgreSQL text holds, is shown and kept as U+FFFD (see docchat.text).
                delta = delta.replace(NUL, "\ufffd")
                text += delta
                if time.monotonic() - last_checkpoint >= CHECKPOINT_S:
                    self.saver.checkpoint(replace(self.draft, content=text))
                    last_checkpoint = time.monotonic()
                yield delta
            status = Status.TRUNCATED if generation.finish_reason == "length" else Status.COMPLETE
        except GenerationStopped as stopped:
            self.error = stopped
        except LLMError as error:
            self.error, error_text = error, str(error)
            status = Status.INTERRUPTED if text else Status.ERROR
            raise
        except Exception as error:
            error_text, status = f"unexpected failure: {error}", Status.ERROR
            raise
        finally:
            # Also reached when the reader goes away (GeneratorExit): a closed page, or the
            # Streamlit rerun that the stop button causes. What arrived is kept, as interrupted.
            if generation is not None:
                generation.close()
            self.usage = generation.usage if generation is not None else None
            if status is Status.INTERRUPTED and error_text is None:
                error_text = self._closed_because
            # A continued answer was remembered when it was first cut.
            completing = self if status in FINISHED and not self.prefix else None
            drafted = self.draft.facts
            self.answer, self.session = self.saver.settle(replace(
                self.draft, content=text, status=status, facts=replace(
                    drafted, usage=self.usage, error=error_text,
                    model=generation.model if generation is not None else drafted.model,
                    grounding=self._checked(text) if status in FINISHED else drafted.grounding),
            ), completing=completing)

    def _checked(self, text: str) -> Grounding | None:
        """The answer's citations checked, once it is whole (a continued one: all of it again):
        what the model wrote, that is; docchat's own sentences and quotes are cited, not checked."""
        if self.checker is None:
            return None
        given = list(self.draft.facts.citations or self.citations)
        start, end = self._models_part(text)
        try:
            # With no passage given (no documents in scope), the model was asked as any chatbot is.
            numbers = check_numbers(text, sources=[c.text for c in given], figures=figures_of(self.draft.facts.table),
                                    question=self.question.content, spans=[(start, end)] if start < end else []) \
                if given else None
            if (start, end) == (0, len(text)):
                return self.checker(text, given, numbers)
            models = text[start:end]
            checked = self.checker(models, given, numbers) if models.strip() else Grounding(numbers=numbers)
        except Exception:  # the answer is kept unchecked rather than lost
            log.exception("the citation check failed")
            return None
        if checked is None:
            return None
        return replace(checked, cited=tuple(dict.fromkeys((*marks_in(text[:start]), *checked.cited,
                                                           *marks_in(text[end:])))))

    def _models_part(self, text: str) -> tuple[int, int]:
        """Where in the answer the model wrote: after what docchat wrote at its start and before
        the quotes docchat chose (of a quoted answer: the lead, if a model wrote one)."""
        start = len(self.docchat_wrote) if text.startswith(self.docchat_wrote) else 0
        end = len(text) - len(self.docchat_quoted) if self.docchat_quoted and text.endswith(self.docchat_quoted) \
            else len(text)
        return start, max(start, end)


def streamed(prepared: Prepared, draft: Message, saver: Saver, gateway: Gateway, *, max_tokens: int,
             conversation_id: str | None, prefix: str = "", varied: bool = False,
             checker: Checker | None = None, constraint: Constraint | None = None) -> Turn:
    """The turn that streams the answer to a prepared prompt: stored or stateless, the same.
    `prefix`: the answer so far, which the model goes on writing, in the form it was begun in;
    `varied`: a new version; `constraint`: the pattern the answer is written under (after `prefix`:
    the rest of its pattern, docchat.context.citing_rest)."""
    messages = prepared.assembly.messages
    if prefix:
        messages = [*messages, {"role": "assistant", "content": prefix}]
    else:
        draft = draft.with_facts(form=AnswerForm.FREE if constraint is None else AnswerForm.CONSTRAINED)
    # A figure docchat stated, cut in the model's words after it, goes on: docchat's part stays its own.
    table = draft.facts.table
    opening = f"{stated_text(table)}\n\n" if prefix and draft.facts.form is AnswerForm.STATED and table else ""
    summary = prepared.assembly.new_summary
    # The model's own answer to what the documents do not hold does not claim them as its source.
    own = not prefix and prepared.evidence is not None and prepared.evidence.judgement is Judgement.NOT_FOUND

    def start(stop: threading.Event) -> Generation:
        generation = gateway.stream(messages, max_tokens=max_tokens, stop=stop, continue_last=bool(prefix),
                                    varied=varied, conversation=conversation_id, constraint=constraint)
        return _Unclaimed(generation) if own else generation

    return Turn(conversation_id=conversation_id, question=prepared.question, draft=draft, budget=prepared.budget,
                stats=prepared.stats, citations=prepared.citations, evidence=prepared.evidence, saver=saver,
                prefix=prefix, checker=checker, docchat_wrote=opening,
                summary=summary.content if summary else None, start=start)


def quoted(prepared: Prepared, draft: Message, saver: Saver, *, conversation_id: str | None,
           checker: Checker | None = None, lead: LeadWriter | None = None) -> Turn:
    """The turn of an answer docchat quotes from the passages (docchat.context.quotes), for a
    model that cannot cite what it is given: no model is asked, so there is no prompt budget,
    unless `lead` writes one sentence above the quotes (kept only if they hold it)."""
    question = prepared.question
    # A follow-up is quoted for what it was searched as, too ("Is it paid?" after parental leave).
    # The collection and a comparison quote each document that holds the question's words, not
    # the best three passages: three of twelve contracts answer "which of my contracts…" in part.
    per_document = prepared.approach.way in (Way.COLLECTION, Way.COMPARE)
    quotes = chosen_quotes(question.content, prepared.citations,
                           context=question.rewritten_query or question.read_with or "", per_document=per_document)
    left_out = prepared.coverage.left_out if prepared.coverage is not None else ()
    text = documents_text(quotes, prepared.citations, side_by_side=prepared.approach.way is Way.COMPARE,
                          left_out=left_out, order=prepared.approach.documents,
                          question=question.content) if per_document else quotes_text(quotes)
    draft = draft.with_facts(form=AnswerForm.QUOTED, model=QUOTED_BY, budget=None)

    def start(stop: threading.Event) -> Reply:
        written = lead.lead(question.content, quotes, stop) if lead is not None and quotes else None
        if lead is None or written is None:
            return Reply(text, model=QUOTED_BY)
        return Reply(f"{written}\n\n{text}", model=lead.model)

    return Turn(conversation_id=conversation_id, question=question, draft=draft, budget=None, stats=prepared.stats,
                citations=prepared.citations, evidence=prepared.evidence, saver=saver, checker=checker, start=start,
                docchat_quoted=text)


def replied(prepared: Prepared, draft: Message, saver: Saver, *, conversation_id: str | None) -> Turn:
    """The turn of docchat's reply to a question its documents do not answer: no model is asked;
    its sources are the nearest passages, which it names. No budget: no prompt was sent."""
    offers = offered(prepared)
    draft = draft.with_facts(model=DOCUMENTS_ONLY, citations=offers, budget=None)
    return Turn(conversation_id=conversation_id, question=prepared.question, draft=draft, budget=None,
                stats=prepared.stats, citations=offers, evidence=prepared.evidence, saver=saver,
                start=lambda stop: Reply(reply_text(offers)))


def stated(prepared: Prepared, draft: Message, saver: Saver, gateway: Gateway | None, *, max_tokens: int,
           conversation_id: str | None, checker: Checker | None = None, varied: bool = False) -> Turn:
    """The turn of an answer that states the figure docchat computed (docchat.domain.stated),
    cited to the passage holding it; `gateway`: the model whose words follow it, prompted as a
    free answer is (None: docchat's statement is the whole answer, and no model is asked)."""
    assert prepared.figure is not None  # a stated answer states a figure
    statement = stated_text(prepared.figure)
    if gateway is None:
        draft = draft.with_facts(form=AnswerForm.STATED, model=STATED_BY, budget=None)
        return Turn(conversation_id=conversation_id, question=prepared.question, draft=draft, budget=None,
                    stats=prepared.stats, citations=prepared.citations, evidence=prepared.evidence, saver=saver,
                    checker=checker, docchat_wrote=statement, start=lambda stop: Reply(statement, model=STATED_BY))
    opening = f"{statement}\n\n"
    messages = prepared.assembly.messages

    def start(stop: threading.Event) -> Generation:
        return _Opened(opening, gateway.stream(messages, max_tokens=max_tokens, stop=stop, varied=varied,
                                               conversation=conversation_id))

    return Turn(conversation_id=conversation_id, question=prepared.question,
                draft=draft.with_facts(form=AnswerForm.STATED), budget=prepared.budget, stats=prepared.stats,
                citations=prepared.citations, evidence=prepared.evidence, saver=saver, checker=checker,
                docchat_wrote=opening, start=start)


class _Opened:
    """A generation whose text docchat opens: `opening`, then the model's deltas."""

    def __init__(self, opening: str, generation: Generation) -> None:
        self._opening = opening
        self._generation = generation

    @property
    def model(self) -> str:
        return self._generation.model

    @property
    def usage(self) -> dict[str, Any] | None:
        return self._generation.usage

    @property
    def finish_reason(self) -> str | None:
        return self._generation.finish_reason

    def __iter__(self) -> Iterator[str]:
        yield self._opening
        yield from self._generation

    def close(self) -> None:
        self._generation.close()


class _Unclaimed(_Opened):
    """A generation whose opening claim of the documents ("Based on the provided data,") is left
    out (docchat.domain.grounding.unclaimed): its first CLAIM_WINDOW characters are held back
    until they can be read whole."""

    CLAIM_WINDOW = 80

    def __init__(self, generation: Generation) -> None:
        super().__init__("", generation)

    def __iter__(self) -> Iterator[str]:
        held = ""
        deltas = iter(self._generation)
        for delta in deltas:
            held += delta
            if len(held) >= self.CLAIM_WINDOW:
                break
        if held:
            yield unclaimed(held)
        yield from deltas

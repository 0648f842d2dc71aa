"""Conversations, their messages and versions, and what an answer cites."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Iterable

from docchat.domain.grounding import AnswerForm, Grounding, marks_in

if TYPE_CHECKING:
    from docchat.domain.approach import Approach, Coverage, Figure
    from docchat.domain.figures import Budget, MemoryStats
    from docchat.domain.grounding import EvidenceStrength


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class Role(StrEnum):
    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"


class Rating(StrEnum):
    """A user's thumbs up or down on an answer."""

    UP = "up"
    DOWN = "down"


class Status(StrEnum):
    """Where an answer stands; `FINISHED` ones are part of the history the model sees."""

    COMPLETE = "complete"
    # Ended at the answer's token limit: a whole answer as far as the model goes (sent back
    # with the history), marked so the user can have it continued.
    TRUNCATED = "truncated"
    STREAMING = "streaming"
    INTERRUPTED = "interrupted"
    ERROR = "error"


FINISHED = frozenset({Status.COMPLETE, Status.TRUNCATED})


class TitleSource(StrEnum):
    """Who chose a conversation's title: the user's is never replaced by an automatic one."""

    DEFAULT = "default"
    FIRST_WORDS = "first words"
    MODEL = "model"
    USER = "user"


@dataclass(frozen=True)
class SessionMemory:
    """What a conversation has settled so far: terms the user asked about (-> a snippet of
    the answer), the documents and sections its answers cited, and its complete exchanges."""

    resolved_terms: dict[str, str] = field(default_factory=dict)
    active_documents: tuple[str, ...] = ()
    sections_seen: tuple[str, ...] = ()
    turns: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"resolved_terms": dict(self.resolved_terms), "active_documents": list(self.active_documents),
                "sections_seen": list(self.sections_seen), "turns": self.turns}

    @classmethod
    def from_dict(cls, data: object) -> "SessionMemory":
        data = data if isinstance(data, dict) else {}
        terms = data.get("resolved_terms")
        return cls(
            resolved_terms={str(k): str(v) for k, v in terms.items()} if isinstance(terms, dict) else {},
            active_documents=_strings(data.get("active_documents")),
            sections_seen=_strings(data.get("sections_seen")),
            turns=_count(data.get("turns")),
        )


@dataclass(frozen=True)
class ConversationSettings:
    """What a conversation keeps besides its messages: who titled it, which documents it
    searches (None: all), its session memory, and its compaction state (a failed condense
    is retried from `condense_after_seq` on). A field added here is exported with every
    conversation: list it in tests/upgrade/expected.py, which compares upgraded exports."""

    title_source: TitleSource = TitleSource.DEFAULT
    document_scope: tuple[str, ...] | None = None
    session: SessionMemory = field(default_factory=SessionMemory)
    compactions: int = 0
    truncations: int = 0
    condense_after_seq: int = 0
    last_condense_error: str | None = None
    # The user's instructions for this conversation, sent after the system prompt.
    instructions: str = ""
    # Answers from its documents only: nothing found, no model asked (None: the default in Settings).
    documents_only: bool | None = None
    # Answers quoted from its documents, no model asked, when they hold one (None: the default).
    quoted_answers: bool | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "title_source": self.title_source.value,
            "document_scope": list(self.document_scope) if self.document_scope is not None else None,
            "session": self.session.as_dict(), "compactions": self.compactions, "truncations": self.truncations,
            "condense_after_seq": self.condense_after_seq, "last_condense_error": self.last_condense_error,
            "instructions": self.instructions, "documents_only": self.documents_only,
            "quoted_answers": self.quoted_answers,
        }

    @classmethod
    def from_dict(cls, data: object) -> "ConversationSettings":
        """From the store's JSON column or an export; keys missing or malformed take their default."""
        data = data if isinstance(data, dict) else {}
        scope = data.get("document_scope")
        error = data.get("last_condense_error")
        return cls(
            title_source=_title_source(data.get("title_source")),
            document_scope=_strings(scope) if isinstance(scope, list) else None,
            session=SessionMemory.from_dict(data.get("session")),
            compactions=_count(data.get("compactions")), truncations=_count(data.get("truncations")),
            condense_after_seq=_count(data.get("condense_after_seq")),
            last_condense_error=str(error) if error else None,
            instructions=data["instructions"] if isinstance(data.get("instructions"), str) else "",
            documents_only=_choice(data.get("documents_only")), quoted_answers=_choice(data.get("quoted_answers")),
        )


def _choice(value: object) -> bool | None:
    """On, off, or not chosen (None: the default in Settings)."""
    return value if isinstance(value, bool) else None


def _title_source(value: object) -> TitleSource:
    if not isinstance(value, str):  # what TitleSource(value) refuses too
        return TitleSource.DEFAULT
    try:
        return TitleSource(value)
    except ValueError:
        return TitleSource.DEFAULT


def _strings(value: object) -> tuple[str, ...]:
    return tuple(str(item) for item in value) if isinstance(value, (list, tuple)) else ()


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


@dataclass(frozen=True)
class Conversation:
    id: str
    title: str
    created_at: datetime
    updated_at: datetime
    pinned: bool = False
    deleted_at: datetime | None = None
    settings: ConversationSettings = field(default_factory=ConversationSettings)
    message_count: int = 0


@dataclass(frozen=True)
class Citation:
    """A passage an answer was given, numbered as the prompt numbered it; stands on its own
    (document name, page or section, and the passage's text) when the document is gone."""

    number: int
    document: str
    where: str
    text: str
    document_id: str = ""
    chunk_id: str = ""
    page: int | None = None
    section: str = ""
    score: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, number: int) -> "Citation":
        """From stored or exported JSON; older exports carry `page` and `quote` and no number."""
        page = data.get("page") if isinstance(data.get("page"), int) else None
        section = str(data.get("section") or "")
        return cls(
            number=data["number"] if isinstance(data.get("number"), int) else number,
            document=str(data.get("document") or "unknown document"),
            where=str(data.get("where") or (f"page {page}" if page else section)),
            text=str(data.get("text") or data.get("quote") or ""),
            document_id=str(data.get("document_id") or ""), chunk_id=str(data.get("chunk_id") or ""),
            page=page, section=section, score=_score(data.get("score")),
        )


def _score(value: Any) -> float:
    """A citation's score; anything but a finite number (a list, NaN, 1e400) counts as none."""
    try:
        score = float(value or 0.0)
    except (TypeError, ValueError, OverflowError):
        return 0.0
    return score if float("-inf") < score < float("inf") else 0.0  # NaN compares false


@dataclass(frozen=True)
class AnswerFacts:
    """What only an answer has: the model that wrote it and what it cost, why it failed, the
    passages it was given and how its citations checked, its prompt's figures, how well the
    documents held it, and the user's rating. A question's are NO_FACTS."""

    model: str | None = None
    usage: dict[str, Any] | None = None
    # Why an answer failed, in words a user can read (status error or interrupted).
    error: str | None = None
    # Every passage it was given, numbered as the prompt numbered them (see Message.cited).
    citations: list[Citation] = field(default_factory=list)
    # Its prompt budget and what the memory did for it.
    budget: "Budget | None" = None
    stats: "MemoryStats | None" = None
    # How well the documents in scope held the answer (found, weak, not found), judged when
    # its passages were retrieved; None for an answer given without searching.
    evidence: "EvidenceStrength | None" = None
    rating: Rating | None = None
    # The check of the answer's citations (docchat.domain.grounding); None before it existed.
    grounding: Grounding | None = None
    # How it was answered (docchat.domain.approach), and for a comparison or the collection how
    # many documents it read; None for an answer from before plans were kept.
    approach: "Approach | None" = None
    coverage: "Coverage | None" = None
    # For a table plan: the figure docchat computed, its query and the rows it read.
    table: "Figure | None" = None
    # How it was written (free, constrained, quoted); None for a documents-only reply and an
    # answer from before forms were kept.
    form: AnswerForm | None = None


# Shared by every question and system message: a frozen value, so one is enough.
NO_FACTS = AnswerFacts()


@dataclass(frozen=True)
class Message:
    id: str
    conversation_id: str
    seq: int
    role: Role
    content: str
    created_at: datetime
    status: Status = Status.COMPLETE
    token_count: int | None = None
    tokenizer: str | None = None
    # A question's own: what it was searched with, when that differs from its words.
    rewritten_query: str | None = None
    # What the model was sent for this user turn when it differs from what is shown
    # (retrieved context first, then the question); later turns resend it byte for byte.
    sent_content: str | None = None
    # Versions: a regenerated answer names the first version of its group; the version shown
    # is the one the history (and the model) follows, the others are kept.
    version_of: str | None = None
    shown: bool = True
    # The message this one follows: the conversation is a tree once a question is edited or
    # an answer regenerated, and the messages shown are one path through it, root to leaf.
    parent_id: str | None = None
    # An answer's own fields.
    facts: AnswerFacts = NO_FACTS

    def with_facts(self, **changes: Any) -> "Message":
        """This message with some of its answer's facts changed."""
        return replace(self, facts=replace(self.facts, **changes))

    @property
    def cited(self) -> list[Citation]:
        """The given passages the answer cites, in order of first mention (read from its [n]
        marks when it was kept without a check); `citations` are all those it was given."""
        grounding = self.facts.grounding
        numbers = grounding.cited if grounding is not None else marks_in(self.content)
        given = {c.number: c for c in self.facts.citations}
        return [given[n] for n in numbers if n in given]

    @property
    def uncited(self) -> list[Citation]:
        """The passages given to the model that the answer does not cite, in the prompt's order."""
        cited = {c.number for c in self.cited}
        return [c for c in self.facts.citations if c.number not in cited]

    @property
    def group(self) -> str:
        """The id of the first version of this message: the same for all its versions."""
        return self.version_of or self.id

    @property
    def model_text(self) -> str:
        """The text the model sees for this message."""
        return self.sent_content if self.sent_content is not None else self.content

    @property
    def read_with(self) -> str | None:
        """The earlier question a follow-up was also searched with (`joint_reading`), if so."""
        start = f"{self.content} "
        if self.rewritten_query and self.rewritten_query.startswith(start):
            return self.rewritten_query[len(start):] or None
        return None


def by_number(citations: Iterable[Citation]) -> dict[int, list[Citation]]:
    """The passages as the prompt numbered them: a whole document's part is one [n], kept as the
    chunks it was read in, each numbered n."""
    parts: dict[int, list[Citation]] = {}
    for citation in citations:
        parts.setdefault(citation.number, []).append(citation)
    return parts


def joint_reading(question: str, earlier: str) -> str:
    """A follow-up's second search: the question with the one asked before it."""
    return f"{question} {earlier}"


@dataclass(frozen=True)
class Summary:
    id: str
    conversation_id: str
    version: int
    first_seq: int
    last_seq: int
    content: str
    created_at: datetime
    metadata: dict[str, Any] = field(default_factory=dict)
    token_count: int | None = None
    tokenizer: str | None = None


@dataclass(frozen=True)
class Condensed:
    """What the condenser wrote of older turns: the summary's text and its metadata."""

    summary: str
    topics: list[str] = field(default_factory=list)
    key_questions: list[str] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class SearchHit:
    conversation_id: str
    title: str
    snippet: str
    seq: int | None
    rank: float


@dataclass(frozen=True)
class CleanupReport:
    conversations: list[Conversation]
    dry_run: bool


@dataclass(frozen=True)
class ImportReport:
    conversation_id: str
    title: str
    messages: int
    already_present: bool
    # Present, but deleted: the user cannot see it until it is purged and imported again.
    present_but_deleted: bool = False

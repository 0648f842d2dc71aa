"""Plain data the services hand to the UI, CLI and API."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from enum import StrEnum


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

    def as_dict(self) -> dict:
        return {"resolved_terms": dict(self.resolved_terms), "active_documents": list(self.active_documents),
                "sections_seen": list(self.sections_seen), "turns": self.turns}

    @classmethod
    def from_dict(cls, data) -> "SessionMemory":
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
    is retried from `condense_after_seq` on)."""

    title_source: TitleSource = TitleSource.DEFAULT
    document_scope: tuple[str, ...] | None = None
    session: SessionMemory = field(default_factory=SessionMemory)
    compactions: int = 0
    truncations: int = 0
    condense_after_seq: int = 0
    last_condense_error: str | None = None
    # The user's instructions for this conversation, sent after the system prompt.
    instructions: str = ""

    def as_dict(self) -> dict:
        return {
            "title_source": self.title_source.value,
            "document_scope": list(self.document_scope) if self.document_scope is not None else None,
            "session": self.session.as_dict(), "compactions": self.compactions, "truncations": self.truncations,
            "condense_after_seq": self.condense_after_seq, "last_condense_error": self.last_condense_error,
            "instructions": self.instructions,
        }

    @classmethod
    def from_dict(cls, data) -> "ConversationSettings":
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
        )


def _title_source(value) -> TitleSource:
    try:
        return TitleSource(value)
    except ValueError:
        return TitleSource.DEFAULT


def _strings(value) -> tuple[str, ...]:
    return tuple(str(item) for item in value) if isinstance(value, (list, tuple)) else ()


def _count(value) -> int:
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
    """A source an answer was given, numbered as the prompt numbered it; stands on its own
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

    def as_dict(self) -> dict:
        return dict(self.__dict__)

    @classmethod
    def from_dict(cls, data: dict, *, number: int) -> "Citation":
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


def _score(value) -> float:
    """A citation's score; anything but a finite number (a list, NaN, 1e400) counts as none."""
    try:
        score = float(value or 0.0)
    except (TypeError, ValueError, OverflowError):
        return 0.0
    return score if float("-inf") < score < float("inf") else 0.0  # NaN compares false


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
    citations: list[Citation] = field(default_factory=list)
    rewritten_query: str | None = None
    model: str | None = None
    usage: dict | None = None
    # Why an answer failed, in words a user can read (status error or interrupted).
    error: str | None = None
    # What the model was sent for this user turn when it differs from what is shown
    # (retrieved context first, then the question); later turns resend it byte for byte.
    sent_content: str | None = None
    # An answer's prompt budget and what the memory did for it.
    budget: "Budget | None" = None
    stats: "MemoryStats | None" = None
    rating: Rating | None = None
    # Versions: a regenerated answer names the first version of its group; the version shown
    # is the one the history (and the model) follows, the others are kept.
    version_of: str | None = None
    shown: bool = True
    # The message this one follows: the conversation is a tree once a question is edited or
    # an answer regenerated, and the messages shown are one path through it, root to leaf.
    parent_id: str | None = None

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
    metadata: dict = field(default_factory=dict)
    token_count: int | None = None
    tokenizer: str | None = None


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


@dataclass(frozen=True)
class StoreHealth:
    database: str
    schema_version: str | None
    integrity: str
    conversations: int
    deleted_conversations: int
    messages: int
    summaries: int
    tokenizer: str


@dataclass(frozen=True)
class Budget:
    """How one prompt splits the model's window. Prompt + answer reserve <= max_model_len."""

    max_model_len: int
    answer_reserve: int
    system: int
    history: int
    question: int
    template: int
    history_messages: int
    dropped_messages: int
    counter: str
    exact: bool
    summary: int = 0
    # Document tokens: whole documents in the prefix, or the passages in the user turn.
    chunks: int = 0
    history_share: int = 0
    # How this turn used the documents: "documents" (whole, in the cached prefix), "passages"
    # (retrieved into the user turn) or "none"; and how many parts or passages it gave.
    mode: str = "none"
    passages: int = 0
    chunks_cap: int = 0

    @property
    def prompt(self) -> int:
        return self.system + self.summary + self.chunks + self.history + self.question + self.template

    @property
    def free(self) -> int:
        return self.max_model_len - self.answer_reserve - self.prompt

    def as_dict(self) -> dict:
        return {**self.__dict__, "prompt": self.prompt, "free": self.free}

    @classmethod
    def from_dict(cls, data: dict) -> "Budget":
        return cls(**{name: data[name] for name in cls.__dataclass_fields__ if name in data})


@dataclass(frozen=True)
class MemoryStats:
    """What the memory did for one answer."""

    total_messages: int
    total_tokens: int
    kept_verbatim: int
    summarised: int
    summary_version: int | None
    summary_created_at: datetime | None
    summary_created: bool
    compactions: int
    counter: str
    memory_ms: float
    rewritten_query: str | None = None
    rewrite_method: str = "none"

    def as_dict(self) -> dict:
        data = dict(self.__dict__)
        data["summary_created_at"] = self.summary_created_at.isoformat() if self.summary_created_at else None
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "MemoryStats":
        known = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
        created = known.get("summary_created_at")
        return cls(**{**known, "summary_created_at": datetime.fromisoformat(created) if created else None})


@dataclass(frozen=True)
class LLMStatus:
    url: str
    healthy: bool
    model: str | None
    max_model_len: int | None
    counter: str
    counter_exact: bool
    calibration: str
    prefix_cache_hits: float | None
    prefix_cache_queries: float | None
    error: str | None = None


class DocumentStatus(StrEnum):
    INGESTING = "ingesting"  # its chunks are being embedded; not searched yet
    READY = "ready"
    REMOVING = "removing"  # its vectors, rows and file are going; not searched any more


@dataclass(frozen=True)
class Document:
    id: str
    name: str
    kind: str
    path: str
    size: int
    content_hash: str
    pages: int | None
    chunks: int
    status: DocumentStatus
    added_at: datetime


@dataclass(frozen=True)
class IngestReport:
    """A file added to the library, or found there already (same content): then nothing changed."""

    document: Document
    already_present: bool


@dataclass(frozen=True)
class ChunkRecord:
    id: str
    document_id: str
    position: int
    label: str
    page: int | None
    text: str
    token_count: int


@dataclass(frozen=True)
class Retrieved:
    """A chunk found for a question, with its document's name and its fused score."""

    chunk: ChunkRecord
    document: str
    score: float

    @property
    def where(self) -> str:
        return f"page {self.chunk.page}" if self.chunk.page else self.chunk.label

    def citation(self, number: int, *, text: str | None = None) -> Citation:
        """What an answer keeps about a source it was given, numbered as the prompt numbers it."""
        chunk = self.chunk
        return Citation(number=number, document=self.document, where=self.where,
                        text=chunk.text if text is None else text, document_id=chunk.document_id,
                        chunk_id=chunk.id, page=chunk.page, section=chunk.label, score=round(self.score, 6))


@dataclass(frozen=True)
class SourceView:
    """A cited passage where it stands in its document, for the reader to check it: a PDF's
    page drawn with the passage marked, or, for other formats, the passage's section with the
    cited part flagged; and the original file. Only the citation is left of a deleted document."""

    citation: Citation
    document: Document | None
    page_image: bytes | None = None
    marked: int = 0  # places the passage was found and marked on the page
    section: tuple[tuple[str, bool], ...] = ()  # (text, is the cited passage), in order
    original: bytes | None = None


@dataclass(frozen=True)
class DocumentUse:
    conversation_id: str
    title: str
    citations: int


@dataclass(frozen=True)
class Scope:
    """The documents a search is restricted to."""

    document_ids: tuple[str, ...]


@dataclass(frozen=True)
class LibraryHealth:
    """The document library as `docchat doctor` and the Settings page show it."""

    documents: int
    chunks: int
    vectors: int | None  # None when the index cannot be opened
    embedder: str
    problem: str | None  # what is wrong and what to run, or None

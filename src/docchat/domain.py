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


class Status(StrEnum):
    COMPLETE = "complete"
    STREAMING = "streaming"
    INTERRUPTED = "interrupted"
    ERROR = "error"


@dataclass(frozen=True)
class Conversation:
    id: str
    title: str
    created_at: datetime
    updated_at: datetime
    pinned: bool = False
    deleted_at: datetime | None = None
    metadata: dict = field(default_factory=dict)
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
            page=page, section=section, score=float(data.get("score") or 0.0),
        )


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

    @property
    def model_text(self) -> str:
        """The text the model sees for this message."""
        return self.sent_content if self.sent_content is not None else self.content


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
    status: str
    added_at: datetime


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
class DocumentUse:
    conversation_id: str
    title: str
    citations: int


@dataclass(frozen=True)
class Scope:
    """The documents a search is restricted to, and all of their chunks."""

    document_ids: tuple[str, ...]
    chunk_ids: tuple[str, ...]


@dataclass(frozen=True)
class LibraryHealth:
    """The document library as `docchat doctor` and the Settings page show it."""

    documents: int
    chunks: int
    vectors: int | None  # None when the index cannot be opened
    embedder: str
    problem: str | None  # what is wrong and what to run, or None

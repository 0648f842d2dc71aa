"""The protocols the services and the answer pipeline depend on; adapters implement them.

Real ones: store/ (unit of work, repositories), llm/ (gateway), documents/
(embedder, chunk index, parser, stored files, page renderer), memory/tokens.py (token
counters), context/programs.py (the DSPy programs). Fakes for unit tests: tests/unit/fakes.py.
Services are typed against these and import no adapter. What a port holds is a read-only
property: an adapter may keep it in a frozen dataclass or work it out, and no service sets it.
"""

from __future__ import annotations

import builtins
import threading
from collections.abc import Iterable, Iterator, Sequence, Set
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable, Protocol

from docchat.domain import (
    ChunkRecord,
    Condensed,
    Conversation,
    ConversationSettings,
    Document,
    DocumentUse,
    Folder,
    FolderFile,
    SeenFile,
    Message,
    ParsedDocument,
    Rating,
    Retrieved,
    Scope,
    SearchHit,
    Summary,
    SyncCounts,
    TitleSource,
    Unreadable,
)
from docchat.domain.grounding import Constraint
from docchat.domain.approach import Figure
from docchat.domain.documents import QueryResult, SheetTable, TableShape

__all__ = [
    "ChunkIndex", "ConversationRepository", "DocumentRepository", "Embedder", "FileStore", "FolderFiles", "FolderRepository", "Gateway", "Generation",
    "MemoryState", "PageRenderer", "Parser", "Preferences", "PrefixCache", "Programs", "Retriever", "ServerInfo",
    "TokenCounter", "UnitOfWork", "UnitOfWorkFactory",
]


@dataclass(frozen=True)
class MemoryState:
    """What a conversation's memory reads of it: messages after a seq, and the marks and path
    revision that say whether what it read before still holds."""

    messages: list[Message]
    memory_start_seq: int
    pruned_before_seq: int
    # Moves whenever the path shown changes without a message being appended (an edit, a version).
    path_revision: int = 0


class ConversationRepository(Protocol):
    def add_conversation(self, conversation: Conversation) -> None: ...
    def get_conversation(self, conversation_id: str, *, include_deleted: bool = False) -> Conversation | None: ...
    def conversations_starting_with(self, prefix: str, *, include_deleted: bool = False) -> list[Conversation]: ...
    def is_active(self, conversation_id: str) -> bool: ...
    def list_conversations(self, *, include_deleted: bool = False) -> list[Conversation]: ...
    # A title and who chose it; `updated_at` moves only when given (a rename does, a first title does not).
    def set_title(self, conversation_id: str, title: str, source: TitleSource, *,
                  updated_at: datetime | None = None) -> None: ...
    def set_pinned(self, conversation_id: str, pinned: bool) -> None: ...
    # In the trash since `deleted_at`; None takes it out.
    def set_deleted(self, conversation_id: str, deleted_at: datetime | None) -> None: ...
    def purge_conversation(self, conversation_id: str) -> None: ...
    def conversations_updated_before(self, cutoff: datetime) -> list[Conversation]: ...
    def deleted_conversations(self, *, deleted_before: datetime | None = None) -> list[Conversation]: ...
    def last_seq(self, conversation_id: str) -> int: ...
    def append_message(self, message: Message) -> Message:
        """Stores `message` as the conversation's next seq; returns it with that seq."""
    def settle_message(self, message: Message) -> None: ...
    def get_message(self, message_id: str) -> Message | None: ...
    def set_rating(self, message_id: str, rating: Rating | None) -> None: ...
    def show_version(self, conversation_id: str, group: str, message_id: str | None) -> None: ...
    # The conversation's settings, all of them, as given (read them, `replace` some, save).
    def save_settings(self, conversation_id: str, settings: ConversationSettings) -> None: ...
    def interrupt_stale_streaming(self, before: datetime | None) -> int: ...
    def insert_messages(self, batch: list[Message]) -> None: ...
    def messages(self, conversation_id: str, *, after_seq: int = 0) -> list[Message]: ...
    # The latest `count` messages shown, in order, and how many are shown in all.
    def latest_shown(self, conversation_id: str, count: int) -> tuple[list[Message], int]: ...
    # Every version of the messages in `groups` (ids of first versions), in order.
    def versions(self, conversation_id: str, groups: list[str]) -> list[Message]: ...
    def memory_state(self, conversation_id: str, *, after_seq: int) -> MemoryState | None:
        """None for an unknown conversation."""
    def set_memory_marks(self, conversation_id: str, *, memory_start_seq: int, pruned_before_seq: int) -> None: ...
    def store_token_counts(self, counts: dict[str, int], tokenizer: str) -> None: ...
    def message_ids(self, ids: list[str]) -> set[str]: ...
    def summary_ids(self, ids: list[str]) -> set[str]: ...
    def add_summary(self, summary: Summary) -> None: ...
    def latest_summary(self, conversation_id: str, *, before_seq: int | None = None) -> Summary | None: ...
    def summaries(self, conversation_id: str) -> list[Summary]: ...
    def search(self, query: str, *, limit: int) -> list[SearchHit]: ...
    def counts(self) -> dict[str, int]: ...
    def integrity(self) -> str: ...


class DocumentRepository(Protocol):
    # builtins.list: the method named list hides the builtin in this class's annotations.
    def add(self, document: Document) -> None: ...
    def get(self, document_id: str) -> Document | None: ...
    def documents_starting_with(self, prefix: str) -> builtins.list[Document]: ...
    def by_hash(self, content_hash: str) -> Document | None: ...
    def list(self) -> builtins.list[Document]: ...
    def attachments_of(self, document_id: str) -> builtins.list[Document]:
        """The documents that came inside this one (a mail's attachments)."""
    def mails_holding(self, document_id: str) -> int:
        """How many mails hold this document as an attachment."""
    def link_attachments(self, mail_id: str, attachment_ids: Sequence[str]) -> None: ...
    def unlink_attachments(self, mail_id: str) -> builtins.list[Document]:
        """Lets go of the mail's attachments; returns those no other mail holds now."""
    def any_ready(self) -> bool: ...
    def ready_in_order(self) -> builtins.list[tuple[str, str]]:
        """(id, name) of every ready document, oldest first."""
    def ready_names(self, document_ids: Iterable[str]) -> dict[str, str]:
        """Id -> name of those of these documents that are ready."""
    def mark_removing(self, document_id: str) -> None: ...
    def mark_ready(self, document_id: str, *, chunk_count: int) -> None: ...
    def add_chunks(self, records: builtins.list[ChunkRecord]) -> None: ...
    def chunks(self, chunk_ids: builtins.list[str]) -> dict[str, ChunkRecord]: ...
    def chunks_of(self, document_id: str) -> builtins.list[ChunkRecord]: ...
    def token_total(self, document_ids: Sequence[str]) -> int: ...
    def keyword_search(self, terms: Sequence[str], *, limit: int,
                       document_ids: Sequence[str] | None = None) -> builtins.list[tuple[str, str]]:
        """The store's own keyword side (PostgreSQL's text search, in the chunk's row); a SQLite
        store's is a WordIndex beside it."""
    def delete(self, document_id: str) -> None: ...
    def add_citations(self, rows: builtins.list[dict[str, Any]]) -> None: ...
    def usage(self, document_id: str) -> builtins.list[DocumentUse]: ...
    def ready_chunk_ids(self) -> dict[str, str]:
        """Chunk id -> document id of every chunk of a ready document."""


class WordIndex(Protocol):
    """The chunks by their words, beside a store that does not search them itself (SQLite):
    ranked by BM25, kept in step with the chunk rows, which stay the truth."""

    def search(self, terms: Sequence[str], *, limit: int,
               document_ids: Sequence[str] | None = None) -> builtins.list[tuple[str, str]]:
        """(chunk id, document id) of the chunks of ready documents that best match any of the
        terms, best first; `document_ids=None` searches every document."""
    def check(self) -> tuple[int, int]:
        """(chunks it does not hold, its entries of no chunk)."""
    def rebuild(self) -> None:
        """Builds it again from the chunk rows."""


class SheetTables(Protocol):
    """Spreadsheets' sheets kept as SQL tables (docchat.store.sheet_tables): each sheet's typed
    columns, and per row `_row` (its number in the spreadsheet) and `_kind` (row, subtotal or
    total). Derived from the documents, like the word index: rebuilt from their files."""

    def write(self, document_id: str, tables: Sequence[SheetTable]) -> None:
        """Keeps the document's sheets (those it had before are replaced)."""
    def drop(self, document_id: str) -> None:
        """Forgets the document's sheets (none: nothing changes)."""
    def kept(self) -> set[str]:
        """The documents whose sheets were written (a sheet past the rows a table holds gives none)."""
    def shapes(self, document_ids: Sequence[str] | None = None) -> builtins.list[TableShape]:
        """The sheets kept, of the documents given (None: of every document)."""
    def run(self, query: str, *, max_rows: int, timeout_s: float) -> QueryResult:
        """A query run read-only, stopped past `timeout_s`, at most `max_rows` rows kept;
        InvalidInput in one line for one that writes, fails or runs too long."""


class FolderRepository(Protocol):
    """Followed folders and what the last sync found of each of their files."""

    def add(self, folder: Folder) -> None: ...
    def by_path(self, path: str) -> Folder | None: ...
    def list(self) -> builtins.list[Folder]: ...
    def remove(self, folder_id: str) -> None:
        """Forgets the folder and its files' rows (their documents are the service's to remove)."""
    def files(self, folder_id: str) -> builtins.list[FolderFile]: ...
    def problems(self, folder_id: str) -> builtins.list[FolderFile]:
        """The folder's files refused or failed."""
    def save_files(self, files: Iterable[FolderFile]) -> None:
        """Writes each file's row, replacing the one of the same folder and relative path."""
    def forget_files(self, folder_id: str, relative_paths: Sequence[str]) -> None: ...
    def holders(self, document_id: str) -> int:
        """How many files of followed folders hold this document."""
    def adopted(self, document_id: str) -> bool:
        """Whether a followed file holds it as adopted: it was in the library before (an upload)."""
    def record_sync(self, folder_id: str, at: datetime, counts: SyncCounts) -> None: ...


class UnitOfWork(Protocol):
    """One transaction: rolled back unless committed, always closed."""

    @property
    def conversations(self) -> ConversationRepository: ...
    @property
    def documents(self) -> DocumentRepository: ...
    @property
    def folders(self) -> FolderRepository: ...

    def __enter__(self) -> "UnitOfWork": ...
    def __exit__(self, *exc: object) -> None: ...
    def commit(self) -> None: ...


class TokenCounter(Protocol):
    """Counts tokens as the served model does, chat template included (docchat.memory.tokens)."""

    @property
    def id(self) -> str: ...
    @property
    def exact(self) -> bool: ...

    def count_message(self, role: str, content: str) -> int: ...

    def count_text(self, text: str) -> int: ...

    def encode_message(self, role: str, content: str) -> list[int]: ...


class UnitOfWorkFactory(Protocol):
    """Thread-safe; each call opens its own unit of work (`write=True`: a writer's lock first)."""

    def __call__(self, *, write: bool = False) -> UnitOfWork: ...


class ServerInfo(Protocol):
    """What the LLM server serves. `max_model_len` is the window docchat plans with;
    `window_source` says whose figure it is: the server's, the user's setting, or assumed."""

    @property
    def base_url(self) -> str: ...
    @property
    def model(self) -> str: ...
    @property
    def max_model_len(self) -> int: ...
    @property
    def root(self) -> str | None: ...
    @property
    def models(self) -> tuple[str, ...]:
        """Every chat model it serves."""
    @property
    def window_source(self) -> str: ...
    @property
    def window_note(self) -> str:
        """Where the server says its window, or why it does not."""

    @property
    def server(self) -> str:
        """Which server it is, in words: vLLM, Ollama, LM Studio..."""

    @property
    def reports_prefix_cache(self) -> bool: ...

    @property
    def continues_answers(self) -> bool:
        """Whether it goes on writing an answer cut short (else it would start a new one)."""

    @property
    def sampling_options(self) -> tuple[str, ...]:
        """Which of docchat's sampling options beyond temperature it takes (top_p, top_k,
        repetition_penalty); the others are left out of its requests."""

    @property
    def constrains(self) -> bool:
        """Whether it takes a pattern the answer must keep to (docchat.context.citing)."""


class PrefixCache(Protocol):
    @property
    def hits(self) -> float: ...
    @property
    def queries(self) -> float: ...


class Generation(Protocol):
    """Text deltas as they arrive; `usage`, `finish_reason` and `model` once it has ended."""

    @property
    def model(self) -> str: ...
    @property
    def usage(self) -> dict[str, Any] | None: ...
    @property
    def finish_reason(self) -> str | None: ...

    def __iter__(self) -> Iterator[str]: ...
    def close(self) -> None: ...


class Gateway(Protocol):
    """The LLM server: what it serves, and streamed answers that stop when told."""

    @property
    def base_url(self) -> str: ...

    def info(self, *, refresh: bool = False) -> ServerInfo: ...
    def watch(self, listener: Callable[[ServerInfo], None]) -> None:
        """`listener` hears what the server says each time it is asked afresh (it came up, or
        came back after a failure, perhaps serving another model)."""
    def healthy(self, *, timeout: float = 2.0) -> bool: ...
    def prefix_cache(self) -> PrefixCache | None: ...
    def count_tokens(self, messages: list[dict[str, str]]) -> int:
        """The server's own count of a chat prompt; raises LLMError when it cannot say."""
    def stream(self, messages: list[dict[str, str]], *, max_tokens: int, stop: threading.Event | None = None,
               continue_last: bool = False, varied: bool = False, conversation: str | None = None,
               constraint: Constraint | None = None) -> Generation:
        """`varied`: a new version of an answer, sampled so that it is a new answer.
        `conversation`: the conversation's id, told to the server where a router in front of
        several replicas can read it (keeping a conversation on one keeps its prefix cached).
        `constraint`: a pattern the answer must keep to, sent only to a server that takes one
        (`ServerInfo.constrains`)."""


class SkillRecord(Protocol):
    """What each served model did when docchat asked it for one of its own programs."""

    def tally(self, model: str, skill: str) -> tuple[int, int]:
        """(usable, unusable) answers so far."""
    def note(self, model: str, skill: str, *, usable: bool) -> None: ...


class Embedder(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def model_id(self) -> str: ...
    @property
    def dimension(self) -> int: ...
    def embed(self, texts: list[str]) -> list[list[float]]: ...


class ChunkIndex(Protocol):
    """Vectors by chunk, searched by meaning within an optional scope."""

    def ensure_collection(self) -> None: ...
    def recreate(self) -> None: ...
    def add(self, document_id: str, chunk_ids: Sequence[str], vectors: Sequence[Sequence[float]]) -> None: ...
    def add_points(self, points: Sequence[tuple[str, str, Sequence[float]]]) -> None:
        """(chunk id, document id, vector) of chunks of any documents."""
    def nearest(self, query_vector: Sequence[float], *, limit: int,
                scope: Scope | None = None) -> list[tuple[str, str]]: ...
    def closest(self, query_vector: Sequence[float], *, limit: int,
                scope: Scope | None = None) -> list[tuple[str, str, float]]:
        """As `nearest`, with each chunk's cosine similarity to the query."""
    def delete_document(self, document_id: str) -> None: ...
    def delete_chunks(self, chunk_ids: Sequence[str]) -> None: ...
    def count(self) -> int: ...
    def chunk_ids(self) -> dict[str, str]:
        """Chunk id -> document id of every vector the index holds."""
    def vectors_of(self, chunk_ids: Sequence[str]) -> dict[str, list[float]]:
        """Chunk id -> its vector, of those of `chunk_ids` the index holds (the others left out)."""
    def building(self) -> int:
        """How many vectors are searched exactly, for want of an approximate index (0 when few)."""
    def wait_until_built(self) -> None:
        """Returns once no build of the approximate index is running or due."""
    @property
    def exclusive(self) -> bool:
        """Whether no other process can use the index while this one holds it."""


class Parser(Protocol):
    """Uploaded files to text sections. Safe to call from several threads at once."""

    def parse(self, name: str, data: bytes, *, max_bytes: int,
              progress: Callable[[int, int], None] | None = None) -> ParsedDocument:
        """The document's text in sections, or InvalidInput in one line naming the file.
        `progress(page, pages)` is told before each page read by OCR (seconds each)."""
    def reads(self, name: str) -> bool:
        """Whether a file of this name is of a kind it reads (by its suffix)."""
    def kinds_in_words(self) -> str:
        """The kinds it reads, named for a sentence ("PDF, DOCX, ..., e-books (EPUB), ...")."""
    def close(self) -> None:
        """Lets go of what it holds (worker processes); a later call may start them again."""


class FileStore(Protocol):
    """The uploaded files, kept by content (documents/files.py); a stored file is named by the
    path it returns, which a document keeps."""

    def store(self, name: str, data: bytes) -> str:
        """Keeps the bytes whole (once for the same content) and returns their path."""
    def read(self, path: str) -> bytes | None:
        """The stored file's bytes; None when it is gone."""
    def remove(self, path: str) -> None:
        """Removes the stored file; a file already gone is no error."""
    def strays(self, kept: Set[str]) -> list[str]:
        """Stored files whose path is not in `kept`: left by a crash, or half written."""


class FolderFiles(Protocol):
    """The files of followed folders on disk (documents/folders/disk_files.py). Reading and hashing
    raise OSError for a file that cannot be read."""

    def absolute(self, path: str) -> str:
        """The folder's one name: absolute, links resolved."""
    def is_folder(self, path: str) -> bool: ...
    def walk(self, root: str, reads: Callable[[str], bool]) -> Iterator[SeenFile | Unreadable]:
        """Every file under the folder whose name `reads` accepts, by stat alone (hidden ones, and
        folders met before through a link, left out), and what could not be looked at."""
    def content_hash(self, path: str) -> str: ...
    def read(self, path: str) -> bytes: ...


class PageRenderer(Protocol):
    """A cited PDF page or image as a picture, the passage marked on it (documents/render.py)."""

    def __call__(self, original: bytes, page_number: int, passage: str, *, kind: str = "pdf") -> tuple[bytes, int]:
        """The 1-based page (a PDF's, kind "pdf", or an image's frame, kind "image") as PNG
        bytes, and how many places of the passage were marked."""


class Programs(Protocol):
    """The DSPy programs (context/programs.py). Any call may fail; every caller has a fallback."""

    def condense(self, previous_summary: str, conversation: str, *, max_tokens: int) -> Condensed: ...
    def rewrite(self, recent_turns: str, question: str, *, max_tokens: int) -> str:
        """The question as a standalone query; UnusableOutput when what the model wrote cannot be used."""
    def title(self, first_exchange: str, *, max_tokens: int) -> str: ...
    def query(self, tables: str, question: str, *, max_tokens: int) -> str:
        """A SELECT statement over the sheets `tables` describes, as the model wrote it;
        UnusableOutput when it wrote none."""


class Preferences(Protocol):
    """The settings a user changes on the Settings page, kept for the next time services are built."""

    def locked(self) -> set[str]:
        """The editable settings an environment variable sets, which the page cannot change."""
    def save(self, changes: dict[str, object]) -> None:
        """Checks `changes` as the settings would and keeps them; InvalidInput changes nothing."""


class Retriever(Protocol):
    """The document library as the answer pipeline sees it."""

    def retrieve(self, query: str, *, top_k: int, document_ids: list[str] | None = None,
                 active: Set[str] = frozenset()) -> list[Retrieved]: ...

    def retrieve_each(self, query: str, document_ids: list[str], *, top_k: int,
                      active: Set[str] = frozenset()) -> dict[str, list[Retrieved]]: ...

    def in_scope(self, document_ids: list[str] | None) -> list[tuple[str, str]]:
        """(id, name) of the ready documents in scope (None: all), oldest first."""

    def whole(self, document_ids: list[str] | None, *, max_tokens: int) -> list[Retrieved] | None: ...


class Figures(Protocol):
    """The tables docchat keeps, as the answer pipeline sees them: figures computed over their
    data rows (docchat.services.figures)."""

    def figure(self, question: str, in_scope: Sequence[tuple[str, str]]) -> Figure | None:
        """The figure the question asks of a sheet of the documents in scope (`in_scope`'s (id,
        name)), computed from its data rows; None when it asks none that docchat can compute."""

    def sheets(self, in_scope: Sequence[tuple[str, str]]) -> list[TableShape]:
        """The sheets kept as tables of the documents in scope."""

    def written_figure(self, shapes: Sequence[TableShape], names: dict[str, str], write: Callable[[str], str], *,
                       model: str) -> Figure:
        """The figure of a query the model wrote (`write(the sheets described)`) over these
        sheets' data rows; UnusableOutput when it gave none."""

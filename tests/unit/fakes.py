"""Fakes of our own ports for unit tests. They record what happened, so tests assert behaviour."""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace

from docchat.domain import (ChunkRecord, Conversation, Document, DocumentStatus, Folder, FolderFile, Message,
                            Retrieved, SeenFile, SyncCounts, content_hash)
from docchat.errors import NotFound
from docchat.ports import MemoryState
# The document library's adapters' fakes live in their own module; importers find them here too.
from tests.unit.fake_adapters import (  # noqa: F401 (re-exported)
    FakeEmbedder, FakeFiles, FakeIndex, FakeParser, FakeRenderer, WordsEmbedder,
)


class FakeMemoryStore:
    """A conversation's stored messages as a memory reads and writes them: a unit of work
    factory, its unit of work and its repository at once (append-only, dense seq per
    conversation, like the SQL store), with what was written kept for assertions.

    Thread-safe, as a database would be, so concurrency tests exercise the memory and not the fake.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._messages: dict[str, list[Message]] = {}
        self._marks: dict[str, tuple[int, int]] = {}
        self.revisions: dict[str, int] = {}
        self.appended: list[Message] = []
        self.stored_counts: list[tuple[dict[str, int], str]] = []
        self.marks_set: list[tuple[str, int, int]] = []

    def register(self, conversation_id: str, *history: Message) -> None:
        """Creates a conversation, optionally with messages already stored (given dense seqs in order)."""
        with self._lock:
            self._messages[conversation_id] = [
                replace(message, conversation_id=conversation_id, seq=seq)
                for seq, message in enumerate(history, start=1)
            ]
            self._marks[conversation_id] = (1, 1)
            self.revisions[conversation_id] = 0

    # the unit of work

    def __call__(self, *, write: bool = False) -> "FakeMemoryStore":
        return self

    def __enter__(self) -> "FakeMemoryStore":
        return self

    def __exit__(self, *exc) -> None:
        pass

    def commit(self) -> None:
        pass

    @property
    def conversations(self) -> "FakeMemoryStore":
        return self

    # the repository, as far as a memory uses it

    def is_active(self, conversation_id: str) -> bool:
        with self._lock:
            return conversation_id in self._messages

    def memory_state(self, conversation_id: str, *, after_seq: int) -> MemoryState | None:
        with self._lock:
            if conversation_id not in self._messages:
                return None
            newer = [m for m in self._messages[conversation_id] if m.seq > after_seq]
            return MemoryState(newer, *self._marks[conversation_id], self.revisions[conversation_id])

    def append_message(self, message: Message) -> Message:
        with self._lock:
            self._require(message.conversation_id)
            stored = replace(message, seq=len(self._messages[message.conversation_id]) + 1)
            self._messages[message.conversation_id].append(stored)
            self.appended.append(stored)
            return stored

    append = append_message  # another writer, in a test

    def reshape(self, conversation_id: str, change) -> None:
        """Another writer changes which messages are shown (`change(message)` -> message), and
        moves the path revision, as the store's show_version does."""
        with self._lock:
            self._messages[conversation_id] = [change(m) for m in self._messages[conversation_id]]
            self.revisions[conversation_id] += 1

    def set_memory_marks(self, conversation_id: str, *, memory_start_seq: int, pruned_before_seq: int) -> None:
        with self._lock:
            self._require(conversation_id)
            self._marks[conversation_id] = (memory_start_seq, pruned_before_seq)
            self.marks_set.append((conversation_id, memory_start_seq, pruned_before_seq))

    def store_token_counts(self, counts: dict[str, int], tokenizer: str) -> None:
        with self._lock:
            self.stored_counts.append((dict(counts), tokenizer))
            for conversation_id, stored in self._messages.items():
                self._messages[conversation_id] = [
                    replace(m, token_count=counts[m.id], tokenizer=tokenizer) if m.id in counts else m
                    for m in stored
                ]

    # for assertions

    def messages(self, conversation_id: str) -> list[Message]:
        with self._lock:
            self._require(conversation_id)
            return list(self._messages[conversation_id])

    def marks(self, conversation_id: str) -> tuple[int, int]:
        with self._lock:
            self._require(conversation_id)
            return self._marks[conversation_id]

    def _require(self, conversation_id: str) -> None:
        if conversation_id not in self._messages:
            raise NotFound(f"no conversation with id {conversation_id}")


class WordCounter:
    """A deterministic stand-in tokenizer: one token a word, plus a ChatML-like overhead of five."""

    exact = True
    generation_prompt_tokens = 3
    OVERHEAD = 5

    def __init__(self, id: str = "words+5:v1"):
        self.id = id

    def count_text(self, text: str) -> int:
        return len(text.split())

    def count_message(self, role: str, content: str) -> int:
        return self.count_text(content) + self.OVERHEAD

    def encode_message(self, role: str, content: str) -> list[int]:
        return list(range(self.count_message(role, content)))


class CountingCounter:
    """Wraps a TokenCounter and records every message it is asked to count (thread-safe)."""

    def __init__(self, inner):
        self._inner = inner
        self._lock = threading.Lock()
        self.counted: list[tuple[str, str]] = []

    @property
    def id(self) -> str:
        return self._inner.id

    @property
    def exact(self) -> bool:
        return self._inner.exact

    @property
    def calls(self) -> int:
        with self._lock:
            return len(self.counted)

    def count_message(self, role: str, content: str) -> int:
        with self._lock:
            self.counted.append((role, content))
        return self._inner.count_message(role, content)

    def count_text(self, text: str) -> int:
        return self._inner.count_text(text)

    def encode_message(self, role: str, content: str) -> list[int]:
        return self._inner.encode_message(role, content)


# The LLM gateway port

@dataclass(frozen=True)
class FakeServerInfo:
    base_url: str = "http://fake/v1"
    model: str = "fake-model"
    max_model_len: int = 8_192
    root: str | None = None
    models: tuple[str, ...] = ("fake-model",)
    window_source: str = "reported by the server"
    window_note: str = "max_model_len in /v1/models"
    server: str = "vLLM"
    reports_prefix_cache: bool = True
    continues_answers: bool = True
    sampling_options: tuple[str, ...] = ("top_p", "top_k", "repetition_penalty")


class FakeGeneration:
    def __init__(self, model: str, deltas: list[str], usage: dict | None, failure: Exception | None,
                 finish_reason: str = "stop"):
        self.model, self.usage, self.finish_reason = model, None, None
        self._deltas, self._final_usage, self._failure = deltas, usage, failure
        self._finish_reason = finish_reason
        self.closed = False

    def __iter__(self):
        for delta in self._deltas:
            yield delta
        if self._failure is not None:
            raise self._failure
        self.usage, self.finish_reason = self._final_usage, self._finish_reason

    def close(self) -> None:
        self.closed = True


class FakeGateway:
    """Scripted answers: `enqueue(deltas, usage=..., failure=...)`; records every request.

    An answer with no script left is "fine." Usage defaults to the prompt's count by `counter`
    (when given), so tests can compare it with the plan as the live tier does with vLLM's."""

    def __init__(self, *, max_model_len: int = 8_192, counter=None, down: Exception | None = None):
        self.base_url = "http://fake/v1"
        self._info = FakeServerInfo(max_model_len=max_model_len)
        self._counter = counter
        self._script: list[tuple[list[str], dict | None, Exception | None, str]] = []
        self.down = down
        self.requests: list[tuple[list[dict], int]] = []
        self.continued: list[bool] = []
        self.varied: list[bool] = []

    def enqueue(self, deltas: list[str], *, usage: dict | None = None, failure: Exception | None = None,
                finish_reason: str = "stop") -> None:
        self._script.append((list(deltas), usage, failure, finish_reason))

    def info(self, *, refresh: bool = False) -> FakeServerInfo:
        if self.down is not None:
            raise self.down
        return self._info

    def watch(self, listener) -> None:
        pass

    def healthy(self, *, timeout: float = 2.0) -> bool:
        return self.down is None

    def prefix_cache(self):
        return None

    def count_tokens(self, messages: list[dict]) -> int:
        return self.prompt_tokens(messages)

    def prompt_tokens(self, messages: list[dict]) -> int:
        if self._counter is None:
            return 0
        return sum(self._counter.count_message(m["role"], m["content"]) for m in messages) + \
            getattr(self._counter, "generation_prompt_tokens", 0)

    def stream(self, messages: list[dict], *, max_tokens: int, stop=None, continue_last: bool = False,
               varied: bool = False) -> FakeGeneration:
        self.requests.append((messages, max_tokens))
        self.continued.append(continue_last)
        self.varied.append(varied)
        deltas, usage, failure, finish = self._script.pop(0) if self._script else (["fine."], None, None, "stop")
        usage = usage or {"prompt_tokens": self.prompt_tokens(messages), "completion_tokens": len(deltas)}
        return FakeGeneration(self._info.model, deltas, usage, failure, finish)


# The document library as the pipeline sees it (the chunk index and its search)

def chunk(document: str, position: int, text: str, *, page: int | None = None, label: str = "",
          document_id: str | None = None) -> Retrieved:
    """A chunk of `document` at `position`, as retrieval hands it out (its tokens: its words)."""
    document_id = document_id or document.lower().replace(" ", "-")
    record = ChunkRecord(id=f"{document_id}#{position}", document_id=document_id, position=position,
                         label=label or (f"page {page}" if page else "Body"), page=page, text=text,
                         token_count=len(text.split()))
    return Retrieved(record, document, 0.0)


class FakeLibrary:
    """The Retriever port over chunks in memory: ranks by words shared with the query."""

    def __init__(self, *chunks: Retrieved):
        self.chunks = list(chunks)
        self.queries: list[str] = []

    def retrieve(self, query: str, *, top_k: int, document_ids=None, active=frozenset()) -> list[Retrieved]:
        self.queries.append(query)
        words = {w.strip("?.,").lower() for w in query.split()}
        scored = []
        for hit in self.chunks:
            if document_ids is not None and hit.chunk.document_id not in document_ids:
                continue
            shared = len(words & {w.strip("?.,").lower() for w in hit.chunk.text.split()})
            if shared:
                scored.append(replace(hit, score=float(shared)))
        return sorted(scored, key=lambda h: (-h.score, h.chunk.id))[:top_k]

    def whole(self, document_ids, *, max_tokens: int):
        found = [h for h in self.chunks if document_ids is None or h.chunk.document_id in document_ids]
        return found if found and sum(h.chunk.token_count for h in found) <= max_tokens else None


# The unit of work and its repositories, in memory

class FakeConversations:
    def __init__(self):
        self.conversations: dict[str, Conversation] = {}
        self.marks: dict[str, tuple[int, int]] = {}
        self.messages_by: dict[str, list[Message]] = {}
        self.summaries_by: dict[str, list] = {}
        self.revisions: dict[str, int] = {}

    def add_conversation(self, conversation: Conversation) -> None:
        self.conversations[conversation.id] = conversation
        self.marks[conversation.id] = (1, 1)
        self.messages_by[conversation.id] = []

    def get_conversation(self, conversation_id: str, *, include_deleted: bool = False):
        found = self.conversations.get(conversation_id)
        return replace(found, message_count=self.last_seq(conversation_id)) if found else None

    def is_active(self, conversation_id: str) -> bool:
        return conversation_id in self.conversations

    def list_conversations(self, *, include_deleted: bool = False) -> list[Conversation]:
        """Pinned first, then most recently updated, as the real store orders them."""
        return sorted((c for c in self.conversations.values() if include_deleted or c.deleted_at is None),
                      key=lambda c: (not c.pinned, -c.updated_at.timestamp()))

    def update_conversation(self, conversation_id: str, **values) -> None:
        if "memory_start_seq" in values:
            self.marks[conversation_id] = (values.pop("memory_start_seq"), values.pop("pruned_before_seq"))
        self.conversations[conversation_id] = replace(self.conversations[conversation_id], **values)

    def update_settings(self, conversation_id: str, **changes):
        settings = replace(self.conversations[conversation_id].settings, **changes)
        self.update_conversation(conversation_id, settings=settings)
        return settings

    def memory_state(self, conversation_id: str, *, after_seq: int):
        if conversation_id not in self.conversations:
            return None
        return MemoryState(self.messages(conversation_id, after_seq=after_seq), *self.marks[conversation_id],
                           self.revisions.get(conversation_id, 0))

    def set_memory_marks(self, conversation_id: str, *, memory_start_seq: int, pruned_before_seq: int) -> None:
        self.marks[conversation_id] = (memory_start_seq, pruned_before_seq)

    def last_seq(self, conversation_id: str) -> int:
        return len(self.messages_by.get(conversation_id, []))

    def append_message(self, message: Message) -> Message:
        shown = [m for m in self.messages_by[message.conversation_id] if m.shown]
        stored = replace(message, seq=self.last_seq(message.conversation_id) + 1,
                         parent_id=message.parent_id or (shown[-1].id if shown else None))
        self.messages_by[message.conversation_id].append(stored)
        return stored

    def get_message(self, message_id: str):
        return next((m for stored in self.messages_by.values() for m in stored if m.id == message_id), None)

    def show_version(self, conversation_id: str, group: str, message_id) -> None:
        self.revisions[conversation_id] = self.revisions.get(conversation_id, 0) + 1
        stored = self.messages_by[conversation_id]
        shown_seq = min((m.seq for m in stored if m.group == group and m.shown), default=None)
        branch, node = set(), message_id
        while node is not None:
            branch.add(node)
            node = max((m for m in stored if m.parent_id == node), key=lambda m: m.seq, default=None)
            node = node.id if node else None
        stored[:] = [replace(m, shown=m.id in branch or (m.shown and m.group != group
                                                          and (shown_seq is None or m.seq < shown_seq)))
                     for m in stored]

    def set_rating(self, message_id: str, rating) -> None:
        for stored in self.messages_by.values():
            stored[:] = [replace(m, rating=rating) if m.id == message_id else m for m in stored]

    def settle_message(self, message: Message) -> None:
        stored = self.messages_by[message.conversation_id]
        stored[:] = [replace(message, seq=m.seq) if m.id == message.id else m for m in stored]

    def store_token_counts(self, counts: dict[str, int], tokenizer: str) -> None:
        for conversation_id, stored in self.messages_by.items():
            stored[:] = [replace(m, token_count=counts[m.id], tokenizer=tokenizer) if m.id in counts else m
                         for m in stored]

    def messages(self, conversation_id: str, *, after_seq: int = 0) -> list[Message]:
        return [m for m in self.messages_by[conversation_id] if m.seq > after_seq]

    def latest_shown(self, conversation_id: str, count: int):
        shown = [m for m in self.messages_by[conversation_id] if m.shown]
        return shown[-count:], len(shown)

    def versions(self, conversation_id: str, groups: list[str]):
        return [m for m in self.messages_by[conversation_id] if m.group in groups]

    def add_summary(self, summary) -> None:
        self.summaries_by.setdefault(summary.conversation_id, []).append(summary)

    def latest_summary(self, conversation_id: str, *, before_seq: int | None = None):
        shown = {m.seq for m in self.messages_by.get(conversation_id, []) if m.shown}
        on_branch = [s for s in self.summaries_by.get(conversation_id, [])
                     if s.last_seq in shown and (before_seq is None or s.last_seq < before_seq)]
        return on_branch[-1] if on_branch else None


class FakeDocuments:
    """The document repository in memory: documents in the order added, and their chunks."""

    def __init__(self):
        self.citations: list[dict] = []
        self.documents: dict[str, Document] = {}
        self.chunk_rows: dict[str, list[ChunkRecord]] = {}
        self.links: list[tuple[str, str]] = []  # (mail id, attachment id)

    def add_citations(self, rows: list[dict]) -> None:
        self.citations += rows

    def add(self, document: Document) -> None:
        self.documents[document.id] = document

    def get(self, document_id: str) -> Document | None:
        return self.documents.get(document_id)

    def list(self) -> list[Document]:
        return list(self.documents.values())

    def by_hash(self, content_hash: str) -> Document | None:
        return next((d for d in self.documents.values() if d.content_hash == content_hash), None)

    def attachments_of(self, document_id: str) -> list[Document]:
        return [self.documents[a] for m, a in self.links if m == document_id]

    def mails_holding(self, document_id: str) -> int:
        return sum(a == document_id for _, a in self.links)

    def link_attachments(self, mail_id: str, attachment_ids) -> None:
        self.links += [(mail_id, a) for a in attachment_ids]

    def unlink_attachments(self, mail_id: str) -> list[Document]:
        held = self.attachments_of(mail_id)
        self.links = [(m, a) for m, a in self.links if m != mail_id]
        return [d for d in held if not self.mails_holding(d.id)]

    def add_chunks(self, records: list[ChunkRecord]) -> None:
        for record in records:
            self.chunk_rows.setdefault(record.document_id, []).append(record)

    def chunks_of(self, document_id: str) -> list[ChunkRecord]:
        return sorted(self.chunk_rows.get(document_id, []), key=lambda c: c.position)

    def mark_ready(self, document_id: str, *, chunk_count: int) -> None:
        self.documents[document_id] = replace(self.documents[document_id], status=DocumentStatus.READY,
                                              chunks=chunk_count)

    def mark_removing(self, document_id: str) -> None:
        self.documents[document_id] = replace(self.documents[document_id], status=DocumentStatus.REMOVING)

    def delete(self, document_id: str) -> None:
        self.documents.pop(document_id, None)
        self.chunk_rows.pop(document_id, None)
        self.links = [(m, a) for m, a in self.links if a != document_id]


class FakeFolders:
    """The followed folders' rows in memory."""

    def __init__(self):
        self.folders: dict[str, Folder] = {}
        self.rows: dict[tuple[str, str], FolderFile] = {}

    def add(self, folder: Folder) -> None:
        self.folders[folder.id] = folder

    def by_path(self, path: str) -> Folder | None:
        return next((f for f in self.folders.values() if f.path == path), None)

    def list(self) -> list[Folder]:
        return list(self.folders.values())

    def remove(self, folder_id: str) -> None:
        self.folders.pop(folder_id)
        self.rows = {key: row for key, row in self.rows.items() if key[0] != folder_id}

    def files(self, folder_id: str) -> list[FolderFile]:
        return sorted((r for r in self.rows.values() if r.folder_id == folder_id), key=lambda r: r.relative_path)

    def problems(self, folder_id: str) -> list[FolderFile]:
        return [r for r in self.files(folder_id) if r.status.value in ("refused", "failed")]

    def save_files(self, files) -> None:
        self.rows.update({(f.folder_id, f.relative_path): f for f in files})

    def forget_files(self, folder_id: str, relative_paths) -> None:
        for path in relative_paths:
            self.rows.pop((folder_id, path), None)

    def holders(self, document_id: str) -> int:
        return sum(1 for r in self.rows.values() if r.document_id == document_id)

    def adopted(self, document_id: str) -> bool:
        return any(r.adopted for r in self.rows.values() if r.document_id == document_id)

    def record_sync(self, folder_id: str, at, counts: SyncCounts) -> None:
        self.folders[folder_id] = replace(self.folders[folder_id], last_sync_at=at, last_counts=counts)


class FakeDisk:
    """The FolderFiles port over a dict: folder -> {relative path: (bytes, mtime_ns)}. `opened`
    records every file hashed or read, so a test can tell a file was not opened."""

    def __init__(self):
        self.folders: dict[str, dict[str, tuple[bytes, int]]] = {}
        self.opened: list[str] = []

    def write(self, folder: str, relative_path: str, data: bytes, mtime_ns: int) -> None:
        self.folders.setdefault(folder, {})[relative_path] = (data, mtime_ns)

    def absolute(self, path: str) -> str:
        return path.rstrip("/") or "/"

    def is_folder(self, path: str) -> bool:
        return path in self.folders

    def walk(self, root: str, reads):
        for relative, (data, mtime_ns) in sorted(self.folders[root].items()):
            if reads(relative.rpartition("/")[2]):
                yield SeenFile(relative, f"{root}/{relative}", len(data), mtime_ns)

    def _data(self, path: str) -> bytes:
        self.opened.append(path)
        root = next(r for r in self.folders if path.startswith(r + "/"))
        return self.folders[root][path[len(root) + 1:]][0]

    def content_hash(self, path: str) -> str:
        return content_hash(self._data(path))

    def read(self, path: str) -> bytes:
        return self._data(path)


class FakeUnitOfWork:
    """One shared in-memory store. Writes land at once (no rollback); `opened` and `commits`
    count the units of work and commits, so a test can tell that nothing was written."""

    def __init__(self):
        self.conversations = FakeConversations()
        self.documents = FakeDocuments()
        self.folders = FakeFolders()
        self.commits = 0
        self.opened = 0

    def __call__(self, *, write: bool = False) -> "FakeUnitOfWork":
        self.opened += 1
        return self

    def __enter__(self) -> "FakeUnitOfWork":
        return self

    def __exit__(self, *exc) -> None:
        pass

    def commit(self) -> None:
        self.commits += 1


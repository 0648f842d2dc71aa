"""Fakes of our own ports for unit tests. They record what happened, so tests assert behaviour."""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace

from docchat.domain import ChunkRecord, Message, Retrieved
from docchat.errors import NotFound, UnusableOutput
from docchat.ports import MemoryState
# The adapter ports' fakes live in their own module; importers find them here too.
from tests.unit.fake_adapters import (  # noqa: F401 (re-exported)
    FakeDisk, FakeEmbedder, FakeFiles, FakeIndex, FakeParser, FakeRenderer, WordsEmbedder,
)
# So do the in-memory unit of work and its repositories.
from tests.unit.fake_store import (  # noqa: F401 (re-exported)
    FakeConversations, FakeDocuments, FakeFolders, FakeUnitOfWork,
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
    constrains: bool = False


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

    def __init__(self, *, max_model_len: int = 8_192, counter=None, down: Exception | None = None,
                 constrains: bool = False, model: str = "fake-model"):
        self.base_url = "http://fake/v1"
        self._info = FakeServerInfo(max_model_len=max_model_len, constrains=constrains, model=model, models=(model,))
        self._counter = counter
        self._script: list[tuple[list[str], dict | None, Exception | None, str]] = []
        self.down = down
        self.requests: list[tuple[list[dict], int]] = []
        self.continued: list[bool] = []
        self.constraints: list = []  # the pattern each answer was asked under (None: free)
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
               varied: bool = False, conversation: str | None = None, constraint=None) -> FakeGeneration:
        self.requests.append((messages, max_tokens))
        self.constraints.append(constraint)
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
    """The Retriever and Figures ports over chunks in memory: ranks by words shared with the query,
    and gives the figure it was made with."""

    def __init__(self, *chunks: Retrieved, computed=None, sheets=(), query_figures=None):
        self.chunks = list(chunks)
        self.queries: list[str] = []
        self.computed = computed  # a Figure the library computes for a question asking a total
        self.sheet_shapes = list(sheets)  # TableShapes
        self.query_figures = query_figures or {}  # the Figure each query a model writes gives

    def retrieve(self, query: str, *, top_k: int, document_ids=None, active=frozenset()) -> list[Retrieved]:
        self.queries.append(query)
        words = {w.strip("?.,").lower() for w in query.split()}
        scored = []
        for hit in self.chunks:
            if document_ids is not None and hit.chunk.document_id not in document_ids:
                continue
            shared = len(words & {w.strip("?.,").lower() for w in hit.chunk.text.split()})
            if shared and hit.similarity is None and not hit.coverage:
                # A chunk the test gave no judgement's reading is found by its words, as the
                # keyword index finds one: it holds that share of the question's words.
                scored.append(replace(hit, score=float(shared), coverage=shared / len(words)))
            elif shared:
                scored.append(replace(hit, score=float(shared)))
        return sorted(scored, key=lambda h: (-h.score, h.chunk.id))[:top_k]

    def retrieve_each(self, query: str, document_ids, *, top_k: int, active=frozenset()) -> dict[str, list[Retrieved]]:
        ready = {document for document, _ in self.in_scope(document_ids)}
        return {document: self.retrieve(query, top_k=top_k, document_ids=[document])
                for document in document_ids if document in ready}

    def figure(self, question: str, in_scope):
        """The figure set in `computed`, for any question that asks for a total; None otherwise."""
        return self.computed if "total" in question.lower() else None

    def sheets(self, in_scope):
        wanted = {document for document, _ in in_scope}
        return [shape for shape in self.sheet_shapes if shape.document_id in wanted]

    def written_figure(self, shapes, names, write, *, model: str):
        """The figure set for the query `write` returns, as model_query reads it; refused otherwise."""
        from docchat.tables.model_query import statement

        sql = statement(write(" ".join(shape.sheet for shape in shapes)))
        if sql not in self.query_figures:
            raise UnusableOutput(f"the query was refused: {sql}")
        return replace(self.query_figures[sql], written_by=model)

    def in_scope(self, document_ids) -> list[tuple[str, str]]:
        named = {h.chunk.document_id: h.document for h in self.chunks}
        return [(document, name) for document, name in named.items() if document_ids is None or document in document_ids]

    def whole(self, document_ids, *, max_tokens: int):
        found = [h for h in self.chunks if document_ids is None or h.chunk.document_id in document_ids]
        return found if found and sum(h.chunk.token_count for h in found) <= max_tokens else None

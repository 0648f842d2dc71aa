"""How the store, the LLM server and the document library are doing, as every front end shows it."""

from __future__ import annotations

from dataclasses import dataclass


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
    server: str | None = None  # which server answers: vLLM, llama.cpp server, Ollama, LM Studio...
    window_source: str | None = None  # reported by the server | your setting | assumed
    window_note: str | None = None
    models: tuple[str, ...] = ()  # every chat model the server serves
    # False where the server reports no prefix-cache figures: shown as "not reported", never 0%.
    prefix_cache_reported: bool = True
    # docchat's sampling options beyond temperature that the server takes; the rest are not sent.
    sampling_options: tuple[str, ...] = ()
    continues_answers: bool = True


@dataclass(frozen=True)
class LibraryHealth:
    """The document library as `docchat doctor` and the Settings page show it."""

    documents: int
    chunks: int
    vectors: int | None  # None when the index cannot be opened
    embedder: str
    problem: str | None  # what is wrong and what to run, or None
    # Vectors searched exactly (slower, never less accurate): their segment has no approximate index yet.
    exact_until_indexed: int = 0


@dataclass(frozen=True)
class IndexCheck:
    """Whether the three places a chunk lives agree: its row in the database, its entry in the
    keyword index and its vector. `keyword_*` are None where the keyword index is part of the
    chunk's row (PostgreSQL's generated column) and so cannot disagree with it."""

    chunks: int  # chunks of ready documents
    vectors: int
    missing_vectors: tuple[str, ...]  # chunk ids of ready documents without a vector
    stray_vectors: tuple[str, ...]  # vectors whose chunk is not in a ready document
    missing_keywords: int | None  # chunks the keyword index does not hold
    stray_keywords: int | None  # keyword entries of no chunk
    # Spreadsheets whose sheets are not kept as tables (added before they were, or restored).
    sheets_without_tables: tuple[str, ...] = ()

    @property
    def agrees(self) -> bool:
        return not (self.missing_vectors or self.stray_vectors or self.missing_keywords or self.stray_keywords
                    or self.sheets_without_tables)


@dataclass(frozen=True)
class IndexRepair:
    """What `docchat documents repair` did: vectors embedded again, stray ones dropped, the
    keyword index rebuilt from the chunks' text."""

    embedded: int
    dropped: int
    keyword_index_rebuilt: bool
    tables_written: int = 0  # spreadsheets whose sheets were read again into tables


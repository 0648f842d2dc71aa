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


@dataclass(frozen=True)
class LibraryHealth:
    """The document library as `docchat doctor` and the Settings page show it."""

    documents: int
    chunks: int
    vectors: int | None  # None when the index cannot be opened
    embedder: str
    problem: str | None  # what is wrong and what to run, or None

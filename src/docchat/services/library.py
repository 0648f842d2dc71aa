"""The document library's five services, wired together over one index client: the library
itself (docchat.services.documents), adding files (ingestion), searching (retrieval), figures
computed over its tables (figures) and the index's care (library_index). The composition root builds them here, and so may a test, with
fakes for the ports."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from docchat.ports import Embedder, FileStore, PageRenderer, Parser, SheetTables, TokenCounter, UnitOfWorkFactory, WordIndex
from docchat.services.documents import DocumentService
from docchat.services.figures import FigureService
from docchat.services.ingestion import IngestionService
from docchat.services.library_check import SheetReader
from docchat.services.library_index import ClosableIndex, IndexService
from docchat.services.retrieval import RetrievalService


@dataclass(frozen=True)
class Library:
    documents: DocumentService
    ingestion: IngestionService
    retrieval: RetrievalService
    figures: FigureService
    index: IndexService


def build_library(uow: UnitOfWorkFactory, index_factory: Callable[[], ClosableIndex], embedder: Embedder,
                  counter: TokenCounter, *, parser: Parser, files: FileStore, renderer: PageRenderer,
                  max_bytes: int, words: Callable[[], WordIndex] | None = None,
                  tables: SheetTables | None = None) -> Library:
    """`words`: the word index of a store that does not search its chunks by words itself;
    `tables`: where spreadsheets' sheets are kept as tables (None: they are not)."""
    sheets = SheetReader(files, parser, tables) if tables is not None else None
    index = IndexService(uow, index_factory, embedder, files, words, sheets)
    documents = DocumentService(uow, index.open, files=files, renderer=renderer, tables=tables)
    ingestion = IngestionService(uow, counter, embedder, parser=parser, files=files, open_index=index.open,
                                 remove=documents.remove, max_bytes=max_bytes, tables=tables)
    return Library(documents, ingestion, RetrievalService(uow, index.open, embedder, words),
                   FigureService(tables, embedder),
                   index)

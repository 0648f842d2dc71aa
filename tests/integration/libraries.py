"""A library of a few documents over the real services in a folder, for tests that ask many
questions of the same files."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path


def library_of(folder: Path, files: dict[str, bytes]) -> Iterator:
    """The services over a new data dir in `folder`, with `files` ingested (no LLM server contacted);
    closed when the generator is."""
    from docchat.bootstrap import build_services
    from docchat.config import Settings

    services = build_services(Settings(data_dir=folder / "data"), contact_llm=False)
    try:
        for name, data in files.items():
            services.ingestion.ingest(name, data)
        yield services
    finally:
        services.close()


def figure(library, question: str, document: str):
    """The figure the library's figures service computes for `question` of the one document named so."""
    in_scope = [(id_, name) for id_, name in library.retrieval.in_scope(None) if name == document]
    return library.figures.figure(question, in_scope)

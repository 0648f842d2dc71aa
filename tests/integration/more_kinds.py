"""E-books, mail and code (docchat.documents.ebooks, mail and code_files) registered with
docchat.documents.parsing as parsing.py registers its own kinds, so that tests read them
through `parse` itself: in the test's process (`register(monkeypatch.setitem)`, undone after
each test) and in a parsing worker's (`parse`, a target for IsolatedParser). Once parsing.py
registers them, this changes nothing."""

from __future__ import annotations

from collections.abc import Callable

from docchat.documents import code_files, ebooks, mail, parsing
from docchat.domain import ParsedDocument

MODULES = (ebooks, mail, code_files)


def register(setitem: Callable) -> None:
    for module in MODULES:
        for suffix, kind in module.KINDS.items():
            setitem(parsing.KINDS, suffix, kind)
        for kind, parser in module.PARSERS.items():
            setitem(parsing._PARSERS, kind, parser)


def parse(name: str, data: bytes, *, max_bytes: int = parsing.MAX_BYTES) -> ParsedDocument:
    """parsing.parse with these kinds registered, for a worker process (which is ours alone)."""
    register(dict.__setitem__)
    return parsing.parse(name, data, max_bytes=max_bytes)

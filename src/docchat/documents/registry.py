"""The kinds of file docchat reads, gathered from their modules (docchat.documents.kinds): which
kind a file name is, and the one sentence the page, the API and `docchat ingest --help` say them
in. A kind module added to MODULES is read, refused by name and said everywhere."""

from __future__ import annotations

from pathlib import PurePath

from docchat.documents.kinds import Kind, code, docx, ebooks, html, images, mail, markdown, pdf, sheets, slides, text

# In the order the sentence says them.
MODULES = (pdf, docx, markdown, text, html, slides, sheets, ebooks, mail, code, images)
KINDS: dict[str, Kind] = {kind.name: kind for module in MODULES for kind in module.KINDS}
SUFFIXES: dict[str, Kind] = {suffix: kind for kind in KINDS.values() for suffix in kind.suffixes}
READABLE = ", ".join(module.WORDS for module in MODULES[:-1]) + f", and {MODULES[-1].WORDS}"


def kind_of(name: str) -> Kind | None:
    """The kind of a file by its name's suffix (any case; a Windows path's too), or None."""
    return SUFFIXES.get(PurePath(name.replace("\\", "/")).suffix.lower())


def reads(name: str) -> bool:
    """Whether a file of this name is of a kind docchat reads."""
    return kind_of(name) is not None

"""E-books (.epub): one section per chapter, in the book's reading order.

An EPUB is a zip: META-INF/container.xml names the package document (OPF), whose manifest
lists the files and whose spine gives the reading order; the navigation document (EPUB 3) or
the NCX (EPUB 2) gives the chapters their titles. Chapters are XHTML, read by the HTML reading
docchat already has (docchat.documents.kinds.html), so no e-book library is needed.

Invariants (beside docchat.documents.parsing's, which hold here too):
- One section per XHTML document of the spine, in spine order, labelled by the title the
  book's table of contents gives it, else its first heading, else `chapter N` (N its place
  among the spine's chapters).
- A chapter's tables are kept as tables, named by the chapter ("Prices, table 1"; its number
  beside a title two chapters share: "Notes, table 1 (chapter 7)").
- Only the zip's own entries are read: an href that leaves the zip (a URL, a path climbing out)
  is skipped, never followed. XML goes through expat, which resolves no external entity and
  refuses an entity expansion that blows up (its amplification limit, expat 2.4 and later).
- At most MAX_EXPANSION times the upload limit is unpacked, counted as the bytes come out of
  the zip, so a zip that lies about its sizes is stopped too.
- A book whose chapters are encrypted (DRM: listed in META-INF/encryption.xml by any algorithm
  but font obfuscation), or a zip with a password, is refused in one line.
"""

from __future__ import annotations

import io
import posixpath
import re
import zipfile
from dataclasses import replace
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from docchat.documents.kinds import Kind, Read
from docchat.documents.kinds.html import read_with_tables
from docchat.documents.text_reading import BEGINNING, size, stray_bytes_allowed
from docchat.domain import Section
from docchat.domain.documents import SheetTable
from docchat.errors import InvalidInput

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

WORDS = "e-books (EPUB)"
# A book unpacks to its size many times over only when it is a zip bomb (as a Word document's, kinds.docx).
MAX_EXPANSION = 20
CHAPTER_TYPES = {"application/xhtml+xml", "text/html"}
# Fonts "encrypted" this way are only obfuscated (EPUB's and Adobe's font mangling): not DRM.
FONT_OBFUSCATION = {"http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"}
_HEAD_START = re.compile(rb"<head[\s>]", re.IGNORECASE)
_HEAD_END = re.compile(rb"</head\s*>", re.IGNORECASE)


def read_epub(shown: str, data: bytes, max_bytes: int) -> Read:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            book = _Book(shown, archive, MAX_EXPANSION * max_bytes)
            return book.sections()
    except (InvalidInput, MemoryError):
        raise
    except Exception:
        # zipfile, expat and damaged-package errors all mean the same thing to the user.
        raise InvalidInput(f"{shown} is not a readable e-book (.epub)") from None


class _Book:
    """One EPUB's zip, read entry by entry within a budget of unpacked bytes."""

    def __init__(self, shown: str, archive: zipfile.ZipFile, budget: int):
        self.shown, self.archive, self.budget, self.left = shown, archive, budget, budget
        self.entries = {info.filename: info for info in archive.infolist()}
        declared = sum(info.file_size for info in self.entries.values())
        if declared > budget:
            raise InvalidInput(f"{shown} unpacks to {size(declared)}, too much for an e-book")
        if any(info.flag_bits & 0x1 for info in self.entries.values()):
            raise InvalidInput(f"{shown} is password-protected")

    def sections(self) -> Read:
        package = self._package_path()
        root = self._xml(package)
        if root is None:
            raise InvalidInput(f"{self.shown} is not a readable e-book (its package is missing)")
        manifest = {item.get("id"): item for item in _children(root, "manifest", "item")}
        spine = next(iter(_children(root, "spine")), None)
        folder = posixpath.dirname(package)
        chapters = [
            path
            for ref in _children(root, "spine", "itemref")
            if (item := manifest.get(ref.get("idref"))) is not None
            and item.get("media-type") in CHAPTER_TYPES
            and (path := _inside(folder, item.get("href", ""))) is not None
        ]
        if not chapters:
            raise InvalidInput(f"{self.shown} has no chapters to read: its spine lists none")
        self._refuse_drm(set(chapters))
        titles = self._nav_titles(folder, manifest) or self._ncx_titles(folder, manifest, spine)
        sections: list[Section] = []
        tables: list[SheetTable] = []
        for number, path in enumerate(chapters, start=1):
            section, found = self._chapter(number, path, titles.get(path))
            sections.append(section)
            # Two chapters of one title: a table is named by the chapter's number too.
            taken = {table.sheet for table in tables}
            tables += [table if table.sheet not in taken else replace(table, sheet=f"{table.sheet} (chapter {number})")
                       for table in found]
        return Read(sections, tables=tuple(tables))

    def _package_path(self) -> str:
        container = self._xml("META-INF/container.xml")
        rootfiles = [] if container is None else [
            path for rootfile in _descendants(container, "rootfile")
            if (path := _inside("", rootfile.get("full-path", ""))) is not None
        ]
        if not rootfiles:
            raise InvalidInput(f"{self.shown} is not an e-book: it has no META-INF/container.xml naming its package")
        return rootfiles[0]

    def _refuse_drm(self, chapters: set[str]) -> None:
        encryption = self._xml("META-INF/encryption.xml")
        if encryption is None:
            return
        for encrypted in _descendants(encryption, "EncryptedData"):
            method = next(iter(_descendants(encrypted, "EncryptionMethod")), None)
            algorithm = "" if method is None else method.get("Algorithm", "")
            for reference in _descendants(encrypted, "CipherReference"):
                if algorithm not in FONT_OBFUSCATION and _inside("", reference.get("URI", "")) in chapters:
                    raise InvalidInput(f"{self.shown} is protected by DRM (its chapters are encrypted)")

    def _nav_titles(self, folder: str, manifest: dict[str | None, Element]) -> dict[str, str]:
        """Chapter path -> title, from the EPUB 3 navigation document's table of contents."""
        from bs4 import BeautifulSoup

        nav_item = next((item for item in manifest.values() if "nav" in item.get("properties", "").split()), None)
        nav_path = None if nav_item is None else _inside(folder, nav_item.get("href", ""))
        data = None if nav_path is None else self.read(nav_path)
        if nav_path is None or not data:
            return {}
        navs = BeautifulSoup(data, "html.parser").find_all("nav")
        toc = next((nav for nav in navs if "toc" in str(nav.get("epub:type", "")).split()), navs[0] if navs else None)
        entries = [] if toc is None else [(str(link.get("href") or ""), link.get_text(" ", strip=True))
                                          for link in toc.find_all("a")]
        return _first_titles(posixpath.dirname(nav_path), entries)

    def _ncx_titles(self, folder: str, manifest: dict[str | None, Element], spine: Element | None) -> dict[str, str]:
        """Chapter path -> title, from the EPUB 2 NCX the spine names (or any in the manifest)."""
        named = None if spine is None else manifest.get(spine.get("toc") or "")
        ncx_item = named if named is not None else next(
            (item for item in manifest.values() if item.get("media-type") == "application/x-dtbncx+xml"), None)
        ncx_path = None if ncx_item is None else _inside(folder, ncx_item.get("href", ""))
        ncx = None if ncx_path is None else self._xml(ncx_path)
        if ncx_path is None or ncx is None:
            return {}
        entries = []
        for point in _descendants(ncx, "navPoint"):
            content = next(iter(_descendants(point, "content")), None)
            label = next(iter(_descendants(point, "text")), None)
            if content is not None and label is not None:
                entries.append((content.get("src", ""), " ".join("".join(label.itertext()).split())))
        return _first_titles(posixpath.dirname(ncx_path), entries)

    def _chapter(self, number: int, path: str, title: str | None) -> tuple[Section, tuple[SheetTable, ...]]:
        """The chapter as a section, and its tables, named by it ("Prices, table 1")."""
        data = self.read(path) or b""
        if data.count(b"\x00") > stray_bytes_allowed(data):
            raise InvalidInput(f"{self.shown} has a chapter that is not text (encrypted or damaged?)")
        # The head's <title> is most often the book's, repeated in every chapter: not its text.
        read = read_with_tables(self.shown, _without_head(data), lambda n: f"table {n}")
        parts = read.sections
        heading = next((part.label for part in parts if part.label != BEGINNING and part.label.strip()), None)
        label = title or heading or f"chapter {number}"
        tables = tuple(replace(table, sheet=f"{label}, {table.sheet}") for table in read.tables)
        return Section(label, None, "\n\n".join(part.text for part in parts)), tables

    def _xml(self, path: str) -> Element | None:
        from xml.etree import ElementTree

        data = self.read(path)
        return None if data is None else ElementTree.fromstring(data)

    def read(self, path: str) -> bytes | None:
        """The entry's bytes (None when the zip has no such entry), counted against the budget."""
        info = self.entries.get(path)
        if info is None:
            return None
        with self.archive.open(info) as entry:
            data = entry.read(self.left + 1)
        if len(data) > self.left:
            raise InvalidInput(f"{self.shown} unpacks to more than {size(self.budget)}, too much for an e-book")
        self.left -= len(data)
        return data


def _without_head(data: bytes) -> bytes:
    start = _HEAD_START.search(data)
    end = None if start is None else _HEAD_END.search(data, start.end())
    return data if start is None or end is None else data[: start.start()] + data[end.end():]


def _inside(folder: str, href: str) -> str | None:
    """The zip entry an href relative to `folder` names, or None when it points outside the zip."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or not parts.path:
        return None
    path = posixpath.normpath(posixpath.join(folder, unquote(parts.path)))
    return None if path.startswith(("../", "/")) or path == ".." else path


def _first_titles(folder: str, entries: list[tuple[str, str]]) -> dict[str, str]:
    """Path -> the first non-blank title given to it: a chapter's later entries are its sections."""
    titles: dict[str, str] = {}
    for href, title in entries:
        path = _inside(folder, href)
        if path is not None and title and path not in titles:
            titles[path] = title
    return titles


def _local(tag: object) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _descendants(element: Element, name: str) -> list[Element]:
    """Elements named `name` in any namespace (OPF, NCX and OCF files use several, or none)."""
    return [found for found in element.iter() if _local(found.tag) == name]


def _children(root: Element, parent: str, name: str | None = None) -> list[Element]:
    """The `parent` elements of the package, or their `name` children."""
    parents = _descendants(root, parent)
    if name is None:
        return parents
    return [child for element in parents for child in element if _local(child.tag) == name]


KINDS = (Kind("epub", (".epub",), read_epub),)

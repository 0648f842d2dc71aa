"""Fakes of the document library's adapter ports for unit tests: stored files, the page
renderer, the parser, the embedders, the chunk index and a followed folder's files. They record
what happened, so tests assert behaviour. (tests.unit.fakes re-exports them beside the other
ports' fakes.)"""

from __future__ import annotations

import re

from docchat.domain import ParsedDocument, SeenFile, Section, content_hash
from docchat.errors import InvalidInput


class FakeFiles:
    """The FileStore port over a dict (path -> bytes); the same content is stored once, as the real store does."""

    def __init__(self):
        self.files: dict[str, bytes] = {}

    def store(self, name: str, data: bytes) -> str:
        digest = content_hash(data)
        path = next((p for p in self.files if p.startswith(f"documents/{digest}-")), f"documents/{digest}-{name}")
        self.files[path] = data
        return path

    def read(self, path: str) -> bytes | None:
        return self.files.get(path)

    def remove(self, path: str) -> None:
        self.files.pop(path, None)

    def strays(self, kept) -> list[str]:
        return sorted(p for p in self.files if p not in kept)


class FakeRenderer:
    """The PageRenderer port: hands back a picture naming the page, and records what it drew."""

    def __init__(self, marked: int = 1):
        self.marked = marked
        self.drawn: list[tuple[bytes, int, str]] = []

    def __call__(self, pdf: bytes, page_number: int, passage: str, *, kind: str = "pdf") -> tuple[bytes, int]:
        self.drawn.append((pdf, page_number, passage))
        return f"PNG of page {page_number}".encode(), self.marked


class FakeParser:
    """The Parser port: a file's text is one section (a page each, split at form feeds, for a
    .pdf); a name in `refused` is refused in one line, as the real parsers refuse."""

    def __init__(self, *refused: str):
        self.refused = set(refused)
        self.parsed: list[str] = []
        self.scans: set[str] = set()  # names of "scanned" PDFs, whose pages tell progress

    def reads(self, name: str) -> bool:
        return name.rpartition(".")[2] in ("pdf", "txt", "md")

    def kinds_in_words(self) -> str:
        return "PDF, text and Markdown"

    def parse(self, name: str, data: bytes, *, max_bytes: int, progress=None) -> ParsedDocument:
        self.parsed.append(name)
        if name in self.refused:
            raise InvalidInput(f"{name} is not a document docchat can read")
        kind = name.rpartition(".")[2]
        text = data.decode()
        if kind == "pdf":
            pages = text.split("\f")
            sections = [Section(f"page {n}", n, page) for n, page in enumerate(pages, start=1)]
            if name in self.scans and progress is not None:
                for n in range(1, len(pages) + 1):
                    progress(n, len(pages))  # as the real parser tells each page it reads by OCR
        else:
            sections = [Section("Body", None, text)]
        return ParsedDocument(name, kind, sections)

    def close(self) -> None:
        pass


class FakeEmbedder:
    """The Embedder port: a text's vector is its length; `failure` is raised instead, when set."""

    name = model_id = "fake-lengths"
    dimension = 1

    def __init__(self, failure: Exception | None = None):
        self.failure = failure

    def embed(self, texts: list[str]) -> list[list[float]]:
        if self.failure is not None:
            raise self.failure
        return [[float(len(text))] for text in texts]


class FakeIndex:
    """The chunk index in memory: (chunk id, document id) -> vector."""

    exclusive = False

    def __init__(self):
        self.points: dict[tuple[str, str], list[float]] = {}

    def ensure_collection(self) -> None:
        pass

    def add_points(self, points) -> None:
        self.points.update({(chunk_id, document_id): list(vector) for chunk_id, document_id, vector in points})

    def delete_document(self, document_id: str) -> None:
        self.points = {key: vector for key, vector in self.points.items() if key[1] != document_id}

    def count(self) -> int:
        return len(self.points)

    def vectors_of(self, chunk_ids) -> dict[str, list[float]]:
        held = {chunk_id: vector for (chunk_id, _), vector in self.points.items()}
        return {chunk_id: held[chunk_id] for chunk_id in chunk_ids if chunk_id in held}

    def close(self) -> None:
        pass


class WordsEmbedder:
    """The Embedder port by bag of words (hashed into 256 slots): texts sharing words are close,
    as they are to a real model; `calls` records each batch asked for."""

    name = model_id = "fake-words"
    dimension = 256

    def __init__(self):
        self.calls: list[list[str]] = []

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        vectors = []
        for text in texts:
            vector = [0.0] * self.dimension
            for word in re.findall(r"[a-z]{3,}", text.lower()):
                vector[sum(map(ord, word)) % self.dimension] += 1.0
            vectors.append(vector)
        return vectors


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

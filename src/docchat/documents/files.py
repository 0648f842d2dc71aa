"""Uploaded files on disk, stored by content.

Invariants:
- A stored file lives at `data_dir/documents/<hash[:2]>/<hash>-<safe name>`, where hash is the
  sha256 of its bytes, and its resolved path is always inside `data_dir`: no upload name,
  however hostile (`../../x`, `C:\\evil`, NUL bytes), can place a file anywhere else.
- The same bytes are stored once: a second upload returns the path already on disk.
- A stored file is complete or absent: bytes go to a temporary file beside the target, then
  `os.replace` moves it into place, so a crash never leaves half a document under its name.
"""

from __future__ import annotations

import os
import re
import tempfile
import unicodedata
from collections.abc import Set
from pathlib import Path

from docchat.domain import content_hash
from docchat.errors import InvalidInput

# Well under the usual 255-byte file name limit once the 65-character hash prefix is added.
MAX_NAME_BYTES = 120
MAX_EXTENSION_CHARS = 10
FALLBACK_NAME = "document"
# Characters Windows refuses in file names, plus the path separators of both worlds.
_UNSAFE = re.compile(r'[<>:"/\\|?*]')


def sanitise_name(upload_name: str) -> str:
    """A file name safe to create: one path component, printable, short, extension kept."""
    # Browsers and clients send either separator; only the last component is a name.
    name = re.split(r"[/\\]", unicodedata.normalize("NFC", upload_name))[-1]
    # Control and format characters (NUL, newlines, bidi overrides) would hide the real name.
    name = "".join(" " if unicodedata.category(ch) in {"Cc", "Cf", "Zl", "Zp"} else ch for ch in name)
    name = _UNSAFE.sub("_", name)
    name = re.sub(r"\s+", " ", name)
    # Runs of dots collapse so no `..` survives; leading dots would hide the file on Unix,
    # trailing dots and spaces are dropped by Windows.
    name = re.sub(r"\.{2,}", ".", name).strip(" .")
    stem, dot, extension = name.rpartition(".")
    if not dot or not stem or len(extension) > MAX_EXTENSION_CHARS or not extension.isalnum():
        stem, extension = name, ""
    extension = extension.lower()
    stem = _truncate_utf8(stem, MAX_NAME_BYTES - len(extension) - 1).rstrip(" .") or FALLBACK_NAME
    return f"{stem}.{extension}" if extension else stem


def store_file(data_dir: Path, upload_name: str, data: bytes) -> Path:
    """Store the bytes under data_dir, or return where identical bytes are already stored."""
    digest = content_hash(data)
    folder = data_dir / "documents" / digest[:2]
    existing = sorted(folder.glob(f"{digest}-*")) if folder.is_dir() else []
    if existing:
        return existing[0]
    target = folder / f"{digest}-{sanitise_name(upload_name)}"
    # Belt and braces: sanitising should make this impossible, but a mistake there, or a
    # symlinked documents folder, must not let an upload write anywhere but its hash folder.
    resolved = target.resolve()
    if resolved.parent != folder.resolve() or not resolved.is_relative_to(data_dir.resolve()):
        raise InvalidInput(f"{upload_name!r} cannot be stored: its name leads outside the data folder")
    folder.mkdir(parents=True, exist_ok=True)
    # The leading dot keeps a half-written file out of the `<hash>-*` lookup above.
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{digest[:12]}-", suffix=".part")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


def stray_files(data_dir: Path, stored: set[str]) -> list[Path]:
    """Files under data_dir/documents that no document names (`stored`: paths relative to
    data_dir): left by a crash between writing a file and its row, or its row and the file's
    removal, and half-written `.part` files."""
    folder = data_dir / "documents"
    if not folder.is_dir():
        return []
    return sorted(path for path in folder.glob("*/*")
                  if path.is_file() and str(path.relative_to(data_dir)) not in stored)


class StoredFiles:
    """The file store the services use (docchat.ports.FileStore): the files above, each named by
    its path relative to `data_dir`."""

    def __init__(self, data_dir: Path):
        self._data_dir = data_dir

    def store(self, name: str, data: bytes) -> str:
        return str(store_file(self._data_dir, name, data).relative_to(self._data_dir))

    def read(self, path: str) -> bytes | None:
        stored = self._data_dir / path
        return stored.read_bytes() if stored.is_file() else None

    def remove(self, path: str) -> None:
        (self._data_dir / path).unlink(missing_ok=True)

    def strays(self, kept: Set[str]) -> list[str]:
        return [str(path.relative_to(self._data_dir)) for path in stray_files(self._data_dir, set(kept))]


def _truncate_utf8(text: str, max_bytes: int) -> str:
    """The longest prefix of text whose UTF-8 encoding fits max_bytes, cut between characters."""
    return text.encode("utf-8")[: max(max_bytes, 0)].decode("utf-8", errors="ignore")

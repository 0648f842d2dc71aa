"""What several kinds of file share when their bytes are read as text: the checks that refuse a
binary or another encoding, sections cut at headings, and a size said in words for a refusal."""

from __future__ import annotations

from collections.abc import Iterable

from docchat.domain import Section
from docchat.errors import InvalidInput

MB = 1024 * 1024
# The label of the text before a document's first heading.
BEGINNING = "beginning"
# A stray byte from another encoding, or a stray NUL, is forgiven; more of either than this
# share means "not text".
MAX_STRAY_BYTE_SHARE = 0.001
MIN_STRAY_BYTES_ALLOWED = 4


def decode(shown: str, data: bytes) -> str:
    """UTF-8 text (a byte order mark dropped, a stray bad byte made U+FFFD), or InvalidInput."""
    refuse_binary(shown, data)
    text = data.decode("utf-8-sig", errors="replace")
    invalid = text.count("\ufffd") - data.count("\ufffd".encode())
    if invalid > stray_bytes_allowed(data):
        raise InvalidInput(f"{shown} is not UTF-8 text (is it a binary file with a text extension?)")
    return text


def refuse_binary(shown: str, data: bytes) -> None:
    # Binaries (and UTF-16, which we do not read) are full of NUL; text has none, or a stray one
    # forgiven like a stray undecodable byte (then dropped with the other control characters).
    if data.count(b"\x00") > stray_bytes_allowed(data):
        raise InvalidInput(f"{shown} looks like a binary file, not text")


def stray_bytes_allowed(data: bytes) -> float:
    return max(MIN_STRAY_BYTES_ALLOWED, len(data) * MAX_STRAY_BYTE_SHARE)


def split_at_headings(blocks: Iterable[tuple[str | None, str]], separator: str = "\n\n") -> list[Section]:
    """Sections from (heading or None, text) blocks; a heading starts a section and leads its text."""
    sections = []
    label = BEGINNING
    texts: list[str] = []
    for heading, text in blocks:
        if heading is not None:
            sections.append(Section(label, None, separator.join(texts)))
            label, texts = heading, []
        texts.append(text)
    sections.append(Section(label, None, separator.join(texts)))
    return sections


def size(count: int) -> str:
    """A number of bytes as a refusal says it: `2.5 MB`, `12 KB`, `300 bytes`."""
    for unit, scale in (("MB", MB), ("KB", 1024)):
        if count >= scale:
            return f"{count / scale:.1f}".removesuffix(".0") + f" {unit}"
    return f"{count} bytes"

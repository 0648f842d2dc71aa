"""Plain text: sections of about SECTION_CHARS, cut at blank lines and labelled by their lines
(`lines 1-42`)."""

from __future__ import annotations

from docchat.documents.kinds import Kind
from docchat.documents.text_reading import decode
from docchat.domain import Section

WORDS = "text"
SECTION_CHARS = 4000


def read_text(shown: str, data: bytes, max_bytes: int) -> list[Section]:
    lines = decode(shown, data).splitlines()
    sections: list[Section] = []
    first = 0
    length = 0
    for number, line in enumerate(lines):
        length += len(line) + 1
        last = number == len(lines) - 1
        if last or (not line.strip() and length >= SECTION_CHARS):
            sections.append(Section(f"lines {first + 1}-{number + 1}", None, "\n".join(lines[first : number + 1])))
            first, length = number + 1, 0
    return sections


KINDS = (Kind("text", (".txt",), read_text),)

"""Text as docchat stores and shows it.

Invariant: text a person gives docchat is stored exactly as given or refused with a message,
never altered on the way in. The one kind refused is text holding a lone surrogate (U+D800-U+DFFF
without its pair): Python makes one of each invalid byte in a command's arguments or a file
name, and of a `\\ud800` escape in JSON, but UTF-8 (SQLite's and PostgreSQL's encoding) has no
bytes for it. Text read out of a document (a PDF whose font maps a glyph to one) is a reading,
not the user's words: there a lone surrogate becomes U+FFFD, as an undecodable byte does.
"""

from __future__ import annotations

import re
import unicodedata

from docchat.errors import InvalidInput

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def lone_surrogate(text: str) -> int | None:
    """Where the first lone surrogate in `text` is, or None when it is all valid Unicode."""
    found = _LONE_SURROGATE.search(text)
    return found.start() if found else None


def require_storable(text: str, what: str) -> None:
    """Refuses text with a lone surrogate, saying where: `what` names it ("a message", "a title")."""
    position = lone_surrogate(text)
    if position is not None:
        raise InvalidInput(f"{what} is not valid Unicode: character {position + 1} is U+{ord(text[position]):04X}, "
                           "a lone surrogate (left by invalid UTF-8?); nothing was stored")


def with_replacement_characters(text: str) -> str:
    """The text with each lone surrogate replaced by U+FFFD."""
    return _LONE_SURROGATE.sub("\ufffd", text)


def one_line(text: str, *, limit: int = 80) -> str:
    """A name from outside (a file, a title) as it may appear inside a one-line message: line
    breaks and other control or format characters become spaces, lone surrogates U+FFFD."""
    text = with_replacement_characters(text)
    text = " ".join("".join(" " if unicodedata.category(ch) in {"Cc", "Cf", "Zl", "Zp"} else ch
                            for ch in text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"

"""Text as docchat stores and shows it.

Invariant: text a person gives docchat is stored exactly as given or refused with a message,
never altered on the way in. Two kinds are refused, on every database alike:
- text holding a lone surrogate (U+D800-U+DFFF without its pair): Python makes one of each
  invalid byte in a command's arguments or a file name, and of a `\\ud800` escape in JSON, but
  UTF-8 (SQLite's and PostgreSQL's encoding) has no bytes for it;
- text holding NUL (U+0000): PostgreSQL's text columns cannot hold it. SQLite can, but a
  conversation that could not move to PostgreSQL (or be imported there) would break the promise
  that the same code runs on both.
Text read out of a document (a PDF whose font maps a glyph to a surrogate, a stray NUL in a text
file) is a reading, not the user's words: there a lone surrogate becomes U+FFFD, as an
undecodable byte does, and NUL is dropped with the other control characters. A NUL in an
uploaded file's name, or in what the model writes, becomes U+FFFD.
"""

from __future__ import annotations

import re
import unicodedata

from docchat.errors import InvalidInput

NUL = "\x00"
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def lone_surrogate(text: str) -> int | None:
    """Where the first lone surrogate in `text` is, or None when it is all valid Unicode."""
    found = _LONE_SURROGATE.search(text)
    return found.start() if found else None


def unstorable(text: str) -> int | None:
    """Where the first character no store holds (NUL or a lone surrogate) is, or None."""
    found = _UNSTORABLE.search(text)
    return found.start() if found else None


def require_storable(text: str, what: str) -> None:
    """Refuses text holding NUL or a lone surrogate, saying where: `what` names it ("a message",
    "a title")."""
    position = unstorable(text)
    if position is None:
        return
    if text[position] == NUL:
        raise InvalidInput(f"{what} holds a NUL character (U+0000) at character {position + 1}, "
                           "which docchat cannot store; nothing was stored")
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

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

Text shown in a terminal (`for_terminal`) holds no control character but newline and tab: an
answer, a document, a title or a citation cannot move the cursor, rewrite a line, retitle the
window, write the clipboard (OSC 52) or plant a hyperlink (OSC 8).

A word's singular (`singular`) is how a question's words meet names: of documents, sheets, columns.
"""

from __future__ import annotations

import re
import unicodedata

from docchat.errors import InvalidInput

NUL = "\x00"
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
# C0 controls but tab and newline (ESC, which starts every escape sequence, and CR, which goes
# back to the start of the line, among them), DEL and the C1 controls (U+0080-U+009F: CSI
# and OSC each have a one-character form there).
_TERMINAL_CONTROLS = dict.fromkeys([*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)])


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


def for_terminal(text: str) -> str:
    """`text` with its control characters dropped, but newline and tab. An escape sequence
    loses its ESC and shows as the plain characters after it. Character by character, so a
    stream's pieces can go through one at a time: a sequence split between two pieces is
    disarmed all the same. A CRLF's LF still ends the line."""
    return text.translate(_TERMINAL_CONTROLS)


def singular(word: str) -> str:
    """A word's singular, roughly: "contracts" -> "contract", "policies" -> "policy"."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word

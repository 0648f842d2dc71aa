"""Conversation titles: what a title may be, the provisional one docchat makes from the first
question until a model names the conversation, and that question back whole for Rename."""

from __future__ import annotations

import re

from docchat.errors import InvalidInput
from docchat.text import require_storable

MAX_TITLE = 200
DEFAULT_TITLE = "New conversation"
MAX_PROVISIONAL = 80
_SENTENCE_END = re.compile(r"(?<=[.?!])\s")
# Words a cut title must not end on: "What is the Determination Date in the" reads broken.
_DANGLING = frozenset("a an the of in on at to for from by with and or but about as into than that this "
                      "these those my your our their its is are was were be what which who how when where "
                      "why if".split())


def clean_title(title: str) -> str:
    if not isinstance(title, str) or not title.strip():
        raise InvalidInput("a title cannot be empty")
    require_storable(title, "a title")
    title = " ".join(title.split())
    if len(title) > MAX_TITLE:
        raise InvalidInput(f"a title can be at most {MAX_TITLE} characters (this one has {len(title)})")
    return title


def title_from(text: str, *, words: int = 8) -> str:
    """A provisional title from the first message, until a model writes a better one: its first
    sentence, or its first words ending on a word that can end a phrase, then "…"."""
    sentence = _SENTENCE_END.split(" ".join(text.split()), maxsplit=1)[0]
    chosen = sentence.split()
    cut = len(chosen) > words or len(sentence) > MAX_PROVISIONAL
    chosen = chosen[:words]
    while len(" ".join(chosen)) > MAX_PROVISIONAL and len(chosen) > 1:
        chosen.pop()
    while cut and len(chosen) > 1 and chosen[-1].lower().strip(",;:") in _DANGLING:
        chosen.pop()
    title = " ".join(chosen)[:MAX_PROVISIONAL].rstrip(" ,.;:")
    return (f"{title}…" if cut else title) or DEFAULT_TITLE


def uncut_title(title: str, text: str) -> str | None:
    """What `title_from` cut `title` from, when it did: the first sentence of `text` on one line,
    cut at a word (and nothing added) if longer than a title can be. None when `title` is not
    `text`'s first words with the "…" that `title_from` ends a cut with."""
    if not title.endswith("…"):
        return None
    sentence = _SENTENCE_END.split(" ".join(text.split()), maxsplit=1)[0]
    if not sentence.startswith(title[:-1]) or len(sentence) <= len(title) - 1:
        return None
    if len(sentence) > MAX_TITLE:
        cut = sentence[:MAX_TITLE + 1]
        sentence = cut.rsplit(" ", 1)[0] if " " in cut else cut[:MAX_TITLE]
    return sentence

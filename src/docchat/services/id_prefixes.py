"""Ids typed short: any start of an id that picks out one conversation or document.

A full id always names its own (imported ids need not be uuids, nor 4 characters long);
otherwise the prefix must have at least 4 characters, so that a slip cannot pick one by chance,
and must match exactly one: the message for several names the first few, to type more of one.
"""

from __future__ import annotations

from typing import Callable

from docchat.errors import InvalidInput, NotFound
from docchat.text import one_line, unstorable

MIN_PREFIX = 4
# A uuid's length: an id typed in full that matches nothing is reported as an unknown id.
FULL_ID = 36
SHOWN = 3


def resolve(prefix: str, noun: str, *, exists: Callable[[str], bool],
            starting_with: Callable[[str], list[tuple[str, str]]]) -> str:
    """The one id `prefix` stands for; `starting_with` gives (id, title or name) of the candidates."""
    if unstorable(prefix) is not None:
        # No id holds NUL or a lone surrogate (docchat.text), and PostgreSQL refuses to be asked.
        raise NotFound(_none(noun, one_line(repr(prefix))))
    if exists(prefix):
        return prefix
    if len(prefix) < MIN_PREFIX:
        raise InvalidInput(f"{prefix!r} is too short: give at least {MIN_PREFIX} characters of the {noun} id")
    matches = starting_with(prefix)
    if len(matches) == 1:
        return matches[0][0]
    if not matches:
        raise NotFound(_none(noun, prefix))
    shown = ", ".join(f"{found} ({label})" for found, label in matches[:SHOWN])
    more = f" and {len(matches) - SHOWN} more" if len(matches) > SHOWN else ""
    raise InvalidInput(f"{prefix} matches {len(matches)} {noun}s: {shown}{more}; type more of the id")


def _none(noun: str, prefix: str) -> str:
    return f"no {noun} with id {prefix}" if len(prefix) >= FULL_ID else f"no {noun} starts with {prefix}"

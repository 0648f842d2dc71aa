"""Sharing the prompt's room for passages among documents (a comparison, or the whole collection),
so that each gets its own, best passages first.

Taken in turns: each document's best passage, then each one's second, and so on while they fit.
So the room is shared equally, a document with fewer good passages leaves its room to the others,
and a passage too long for what is left ends its document's turns, never the others'.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def take_in_turns(ranked: Mapping[str, Sequence[int]], room: int) -> dict[str, int]:
    """How many passages to take from the head of each document's ranking (their token counts,
    best first) within `room` tokens; a document that gets none is left out."""
    taken = dict.fromkeys(ranked, 0)
    open_turns = list(ranked)
    while open_turns:
        for document in list(open_turns):
            tokens = ranked[document]
            at = taken[document]
            if at < len(tokens) and tokens[at] <= room:
                room -= tokens[at]
                taken[document] = at + 1
            else:
                open_turns.remove(document)
    return {document: count for document, count in taken.items() if count}

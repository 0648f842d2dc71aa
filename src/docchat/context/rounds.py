"""The whole collection in rounds, when its passages do not fit one prompt (map, then reduce).

Each round gives the model as many of the documents' passages as fit the passage budget, in
turns (each document's best first), numbered as the answer will cite them: the first round
[1]-[9], the second [10]-[17], and so on. The model writes notes on what they say about the
question, each ending with the numbers of its passages. The answer is then written from every
round's notes, with those numbers, so that its citations point at the passages themselves.

A round is a request to the same model and server as the answer: with the same system prompt
first, so that the prefix cache serves it. Rounds run before the question is kept; the page
shows each as it starts, and Stop ends the work between them. A round that fails leaves the
collection to one prompt, with the documents left out named.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from docchat.context.evidence import Part, numbered
from docchat.domain import Retrieved
from docchat.ports import Gateway
from docchat.retrieval.quotas import in_turns

# At most this many rounds a question; documents past them are left out, and said to be.
MAX_ROUNDS = 6
# Each round's notes may take this share of the passage budget, split among the rounds (the
# answer is written from all of them in one prompt), and at least NOTE_TOKENS_MIN.
NOTE_TOKENS_MIN = 48
NOTES_ASKED = ("Write short notes of what these passages say that answers the question: one line per point, "
               "each ending with the number of its passage in brackets, e.g. [3]. Leave out passages that say "
               "nothing about it. Write only the notes.")
NOTES_HEADING = "Notes taken from the documents in {rounds} rounds (cite the passages by their numbers, e.g. [1]):"


@dataclass(frozen=True)
class Round:
    parts: tuple[Part, ...]
    first: int  # the number of its first passage, as the answer cites it
    notes: str = ""

    @property
    def documents(self) -> list[str]:
        return list(dict.fromkeys(part.first.document for part in self.parts))


def in_rounds(rankings: Sequence[list[Retrieved]], fill: Callable[[list[Retrieved]], list[Part]]) -> list[Round]:
    """The documents' passages (each document's ranking, closest first) shared into rounds: each
    round filled (`fill`) from the documents no round has read yet, taken in turns; at most
    MAX_ROUNDS, and none once a round reads nothing new."""
    rounds: list[Round] = []
    left = [ranking for ranking in rankings if ranking]
    first = 1
    while left and len(rounds) < MAX_ROUNDS:
        parts = fill(in_turns(left))
        read = {part.first.chunk.document_id for part in parts}
        if not read:
            break
        rounds.append(Round(tuple(parts), first))
        first += len(parts)
        left = [ranking for ranking in left if ranking[0].chunk.document_id not in read]
    return rounds


def notes_asked(system_prompt: str, question: str, one: Round) -> list[dict]:
    """The request for one round's notes: the system prompt (its prefix cached), the round's
    passages numbered as the answer cites them, the question, and what to write."""
    passages = numbered([part.source for part in one.parts], start=one.first)
    return [{"role": "system", "content": system_prompt},
            {"role": "user", "content": f"Context:\n{passages}\n\nQuestion: {question}\n\n{NOTES_ASKED}"}]


def noted(gateway: Gateway, messages: list[dict], max_tokens: int) -> str:
    """What the model writes for a round, whole (a round is read, not streamed to anyone)."""
    generation = gateway.stream(messages, max_tokens=max_tokens, stop=threading.Event())
    try:
        return "".join(generation).strip()
    finally:
        generation.close()


def notes_turn(question: str, rounds: Sequence[Round]) -> str:
    """The user turn the answer is written from: each round's notes, named by the documents it
    read, then the question."""
    noted_rounds = "\n\n".join(
        f"Round {n} ({', '.join(one.documents)}; passages [{one.first}]-[{one.first + len(one.parts) - 1}]):\n"
        f"{one.notes or '(nothing about the question)'}" for n, one in enumerate(rounds, start=1))
    return f"{NOTES_HEADING.format(rounds=len(rounds))}\n\n{noted_rounds}\n\nQuestion: {question}"

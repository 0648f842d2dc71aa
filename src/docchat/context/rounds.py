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

Only notes the passages bear out are kept: a line must cite a passage of its round, and at least
NOTE_SUPPORT of its words must be in the passages it cites. A round whose notes keep no line (a
small model's, which invent documents, repeat themselves or cite numbers not given) is noted by
docchat instead: from each passage, its sentence holding the most of the question's words,
quoted with its number.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from docchat.context.evidence import Part, numbered
from docchat.domain import Retrieved
from docchat.ports import Gateway
from docchat.retrieval.quotas import in_turns
from docchat.context.quotes import best_sentence, sentence_counts, stems
from docchat.retrieval.words import tokenize

# At most this many rounds a question; documents past them are left out, and said to be.
MAX_ROUNDS = 6
# Each round's notes may take this share of the passage budget, split among the rounds (the
# answer is written from all of them in one prompt), and at least NOTE_TOKENS_MIN.
NOTE_TOKENS_MIN = 48
NOTES_ASKED = ("Write short notes of what these passages say that answers the question: one line per point, "
               "each ending with the number of its passage in brackets, e.g. [3]. Leave out passages that say "
               "nothing about it. Write only the notes.")
# The share of a note line's words that the passages it cites must hold for the line to be kept.
NOTE_SUPPORT = 0.6
# A kept note line says at least this many words beyond the names of the passages it cites.
NOTE_WORDS_MIN = 3
_MARK = re.compile(r"\[(\d+)\]")
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
    noted_rounds = "\n\n".join(f"{heading(n, one)}\n{one.notes or '(nothing about the question)'}"
                                 for n, one in enumerate(rounds, start=1))
    return f"{NOTES_HEADING.format(rounds=len(rounds))}\n\n{noted_rounds}\n\nQuestion: {question}"


def heading(n: int, one: Round) -> str:
    """"Round 2 (a.md, b.md; passages [6]-[11]):", above the round's notes."""
    return f"Round {n} ({', '.join(one.documents)}; passages [{one.first}]-[{one.first + len(one.parts) - 1}]):"


def borne_out(notes: str, one: Round) -> str:
    """The lines of a round's notes that its passages bear out: each cites only passages of the
    round, says NOTE_WORDS_MIN words or more besides their names, and at least NOTE_SUPPORT of
    those words (numbers included) are in the passages' text."""
    texts = {one.first + n: set(tokenize(part.text)) for n, part in enumerate(one.parts)}
    # A passage's document name and place say nothing it holds: a line that only copies them
    # ("[6] supplier-contract-haflund.md, General terms") is no note, however many words it shares.
    named = {one.first + n: set(tokenize(f"{part.first.document} {part.first.where}")) for n, part in enumerate(one.parts)}
    kept = []
    for line in notes.splitlines():
        cited = [int(mark) for mark in _MARK.findall(line)]
        if not cited or any(number not in texts for number in cited):
            continue
        words = set(tokenize(_MARK.sub(" ", line))) - set().union(*(named[number] for number in cited))
        held = set().union(*(texts[number] for number in cited))
        if len(words) >= NOTE_WORDS_MIN and len(words & held) >= NOTE_SUPPORT * len(words):
            kept.append(line.strip())
    return "\n".join(kept)


def passage_counts(rounds: Sequence[Round]) -> Counter[str]:
    """In how many of the rounds' passages each sentence is: a clause every contract shares is
    in all of them, and says least about any one."""
    return sentence_counts(part.text for one in rounds for part in one.parts)


def quoted_notes(question: str, one: Round, max_chars: int, counts: Counter[str]) -> str:
    """docchat's own notes on a round: from each passage, the sentence holding the most of the
    question's words for the passages holding it (`counts`), none when it holds none of them,
    quoted with its number, within `max_chars`."""
    terms = stems(question)
    lines, size = [], 0
    for number, part in enumerate(one.parts, start=one.first):
        best, sentence = best_sentence(terms, part.text, counts)
        if not best:
            continue
        line = f"{part.first.document}: \u201c{sentence}\u201d [{number}]"
        if size + len(line) > max_chars:
            break
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines)

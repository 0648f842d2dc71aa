"""Whether the documents in scope hold the answer to a question: found, weak or not found.

Judged from what retrieval computed anyway (no model, microseconds): for each of the best
few passages, its cosine similarity to the question (MiniLM) plus a share of the question's
content words it holds; the score is the best passage's. Why both: the dense side alone
rates a near miss ("How long does a turkey roast for?" beside the chicken) about as high as a
hit, while exact words (names, numbers, defined terms) are what a near miss lacks; the fused
RRF score alone says only where a passage ranks, not how close it is (any question's best
passage scores 1/60 + 1/60 when both lists agree).

A follow-up is judged by the closer of its two readings (alone, and with the previous
question: docchat.context.followup), so "Can it go up?" after a question about the rent is
judged as the rent review it is about.

Calibrated with `docchat bench grounding` on 83 questions (53 answerable, 30 not; follow-ups
included) over the bench's five documents: see docs/perf/grounding.md for the confusion table
at each threshold. "Not found" is set where no answerable question of the set falls (a
documents-only conversation then does not call the model: a false "not found" costs an
answer), "found" where the fewest unanswerable ones pass for answered.

What an answer cited, apart from what it was given, and how each cited sentence was checked:
an answer is given passages numbered [1]..[k] by their place in the prompt (`Message.citations`).
It *cites* the ones its [n] marks name, in order of first mention; when the model wrote no mark
at all, docchat attributes each sentence to the given passage that supports it (`attributed`).
The check (docchat.context.citation_check) is kept with the answer as a `Grounding`; an answer
kept before the check existed has none, and its cited passages are read from its marks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # domain.documents imports domain.conversations, which imports this module
    from docchat.domain.documents import Retrieved

# The passages that count: the best few of the ranking (the model is given them first).
JUDGED_PASSAGES = 3
# What a passage's holding all the question's content words adds to its similarity.
COVERAGE_WEIGHT = 0.3
# At or above: found. Below NOT_FOUND_BELOW: not found. Between: weak.
FOUND_AT = 0.65
NOT_FOUND_BELOW = 0.55


# The "model" a documents-only reply names: docchat answered it itself, without calling one.
DOCUMENTS_ONLY = "docchat (documents only)"
NOT_FOUND_NOTE = "Not found in your documents: this answer is the model's own."
WEAK_NOTE = "Weak evidence in your documents: check this answer against its sources."


class Judgement(StrEnum):
    FOUND = "found"
    WEAK = "weak"
    NOT_FOUND = "not found"


@dataclass(frozen=True)
class EvidenceStrength:
    """How well the documents in scope support an answer, and the score it was judged from."""

    judgement: Judgement
    score: float

    @property
    def found(self) -> bool:
        return self.judgement is Judgement.FOUND

    def as_dict(self) -> dict[str, str | float]:
        """As `ask --json`, the API and an export carry it."""
        return {"judgement": self.judgement.value, "score": self.score}

    @classmethod
    def from_dict(cls, data: object) -> EvidenceStrength | None:
        """What `as_dict` wrote; None for anything else (an answer from before the judgement)."""
        if not isinstance(data, dict):
            return None
        try:
            return cls(Judgement(data["judgement"]), float(data["score"]))
        except (KeyError, TypeError, ValueError):
            return None


def answer_note(evidence: EvidenceStrength | None, model: str | None) -> str | None:
    """What the page and the terminal say beside an answer given on weak or no evidence (None
    for one found, one never judged, and a documents-only reply, which says so itself)."""
    if evidence is None or model == DOCUMENTS_ONLY:
        return None
    return {Judgement.NOT_FOUND: NOT_FOUND_NOTE, Judgement.WEAK: WEAK_NOTE}.get(evidence.judgement)


def passage_strength(passage: Retrieved) -> float:
    """How close one passage is to the question: its similarity, plus its share of the words."""
    return (passage.similarity or 0.0) + COVERAGE_WEIGHT * passage.coverage


def evidence_score(ranked: list[Retrieved]) -> float:
    """The best of the first passages' strengths; 0 when nothing was found."""
    return round(max((passage_strength(p) for p in ranked[:JUDGED_PASSAGES]), default=0.0), 4)


def judgement_at(score: float, *, found_at: float = FOUND_AT, not_found_below: float = NOT_FOUND_BELOW) -> Judgement:
    if score >= found_at:
        return Judgement.FOUND
    return Judgement.NOT_FOUND if score < not_found_below else Judgement.WEAK


def judge(ranked: list[Retrieved]) -> EvidenceStrength:
    """The judgement of a question's ranked passages (best first)."""
    score = evidence_score(ranked)
    if ranked and all(p.similarity is None for p in ranked[:JUDGED_PASSAGES]):
        # Searched by keywords only (the index or the embeddings server was unavailable): the
        # words alone cannot say "found", and passages that share some are not "nothing found".
        weak = any(p.coverage > 0 for p in ranked[:JUDGED_PASSAGES])
        return EvidenceStrength(Judgement.WEAK if weak else Judgement.NOT_FOUND, score)
    return EvidenceStrength(judgement_at(score), score)


# "[2]", "[1, 3]", "[1][3]": the marks a model writes. A bracketed word ("[citation needed]") is not one.
MARK = re.compile(r"\[(\d{1,3}(?:\s*[,;]\s*\d{1,3})*)\]")


def marks_in(text: str) -> tuple[int, ...]:
    """The passage numbers the text's [n] marks name, each once, in order of first mention."""
    seen: dict[int, None] = {}
    for mark in MARK.finditer(text):
        for number in re.split(r"[,;]", mark.group(1)):
            seen.setdefault(int(number), None)
    return tuple(seen)


@dataclass(frozen=True)
class SentenceCheck:
    """One sentence of an answer: the passages it cites (or was attributed to), whether they hold
    its claim, and the numbers it states that none of them holds."""

    text: str
    cited: tuple[int, ...] = ()
    supported: bool = True
    absent_numbers: tuple[str, ...] = ()

    @property
    def flagged(self) -> bool:
        return not self.supported or bool(self.absent_numbers)

    def as_dict(self) -> dict[str, Any]:
        return {"text": self.text, "cited": list(self.cited), "supported": self.supported,
                "absent_numbers": list(self.absent_numbers)}

    @classmethod
    def from_dict(cls, data: object) -> "SentenceCheck":
        data = data if isinstance(data, dict) else {}
        return cls(text=str(data.get("text") or ""), cited=_numbers(data.get("cited")),
                   supported=data.get("supported") is not False,
                   absent_numbers=tuple(str(n) for n in data.get("absent_numbers") or () if isinstance(n, (str, int))))


@dataclass(frozen=True)
class Grounding:
    """The check of one answer: the passages it cites in order of first mention and the sentences
    checked (those with marks, and those stating a number; every sentence when `attributed`)."""

    cited: tuple[int, ...] = ()
    attributed: bool = False
    sentences: tuple[SentenceCheck, ...] = ()

    @property
    def flagged(self) -> tuple[SentenceCheck, ...]:
        return tuple(s for s in self.sentences if s.flagged)

    def note(self, sentence: SentenceCheck) -> str:
        """What the page, the API and the terminal say of a flagged sentence, in a user's words."""
        notes = []
        if not sentence.supported:
            if sentence.cited and not self.attributed:
                notes.append("not found in " + "".join(f"[{n}]" for n in sentence.cited))
            else:
                notes.append("unsupported: no passage given holds this")
        if sentence.absent_numbers:
            where = "the cited passages" if not self.attributed else "the passages given"
            notes.append(f"{', '.join(sentence.absent_numbers)} not found in {where}")
        return "; ".join(notes)

    def as_dict(self) -> dict[str, Any]:
        return {"cited": list(self.cited), "attributed": self.attributed,
                "sentences": [s.as_dict() for s in self.sentences]}

    @classmethod
    def from_dict(cls, data: object) -> "Grounding | None":
        """From the store's column or an export; anything but an object is no check."""
        if not isinstance(data, dict):
            return None
        sentences = data.get("sentences")
        return cls(cited=_numbers(data.get("cited")), attributed=data.get("attributed") is True,
                   sentences=tuple(SentenceCheck.from_dict(s) for s in sentences)
                   if isinstance(sentences, list) else ())


def _numbers(value: object) -> tuple[int, ...]:
    if not isinstance(value, (list, tuple)):
        return ()
    return tuple(n for n in value if isinstance(n, int) and not isinstance(n, bool))

"""The judgement of an answer's evidence (found, weak or not found: made by
docchat.grounding.evidence) and what a page or a terminal says of it.

What an answer cited, apart from what it was given, and how each cited sentence was checked:
an answer is given passages numbered [1]..[k] by their place in the prompt (`AnswerFacts.citations`).
It *cites* the ones its [n] marks name, in order of first mention; when the model wrote no mark
at all, docchat attributes each sentence to the given passage that supports it (`attributed`).
The check (docchat.grounding.citation_check) is kept with the answer as a `Grounding`; an answer
kept before the check existed has none, and its cited passages are read from its marks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from docchat.domain.numbers import NumberCheck

# The "model" a documents-only reply names: docchat answered it itself, without calling one.
DOCUMENTS_ONLY = "docchat (documents only)"
# The one sentence an answer written under the citation pattern, or quoted, may refuse with.
REFUSAL = "I could not find this in the passages."
# The "model" a quoted answer names: docchat chose the passages' sentences; no model wrote it.
QUOTED_BY = "docchat (quoted)"
# The "model" an answer docchat states names: what it computed, in its own words; no model asked.
STATED_BY = "docchat (computed)"
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


# An opening by which a model's answer claims the documents for itself ("Based on the provided
# data, the CEO's salary is…", written by the bundled model under "Not found in your documents").
_CLAIM = re.compile(r"\s*(?:based\s+(?:up)?on|according\s+to|as\s+per|from)\s+(?:the\s+|your\s+)?"
                    r"(?:(?:provided|given|available|supplied|above|following)\s+)?"
                    r"(?:data|documents?|context|information|passages?|sources?|texts?|excerpts?)"
                    r"(?:\s+(?:provided|given|above|you\s+(?:provided|gave)))?\s*[,:]\s*", re.IGNORECASE)


def unclaimed(text: str) -> str:
    """An answer the documents were judged not to hold, without an opening that says it comes
    from them: the answer is the model's own, and the page says so above it."""
    claim = _CLAIM.match(text)
    if claim is None:
        return text
    rest = text[claim.end():]
    return rest[:1].upper() + rest[1:]


def answer_note(evidence: EvidenceStrength | None, model: str | None) -> str | None:
    """What the page and the terminal say beside an answer given on weak or no evidence (None
    for one found, one never judged, and a documents-only reply, which says so itself)."""
    if evidence is None or model == DOCUMENTS_ONLY:
        return None
    return {Judgement.NOT_FOUND: NOT_FOUND_NOTE, Judgement.WEAK: WEAK_NOTE}.get(evidence.judgement)


class AnswerForm(StrEnum):
    """How an answer was written: in the model's own words (FREE), by the model under a pattern
    that makes every sentence end with marks of passages it was given (CONSTRAINED), as the
    passages' own sentences quoted by docchat (QUOTED), or as what docchat computed, in its own
    words (STATED: a figure of a sheet; docchat.domain.stated), which no user chooses: docchat
    states a figure whenever it computed one."""

    FREE = "free"
    CONSTRAINED = "constrained"
    QUOTED = "quoted"
    STATED = "stated"


# The forms a user may ask for (`ask --form`, the API, the page's menu).
ASKED_FORMS = (AnswerForm.FREE, AnswerForm.CONSTRAINED, AnswerForm.QUOTED)
_FORM_LINES = {AnswerForm.CONSTRAINED: "Written by the model with a citation for every sentence.",
               AnswerForm.QUOTED: "Quoted from your documents.",
               AnswerForm.STATED: "Computed by docchat from your documents; no model wrote it."}


def form_line(form: AnswerForm | None, model: str | None = None) -> str | None:
    """What the page, the terminal and an export say of how an answer was written; None for the
    model's own words (how docchat always answered). A quoted answer by a model (`model`) has the
    model's lead sentence above the quotes."""
    if form is AnswerForm.QUOTED and model not in (None, QUOTED_BY):
        return "Quoted from your documents, under one sentence by the model."
    if form is AnswerForm.STATED and model not in (None, STATED_BY):
        return "Computed by docchat from your documents, with the model's words after it."
    return _FORM_LINES.get(form) if form else None


def uncited_heading(form: AnswerForm | None) -> str:
    """What the passages an answer does not cite are called: a quoted answer asked no model."""
    return "Also found" if form in (AnswerForm.QUOTED, AnswerForm.STATED) else "Also given to the model"


def answer_form(value: object) -> AnswerForm | None:
    """A kept or received form, None when absent or not one docchat knows."""
    return AnswerForm(value) if value in _FORMS else None


_FORMS = {form.value for form in AnswerForm}


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
    # The numbers the model wrote, each found or not in the passages, docchat's figures and the
    # question (docchat.grounding.numbers); None for an answer checked before numbers were.
    numbers: NumberCheck | None = None

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
                "sentences": [s.as_dict() for s in self.sentences],
                **({"numbers": self.numbers.as_dict()} if self.numbers is not None else {})}

    @classmethod
    def from_dict(cls, data: object) -> "Grounding | None":
        """From the store's column or an export; anything but an object is no check."""
        if not isinstance(data, dict):
            return None
        sentences = data.get("sentences")
        return cls(cited=_numbers(data.get("cited")), attributed=data.get("attributed") is True,
                   sentences=tuple(SentenceCheck.from_dict(s) for s in sentences)
                   if isinstance(sentences, list) else (), numbers=NumberCheck.from_dict(data.get("numbers")))


def _numbers(value: object) -> tuple[int, ...]:
    if not isinstance(value, (list, tuple)):
        return ()
    return tuple(n for n in value if isinstance(n, int) and not isinstance(n, bool))


@dataclass(frozen=True)
class Constraint:
    """A pattern an answer must keep to, as each kind of server takes it (docchat.context.citing):
    a regular expression (vLLM's structured outputs) and the same language in GBNF (llama.cpp)."""

    numbers: tuple[int, ...]  # the passages it may cite
    regex: str
    grammar: str

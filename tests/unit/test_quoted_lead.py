"""The lead of a quoted answer: one sentence above the quotes by a model judged to cite well, kept
only when the quotes hold what it says; never asked of a model the gate quotes for."""

from __future__ import annotations

import re

import pytest

from docchat.context.citing import CITE, CITE_CONSTRAINED, JUDGED_ENOUGH, CitationGate, matches
from docchat.domain import AnswerForm, form_line
from docchat.domain.grounding import QUOTED_BY
from docchat.errors import LLMServerError
from docchat.llm.skill_record import JsonSkillRecord

from docchat.services.grounding import CitationChecker

from tests.unit.test_citation_gate import QUESTION, Library
from tests.unit.test_pipeline import TRUST, Setup

QUOTE = "- \u201cThe Determination Date is the 15th calendar day of each month.\u201d [1]"


def judged(tmp_path, *, cites: bool, constrained: bool | None = None, constrains: bool = False) -> Setup:
    """A setup whose model's citing was judged JUDGED_ENOUGH times: well (`cites`) or not."""
    record = JsonSkillRecord(tmp_path)
    for _ in range(JUDGED_ENOUGH):
        record.note("tiny", CITE, usable=cites)
        if constrained is not None:
            record.note("tiny", CITE_CONSTRAINED, usable=constrained)
    return Setup(Library(*TRUST), citation_gate=CitationGate(record), constrains=constrains,
                 checker=CitationChecker(None))


def quoted(setup: Setup, lead: str | Exception | None = None):
    """The question asked for quotes, the model's lead sentence scripted."""
    if isinstance(lead, Exception):
        setup.gateway.enqueue([], failure=lead)
    elif lead is not None:
        setup.gateway.enqueue([lead])
    turn = setup.chat.answer(None, QUESTION, form=AnswerForm.QUOTED)
    turn.text()
    return turn.answer


def test_a_model_that_cites_well_writes_a_lead_the_quotes_hold_above_them(tmp_path):
    setup = judged(tmp_path, cites=True)

    answer = quoted(setup, "The Determination Date is the 15th calendar day of each month [1].")

    lead, quotes = answer.content.split("\n\n", 1)
    assert lead == "The Determination Date is the 15th calendar day of each month [1]."
    assert quotes.splitlines()[0] == QUOTE
    assert (answer.facts.form, answer.facts.model) == (AnswerForm.QUOTED, "tiny")
    assert form_line(answer.facts.form, answer.facts.model) == \
        "Quoted from your documents, under one sentence by the model."
    # It was given the quotes alone, numbered as the answer numbers them.
    (_, user), _ = setup.gateway.requests[-1]
    given = [line for line in user["content"].splitlines() if line.startswith("[")]
    assert given == [re.sub(r"^- (.+) \[(\d+)\]$", r"[\2] \1", line) for line in quotes.splitlines()]
    assert user["content"].endswith(f"Question: {QUESTION}")


@pytest.mark.parametrize("lead", [
    "The Determination Date is the 15th, and payments are made in euros [1].",  # the check's overlap passes it
    "The Determination Date is not the 15th calendar day of each month [1].",
    "The Determination Date is the 16th calendar day of each month [1].",
])
def test_a_lead_that_says_more_than_the_quotes_is_left_out(tmp_path, lead):
    setup = judged(tmp_path, cites=True)

    answer = quoted(setup, lead)

    assert answer.content.startswith(QUOTE)
    assert answer.facts.model == QUOTED_BY
    assert form_line(answer.facts.form, answer.facts.model) == "Quoted from your documents."


def test_a_lead_without_a_mark_or_a_refusal_is_left_out(tmp_path):
    for lead in ("The Determination Date is the 15th calendar day of each month.",
                 "I could not find this in the passages."):
        setup = judged(tmp_path / str(len(lead)), cites=True)
        assert quoted(setup, lead).content.startswith(QUOTE)


def test_a_server_that_fails_while_writing_the_lead_leaves_the_quotes(tmp_path):
    setup = judged(tmp_path, cites=True)

    answer = quoted(setup, LLMServerError("the LLM server answered 500"))

    assert answer.content.startswith(QUOTE) and answer.facts.model == QUOTED_BY


def test_a_model_the_gate_quotes_for_is_never_asked_for_a_lead(tmp_path):
    setup = judged(tmp_path, cites=False, constrained=False, constrains=True)

    turn = setup.chat.answer(None, QUESTION)  # the gate's own choice
    turn.text()

    assert turn.answer.facts.form is AnswerForm.QUOTED
    assert setup.gateway.requests == []
    assert turn.answer.content.startswith(QUOTE)


def test_on_a_server_that_takes_a_pattern_the_lead_is_one_sentence_citing_the_quotes_only(tmp_path):
    setup = judged(tmp_path, cites=False, constrained=True, constrains=True)

    answer = quoted(setup, "The Determination Date is the 15th calendar day of each month [1].")

    assert answer.facts.model == "tiny"
    constraint = setup.gateway.constraints[-1]
    quoted_numbers = tuple(sorted(int(n) for n in re.findall(r"\u201d \[(\d+)\]$", answer.content, re.M)))
    assert constraint.numbers == quoted_numbers
    assert matches("The Determination Date is the 15th [1].", constraint)
    assert not matches("The Determination Date is the 15th [1]. It moves on weekends [1].", constraint)

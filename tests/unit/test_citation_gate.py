"""Which answers are written under the citation pattern: decided by what the served model wrote,
never by its name, and only where there are passages to cite and a server that takes a pattern.
A form not yet judged is learned unseen: the user reads a quoted answer meanwhile."""

from __future__ import annotations

import re
from dataclasses import replace

from collections import Counter

from docchat.context.citing import CITE, CITE_CONSTRAINED, JUDGED_ENOUGH, CitationGate, citing, matches
from docchat.domain import AnswerForm, Retrieved
from docchat.llm.skill_record import JsonSkillRecord
from docchat.services.grounding import CitationChecker

from tests.unit.fakes import FakeLibrary
from tests.unit.test_pipeline import TRUST, Setup
from tests.unit.test_pipeline_plans import reports

QUESTION = "When is the Determination Date?"
CITED = "The Determination Date is the 15th calendar day of each month [1]."
UNMARKED = "The Determination Date is the 15th calendar day of each month."


class Library(FakeLibrary):
    """Passages that share the question's words hold its answer, as an embedding search judges."""

    def retrieve(self, query: str, **how) -> list[Retrieved]:
        return [replace(hit, similarity=0.9, coverage=1.0) for hit in super().retrieve(query, **how)]


def gated(tmp_path, *, constrains: bool = True) -> Setup:
    return Setup(Library(*TRUST), citation_gate=CitationGate(JsonSkillRecord(tmp_path)), constrains=constrains,
                 checker=CitationChecker(None))


def asked(setup: Setup, answers: list[str], question: str = QUESTION) -> list[AnswerForm | None]:
    """Each answer's form, each asked in a new conversation with the model's scripted text (which
    an answer written unseen, for the gate to learn, takes too), once the gate has learned from it."""
    forms = []
    for text in answers:
        setup.gateway.enqueue([text])
        forms.append(setup.ask(question).answer.facts.form)
        setup.chat.wait_for_background(5)
    return forms


def sent(setup: Setup) -> list[bool]:
    """Of each request the model was sent, whether it came under the pattern."""
    return [constraint is not None for constraint in setup.gateway.constraints]


def judged(tmp_path, *, constrained: bool, cites: bool = False) -> JsonSkillRecord:
    """A record in which the model has been judged: under the pattern, and on its own."""
    record = JsonSkillRecord(tmp_path)
    for _ in range(JUDGED_ENOUGH):
        record.note("tiny", CITE_CONSTRAINED, usable=constrained)
        record.note("tiny", CITE, usable=cites)
    return record


def test_a_model_never_judged_is_quoted_while_it_writes_the_answer_unseen_under_the_pattern(tmp_path):
    setup = gated(tmp_path)
    setup.gateway.enqueue([CITED])

    turn = setup.ask(QUESTION)
    setup.chat.wait_for_background(5)

    assert turn.answer.facts.form is AnswerForm.QUOTED and CITED not in turn.answer.content
    constraint = setup.gateway.constraints[-1]
    assert constraint.numbers == tuple(sorted({c.number for c in turn.answer.facts.citations}))
    assert r"\[1\]" in constraint.regex
    assert setup.chat.writer._citation_gate._record.tally("tiny", CITE_CONSTRAINED) == (1, 0)
    assert [m.content for m in setup.messages.history(turn.conversation_id)][-1] == turn.answer.content


def test_while_its_own_citing_is_unjudged_every_fourth_answer_is_tried_freely_to_learn_it(tmp_path):
    setup = gated(tmp_path)

    forms = asked(setup, [CITED] * 8)

    # Three tried unseen under the pattern; then shown under the pattern it kept to, every fourth
    # also tried freely beside it, unseen.
    assert forms == [AnswerForm.QUOTED] * 3 + [AnswerForm.CONSTRAINED] * 5
    assert sent(setup)[:3] == [True] * 3 and Counter(sent(setup)) == Counter({True: 8, False: 2})


def test_a_model_that_cites_on_its_own_answers_freely_and_what_was_learned_survives_a_restart(tmp_path):
    record = JsonSkillRecord(tmp_path)
    for _ in range(JUDGED_ENOUGH):
        record.note("tiny", CITE, usable=True)

    forms = asked(gated(tmp_path), [CITED] * 3)

    assert forms == [AnswerForm.FREE] * 3
    assert JsonSkillRecord(tmp_path).tally("tiny", CITE) == (JUDGED_ENOUGH + 3, 0)


def test_a_model_that_does_not_cite_on_its_own_stays_under_the_pattern(tmp_path):
    setup = gated(tmp_path)

    forms = asked(setup, [CITED, CITED, CITED, UNMARKED] * 3 + [CITED] * 4)

    # Its free answers (every 4th) carried no mark: once three were judged, no more are asked.
    assert forms[12:] == [AnswerForm.CONSTRAINED] * 4


def test_a_model_whose_constrained_answers_fail_gets_its_answers_quoted_from_the_passages(tmp_path):
    setup = gated(tmp_path)

    # A server that took the field but ignored it: the answers keep no pattern.
    forms = asked(setup, [UNMARKED] * 6)

    # Tried unseen three times under the pattern and once freely; the model is not asked for the rest.
    assert forms == [AnswerForm.QUOTED] * 6
    assert sent(setup) == [True, True, True, False]


def test_a_model_that_does_not_cite_on_a_server_that_takes_no_pattern_gets_its_answers_quoted(tmp_path):
    setup = gated(tmp_path, constrains=False)

    forms = asked(setup, [UNMARKED] * 5)

    assert forms == [AnswerForm.QUOTED] * 5 and len(setup.gateway.requests) == JUDGED_ENOUGH
    quoted = setup.ask(QUESTION).answer
    assert quoted.content.splitlines()[0] == "- \u201cThe Determination Date is the 15th calendar day of each month.\u201d [1]"
    assert quoted.facts.model == "docchat (quoted)" and quoted.facts.grounding.flagged == ()


def test_a_server_that_takes_no_pattern_is_never_sent_one(tmp_path):
    setup = gated(tmp_path, constrains=False)

    forms = asked(setup, [CITED] * 4)

    # Tried unseen three times in its own words, it cited: the fourth is its own.
    assert forms == [AnswerForm.QUOTED] * 3 + [AnswerForm.FREE] and sent(setup) == [False] * 4


def test_an_answer_with_no_passage_to_cite_is_never_constrained(tmp_path):
    setup = gated(tmp_path)

    [form] = asked(setup, ["Picasso painted it."], question="Who painted Guernica?")

    assert form is AnswerForm.FREE and setup.gateway.constraints == [None]


def test_an_answer_written_again_as_quotes_is_a_new_version_and_asks_no_model(tmp_path):
    setup = gated(tmp_path, constrains=False)
    setup.gateway.enqueue([UNMARKED])
    first = setup.ask(QUESTION)

    again = setup.chat.retry(first.conversation_id, form=AnswerForm.QUOTED)
    again.text()

    assert again.answer.facts.form is AnswerForm.QUOTED and again.answer.version_of == first.answer.group
    assert "\u201cThe Determination Date is the 15th calendar day of each month.\u201d [1]" in again.answer.content
    assert len(setup.gateway.requests) == 1


def test_a_constrained_answer_cut_mid_sentence_goes_on_under_the_rest_of_the_pattern(tmp_path):
    setup = Setup(Library(*TRUST), citation_gate=CitationGate(judged(tmp_path, constrained=True)),
                  constrains=True, checker=CitationChecker(None))
    setup.gateway.enqueue(["The Determination Date is ", "the 15th"], finish_reason="length")
    cut = setup.ask(QUESTION)
    assert cut.answer.facts.form is AnswerForm.CONSTRAINED

    setup.gateway.enqueue([" calendar day of each month [1]."])
    setup.chat.continue_answer(cut.conversation_id).text()

    rest = setup.gateway.constraints[-1]  # what the server's matcher, starting at "15th", keeps to
    assert setup.gateway.continued[-1] is True and rest is not None
    assert re.fullmatch(rest.regex, " calendar day of each month [1].")
    assert not re.fullmatch(rest.regex, " calendar day of each month.")  # the sentence's mark is still owed
    answer = setup.messages.history(cut.conversation_id)[-1]
    assert answer.facts.form is AnswerForm.CONSTRAINED
    assert matches(answer.content, citing([c.number for c in answer.facts.citations]))


def test_an_answer_cut_under_the_pattern_goes_on_freely_on_a_server_that_takes_none(tmp_path):
    setup = Setup(Library(*TRUST), citation_gate=CitationGate(judged(tmp_path, constrained=True)),
                  constrains=True, checker=CitationChecker(None))
    setup.gateway.enqueue(["The Determination Date is ", "the 15th"], finish_reason="length")
    cut = setup.ask(QUESTION)
    setup.gateway._info = replace(setup.gateway._info, constrains=False)  # the user moved to another server

    setup.chat.continue_answer(cut.conversation_id).text()

    assert setup.gateway.constraints[0] is not None and setup.gateway.constraints[1] is None


def test_a_model_whose_answers_are_quoted_is_not_asked_to_read_a_collection_in_rounds(tmp_path):
    setup = Setup(Library(*reports(7)), citation_gate=CitationGate(JsonSkillRecord(tmp_path)), rounds=True,
                  checker=CitationChecker(None))
    asked(setup, ["The audit found issues."] * 3, question="What did report 2 find in the audit?")
    asked_before = len(setup.gateway.requests)

    turn = setup.ask("What did each report find in the audit?")

    # Its notes would go unused: the gate quotes this model's answers whatever they are given.
    assert turn.answer.facts.form is AnswerForm.QUOTED and len(setup.gateway.requests) == asked_before
    assert turn.answer.facts.coverage.documents_read == 7

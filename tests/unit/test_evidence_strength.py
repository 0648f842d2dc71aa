"""The evidence judgement: found, weak or not found, from scripted retrievals, kept with the answer."""

from __future__ import annotations

from dataclasses import replace

import pytest

from docchat.domain import AnswerForm, EvidenceStrength, Judgement, Role
from docchat.grounding.evidence import FOUND_AT, NOT_FOUND_BELOW, judge
from docchat.exchange import to_document, to_json
from docchat.exchange.foreign import parse_export

from tests.unit.fakes import FakeLibrary, chunk
from tests.unit.exchange_data import conversation, message, summaries
from tests.unit.test_pipeline import Setup

RENT = chunk("Riverside Lease", 0, "The annual rent is GBP 62,000, payable quarterly in advance on the quarter days.",
             page=4)
ROAST = chunk("Kitchen Notebook", 0, "Roast a chicken at 200 degrees for twenty minutes per pound.", page=1)


def found_with(hit, *, similarity: float, coverage: float):
    return replace(hit, similarity=similarity, coverage=coverage)


def test_a_passage_close_in_meaning_and_holding_the_question_s_words_is_found():
    strength = judge([found_with(RENT, similarity=0.62, coverage=1.0)])
    assert strength.judgement is Judgement.FOUND
    assert strength.score == pytest.approx(0.92)


def test_a_near_miss_that_shares_the_topic_but_not_the_words_is_weak():
    assert judge([found_with(ROAST, similarity=0.56, coverage=0.1)]).judgement is Judgement.WEAK


def test_passages_far_from_the_question_are_not_found():
    strength = judge([found_with(ROAST, similarity=0.13, coverage=0.0), found_with(RENT, similarity=0.1, coverage=0.0)])
    assert strength.judgement is Judgement.NOT_FOUND
    assert strength.score < NOT_FOUND_BELOW


def test_the_best_of_the_first_passages_decides_whatever_the_fused_order():
    ranked = [found_with(ROAST, similarity=0.2, coverage=0.0), found_with(RENT, similarity=0.7, coverage=0.5)]
    assert judge(ranked).score >= FOUND_AT


def test_searched_by_keywords_only_passages_sharing_words_are_weak_never_found():
    strength = judge([found_with(RENT, similarity=None, coverage=1.0)])
    assert (strength.judgement, strength.score) == (Judgement.WEAK, pytest.approx(0.3))
    assert judge([found_with(RENT, similarity=None, coverage=0.0)]).judgement is Judgement.NOT_FOUND


def test_an_answer_carries_the_judgement_of_what_was_retrieved_and_keeps_it_stored():
    setup = Setup(FakeLibrary(found_with(RENT, similarity=0.66, coverage=1.0)))
    turn = setup.ask("How much is the annual rent under the lease?")
    assert turn.evidence == EvidenceStrength(Judgement.FOUND, 0.96)
    [answer] = [m for m in setup.messages.history(turn.conversation_id) if m.role is Role.ASSISTANT]
    assert answer.facts.evidence == turn.evidence


def test_a_question_the_documents_do_not_answer_is_answered_by_the_model_when_asked_and_marked_not_found():
    setup = Setup(FakeLibrary(found_with(ROAST, similarity=0.12, coverage=0.0)))
    turn = setup.ask("How long does a turkey roast for?", form=AnswerForm.FREE)
    assert turn.answer.content == "fine."  # the model answers, as asked; the page says the answer is its own
    assert turn.evidence.judgement is Judgement.NOT_FOUND


def test_no_documents_to_search_means_no_judgement():
    turn = Setup(FakeLibrary()).ask("What is the capital of Australia?")
    assert turn.evidence is None


def test_the_judgement_survives_export_and_import():
    judged = message(3, Role.ASSISTANT, "The rent is GBP 62,000 a year [1].",
                     evidence=EvidenceStrength(Judgement.WEAK, 0.5123))
    plain = message(2, Role.USER, "How much is the rent?")
    first = message(1, Role.SYSTEM, "You answer from the lease.")
    raw = to_json(to_document(conversation(), [first, plain, judged], summaries(), app_version="0.1.0",
                              exported_at=judged.created_at)).encode()
    [imported] = parse_export(raw, source="lease.json")
    assert imported.messages[-1].facts.evidence == EvidenceStrength(Judgement.WEAK, 0.5123)
    assert imported.messages[1].facts.evidence is None


def test_a_stored_judgement_of_an_unknown_shape_is_left_out():
    assert EvidenceStrength.from_dict({"judgement": "certain", "score": 1}) is None
    assert EvidenceStrength.from_dict("found") is None


def test_the_markdown_export_says_an_answer_was_the_model_s_own_above_it():
    from docchat.exchange import to_markdown

    judged = message(3, Role.ASSISTANT, "About three hours.", model="qwen",
                     evidence=EvidenceStrength(Judgement.NOT_FOUND, 0.31))
    text = to_markdown(conversation(), [message(2, Role.USER, "How long does a turkey roast for?"), judged])
    assert "> Not found in your documents: this answer is the model's own.\n\nAbout three hours." in text

"""Documents only: nothing found in the documents, no model asked; the reply is kept like any answer."""

from __future__ import annotations

from dataclasses import replace

import pytest

from docchat.domain import AnswerForm, Judgement, Role, Status
from docchat.domain.grounding import DOCUMENTS_ONLY
from docchat.errors import LLMUnavailable
from docchat.services.documents_only import NOT_FOUND_REPLY

from tests.unit.fakes import FakeLibrary, chunk
from tests.unit.test_pipeline import Setup

RENT = replace(chunk("Riverside Lease", 0, "The annual rent is GBP 62,000, payable quarterly in advance.", page=4),
               similarity=0.7, coverage=1.0)
ROAST = replace(chunk("Kitchen Notebook", 0, "Roast a chicken at 200 degrees for twenty minutes per pound.", page=1),
                similarity=0.2, coverage=0.0)


def documents_only(setup: Setup) -> str:
    conversation = setup.conversations.create("Lease questions")
    setup.conversations.set_documents_only(conversation.id, True)
    return conversation.id


def test_a_question_the_documents_do_not_answer_gets_docchat_s_reply_and_no_model_is_asked():
    setup = Setup(FakeLibrary(RENT, ROAST))
    turn = setup.ask("How long does a turkey roast for?", documents_only(setup))

    assert setup.gateway.requests == []
    assert turn.answer.content.startswith(NOT_FOUND_REPLY)
    assert (turn.answer.status, turn.answer.facts.model) == (Status.COMPLETE, DOCUMENTS_ONLY)
    assert turn.evidence.judgement is Judgement.NOT_FOUND
    # The closest passages are offered as its sources.
    assert [c.document for c in turn.answer.facts.citations] == ["Kitchen Notebook"]


def test_the_reply_is_stored_like_any_answer_with_its_judgement_and_sources():
    setup = Setup(FakeLibrary(RENT, ROAST))
    conversation_id = documents_only(setup)
    setup.ask("How long does a turkey roast for?", conversation_id)

    question, answer = setup.messages.history(conversation_id)
    assert (question.role, answer.role) == (Role.USER, Role.ASSISTANT)
    assert answer.content.startswith(NOT_FOUND_REPLY)
    assert answer.facts.evidence.judgement is Judgement.NOT_FOUND
    assert answer.facts.citations and answer.facts.model == DOCUMENTS_ONLY


def test_a_question_the_documents_answer_goes_to_the_model_as_usual():
    setup = Setup(FakeLibrary(RENT, ROAST))
    turn = setup.ask("How much is the annual rent?", documents_only(setup))

    assert len(setup.gateway.requests) == 1
    assert turn.answer.content == "fine."
    assert turn.evidence.judgement is Judgement.FOUND


def test_with_no_llm_server_a_documents_only_conversation_still_says_what_it_did_not_find():
    setup = Setup(FakeLibrary(RENT, ROAST))
    conversation_id = documents_only(setup)
    setup.gateway.down = LLMUnavailable("the LLM server is not running")

    turn = setup.ask("How long does a turkey roast for?", conversation_id)
    assert turn.answer.content.startswith(NOT_FOUND_REPLY)
    assert turn.budget is None  # no prompt was sent, so no budget is shown


def test_with_no_llm_server_a_question_the_documents_answer_fails_as_before():
    setup = Setup(FakeLibrary(RENT, ROAST))
    conversation_id = documents_only(setup)
    setup.gateway.down = LLMUnavailable("the LLM server is not running")

    turn = setup.chat.answer(conversation_id, "How much is the annual rent?")
    with pytest.raises(LLMUnavailable):
        turn.text()
    question, answer = setup.messages.history(conversation_id)
    assert question.content == "How much is the annual rent?" and answer.status is Status.ERROR


def test_any_conversation_gets_docchat_s_reply_naming_the_nearest_passages_and_no_model_is_asked():
    setup = Setup(FakeLibrary(RENT, ROAST))
    turn = setup.ask("How long does a turkey roast for?")

    assert setup.gateway.requests == []
    assert turn.evidence.judgement is Judgement.NOT_FOUND
    assert turn.answer.content == (f"{NOT_FOUND_REPLY} The nearest passages docchat found are in Kitchen Notebook "
                                   "(page 1 [2]), but it does not hold the answer. They are listed under the "
                                   "sources, to look at yourself.")
    assert turn.answer.facts.model == DOCUMENTS_ONLY


def test_the_model_answers_what_the_documents_do_not_hold_only_when_asked_for_its_own_words():
    setup = Setup(FakeLibrary(RENT, ROAST))
    conversation_id = setup.conversations.create("Cookery").id
    setup.ask("How long does a turkey roast for?", conversation_id)

    again = setup.chat.retry(conversation_id, form=AnswerForm.FREE)
    again.text()

    assert len(setup.gateway.requests) == 1
    assert (again.answer.content, again.answer.facts.form) == ("fine.", AnswerForm.FREE)
    assert again.evidence.judgement is Judgement.NOT_FOUND  # the page labels it the model's own


def test_a_documents_only_conversation_never_has_the_model_s_own_answer():
    setup = Setup(FakeLibrary(RENT, ROAST))
    turn = setup.ask("How long does a turkey roast for?", documents_only(setup), form=AnswerForm.FREE)

    assert setup.gateway.requests == []
    assert turn.answer.content.startswith(NOT_FOUND_REPLY)


def test_a_reply_names_every_passage_it_offers_by_document_escaped():
    from docchat.domain import Citation
    from docchat.services.documents_only import reply_text

    offers = [Citation(1, "q*3*.md", "Budget", "…"), Citation(2, "notes.md", "", "…"),
              Citation(3, "q*3*.md", "page 2", "…")]
    assert reply_text(offers) == (f"{NOT_FOUND_REPLY} The nearest passages docchat found are in q\\*3\\*.md "
                                  "(Budget [1], page 2 [3]); and notes.md ([2]), but none of them holds the answer. "
                                  "They are listed under the sources, to look at yourself.")
    assert reply_text([]) == NOT_FOUND_REPLY


def test_with_no_llm_server_any_conversation_still_says_what_it_did_not_find():
    setup = Setup(FakeLibrary(RENT, ROAST))
    setup.gateway.down = LLMUnavailable("the LLM server is not running")

    turn = setup.ask("How long does a turkey roast for?")
    assert turn.answer.content.startswith(NOT_FOUND_REPLY) and turn.answer.status is Status.COMPLETE


def test_with_no_llm_server_asking_for_the_model_s_own_words_fails_and_keeps_the_question():
    setup = Setup(FakeLibrary(RENT, ROAST))
    conversation_id = setup.conversations.create("Cookery").id
    setup.gateway.down = LLMUnavailable("the LLM server is not running")

    turn = setup.chat.answer(conversation_id, "How long does a turkey roast for?", form=AnswerForm.FREE)
    with pytest.raises(LLMUnavailable):
        turn.text()
    question, answer = setup.messages.history(conversation_id)
    assert question.content == "How long does a turkey roast for?" and answer.status is Status.ERROR


def test_the_default_in_settings_applies_until_a_conversation_chooses():
    setup = Setup(FakeLibrary(RENT, ROAST))
    setup.chat._documents_only = True  # as bootstrap passes Settings.documents_only
    conversation = setup.conversations.create("Cookery")
    assert setup.chat.documents_only(conversation.settings)
    setup.conversations.set_documents_only(conversation.id, False)
    assert not setup.chat.documents_only(setup.conversations.get(conversation.id).settings)
    assert setup.conversations.fresh_start(conversation.id).settings.documents_only is False


def test_the_passages_a_reply_offers_do_not_count_as_cited():
    setup = Setup(FakeLibrary(RENT, ROAST))
    setup.ask("How long does a turkey roast for?", documents_only(setup))

    assert setup.uow.documents.citations == []


def _answered_then_offline(question: str, *, cut: bool = False) -> tuple[Setup, str]:
    """A conversation whose question the model answered in its own words, as asked (cut at the
    length limit: `cut`), then
    made documents-only, with the LLM server gone."""
    setup = Setup(FakeLibrary(RENT, ROAST))
    conversation_id = setup.conversations.create("Cookery").id
    setup.gateway.enqueue(["Roast it for a long time"], finish_reason="length" if cut else "stop")
    setup.ask(question, conversation_id, form=AnswerForm.FREE)
    setup.conversations.set_documents_only(conversation_id, True)
    setup.gateway.down = LLMUnavailable("the LLM server is not running")
    return setup, conversation_id


def test_with_no_llm_server_answering_again_says_what_it_did_not_find_and_keeps_the_model_s_answer():
    setup, conversation_id = _answered_then_offline("How long does a turkey roast for?")

    turn = setup.chat.retry(conversation_id)
    turn.text()

    assert len(setup.gateway.requests) == 1  # the first answer's; none since
    assert turn.answer.content.startswith(NOT_FOUND_REPLY) and turn.answer.facts.model == DOCUMENTS_ONLY
    shown = [m.content for m in setup.messages.history(conversation_id) if m.shown]
    assert shown == ["How long does a turkey roast for?", turn.answer.content]
    versions = [m for m in setup.messages.history(conversation_id) if m.role is Role.ASSISTANT]
    assert [m.content for m in versions] == ["Roast it for a long time", turn.answer.content]


def test_with_no_llm_server_an_edited_question_the_documents_do_not_answer_gets_the_reply():
    setup, conversation_id = _answered_then_offline("How much is the annual rent?")
    [question] = [m for m in setup.messages.history(conversation_id) if m.role is Role.USER]

    turn = setup.chat.edit(conversation_id, question.id, "How long does a turkey roast for?")
    turn.text()

    assert len(setup.gateway.requests) == 1
    shown = [m.content for m in setup.messages.history(conversation_id) if m.shown]
    assert shown == ["How long does a turkey roast for?", turn.answer.content]
    assert turn.answer.content.startswith(NOT_FOUND_REPLY)


def test_with_no_llm_server_an_edited_question_the_documents_answer_fails_as_before():
    setup, conversation_id = _answered_then_offline("How long does a turkey roast for?")
    [question] = [m for m in setup.messages.history(conversation_id) if m.role is Role.USER]

    turn = setup.chat.edit(conversation_id, question.id, "How much is the annual rent?")
    with pytest.raises(LLMUnavailable):
        turn.text()
    shown = [m for m in setup.messages.history(conversation_id) if m.shown]
    assert shown[0].content == "How much is the annual rent?" and shown[1].status is Status.ERROR


def test_with_no_llm_server_a_cut_answer_nothing_was_found_for_is_replaced_by_the_reply():
    setup, conversation_id = _answered_then_offline("How long does a turkey roast for?", cut=True)

    turn = setup.chat.continue_answer(conversation_id)
    turn.text()

    assert len(setup.gateway.requests) == 1
    assert turn.answer.content.startswith(NOT_FOUND_REPLY)
    answers = [m for m in setup.messages.history(conversation_id) if m.role is Role.ASSISTANT]
    assert [(m.content, m.shown) for m in answers] == [("Roast it for a long time", False),
                                                      (turn.answer.content, True)]


def test_with_no_llm_server_a_cut_answer_the_documents_hold_stays_as_it_was_and_continuing_fails():
    setup, conversation_id = _answered_then_offline("How much is the annual rent?", cut=True)

    turn = setup.chat.continue_answer(conversation_id)
    with pytest.raises(LLMUnavailable):
        turn.text()

    [answer] = [m for m in setup.messages.history(conversation_id) if m.role is Role.ASSISTANT]
    assert (answer.content, answer.status, answer.shown) == ("Roast it for a long time", Status.TRUNCATED, True)


@pytest.mark.parametrize("written", [
    ["Based on the provided data, the roast takes ", "three hours."],
    ["According to the documents: the roast takes three hours."],
    ["Based ", "upon the given context, ", "the roast takes three hours."],
])
def test_the_model_s_own_answer_never_claims_the_documents_as_its_source(written):
    setup = Setup(FakeLibrary(RENT, ROAST))
    setup.gateway.enqueue(written)

    turn = setup.ask("How long does a turkey roast for?", form=AnswerForm.FREE)

    assert turn.answer.content == "The roast takes three hours."
    assert turn.evidence.judgement is Judgement.NOT_FOUND


def test_an_answer_the_documents_hold_keeps_its_words_as_written():
    setup = Setup(FakeLibrary(RENT, ROAST))
    setup.gateway.enqueue(["Based on the provided data, the rent is GBP 62,000 [1]."])

    turn = setup.ask("How much is the annual rent?", form=AnswerForm.FREE)

    assert turn.answer.content == "Based on the provided data, the rent is GBP 62,000 [1]."

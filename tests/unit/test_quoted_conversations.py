"""A conversation set to quoted answers: what its documents hold is quoted from them, no model
asked (and none needed); what they do not hold gets docchat's reply, as anywhere else."""

from __future__ import annotations

from dataclasses import replace


from docchat.domain import AnswerForm, ConversationSettings, Judgement, Role, Status
from docchat.domain.approach import Coverage
from docchat.domain.grounding import DOCUMENTS_ONLY, QUOTED_BY
from docchat.errors import LLMUnavailable
from docchat.services.documents_only import NOT_FOUND_REPLY

from tests.unit.fakes import FakeLibrary, chunk
from tests.unit.test_pipeline import Setup
from tests.unit.test_pipeline_plans import reports

RENT = replace(chunk("Riverside Lease", 0, "The annual rent is GBP 62,000, payable quarterly in advance.", page=4),
               similarity=0.7, coverage=1.0)
ROAST = replace(chunk("Kitchen Notebook", 0, "Roast a chicken at 200 degrees for twenty minutes per pound.", page=1),
                similarity=0.2, coverage=0.0)
RENT_QUOTE = "\u201cThe annual rent is GBP 62,000, payable quarterly in advance.\u201d [1]"


def quoting(setup: Setup) -> str:
    conversation = setup.conversations.create("Lease questions")
    setup.conversations.set_quoted_answers(conversation.id, True)
    return conversation.id


def test_a_question_the_documents_answer_is_quoted_from_them_and_no_model_is_asked():
    setup = Setup(FakeLibrary(RENT, ROAST))
    turn = setup.ask("How much is the annual rent?", quoting(setup))

    assert setup.gateway.requests == []
    assert RENT_QUOTE in turn.answer.content
    assert (turn.answer.status, turn.answer.facts.form, turn.answer.facts.model) == (
        Status.COMPLETE, AnswerForm.QUOTED, QUOTED_BY)


def test_a_question_the_documents_do_not_answer_gets_docchat_s_reply():
    setup = Setup(FakeLibrary(RENT, ROAST))
    turn = setup.ask("How long does a turkey roast for?", quoting(setup))

    assert setup.gateway.requests == []
    assert turn.evidence.judgement is Judgement.NOT_FOUND
    assert turn.answer.content.startswith(NOT_FOUND_REPLY) and turn.answer.facts.model == DOCUMENTS_ONLY


def test_with_no_llm_server_a_question_the_documents_answer_is_still_quoted():
    setup = Setup(FakeLibrary(RENT, ROAST))
    conversation_id = quoting(setup)
    setup.gateway.down = LLMUnavailable("the LLM server is not running")

    turn = setup.ask("How much is the annual rent?", conversation_id)

    assert RENT_QUOTE in turn.answer.content and turn.answer.status is Status.COMPLETE
    assert [m.content for m in setup.messages.history(conversation_id)] == [
        "How much is the annual rent?", turn.answer.content]


def test_with_no_llm_server_a_question_the_documents_do_not_answer_still_gets_the_reply():
    setup = Setup(FakeLibrary(RENT, ROAST))
    conversation_id = quoting(setup)
    setup.gateway.down = LLMUnavailable("the LLM server is not running")

    turn = setup.ask("How long does a turkey roast for?", conversation_id)
    assert turn.answer.content.startswith(NOT_FOUND_REPLY) and turn.answer.status is Status.COMPLETE


def test_with_no_llm_server_answering_again_quotes_where_the_model_had_answered():
    setup = Setup(FakeLibrary(RENT, ROAST))
    conversation = setup.conversations.create("Lease questions")
    setup.ask("How much is the annual rent?", conversation.id)
    setup.conversations.set_quoted_answers(conversation.id, True)
    setup.gateway.down = LLMUnavailable("the LLM server is not running")

    turn = setup.chat.retry(conversation.id)
    turn.text()

    assert RENT_QUOTE in turn.answer.content
    versions = [m for m in setup.messages.history(conversation.id) if m.role is Role.ASSISTANT]
    assert [(m.content, m.shown) for m in versions] == [("fine.", False), (turn.answer.content, True)]
    assert len(setup.gateway.requests) == 1  # the first answer's; none since


def test_the_model_s_own_words_may_still_be_asked_for_in_a_quoting_conversation():
    setup = Setup(FakeLibrary(RENT, ROAST))
    conversation_id = quoting(setup)
    setup.ask("How much is the annual rent?", conversation_id)

    turn = setup.chat.retry(conversation_id, form=AnswerForm.FREE)
    turn.text()

    assert len(setup.gateway.requests) == 1
    assert (turn.answer.content, turn.answer.facts.form) == ("fine.", AnswerForm.FREE)


def test_the_default_in_settings_applies_until_a_conversation_chooses_and_a_fresh_start_keeps_the_choice():
    setup = Setup(FakeLibrary(RENT, ROAST))
    setup.chat._quoted_answers = True  # as bootstrap passes Settings.quoted_answers
    conversation = setup.conversations.create("Lease questions")
    assert setup.chat.quotes(conversation.settings) and setup.chat.quotes(ConversationSettings())

    setup.conversations.set_quoted_answers(conversation.id, False)
    assert not setup.chat.quotes(setup.conversations.get(conversation.id).settings)
    assert setup.ask("How much is the annual rent?", conversation.id).answer.facts.form is not AnswerForm.QUOTED
    assert setup.conversations.fresh_start(conversation.id).settings.quoted_answers is False


def test_the_choice_is_kept_in_the_conversation_s_settings_and_anything_else_reads_as_not_chosen():
    for kept in (True, False, None):
        settings = ConversationSettings(quoted_answers=kept)
        assert ConversationSettings.from_dict(settings.as_dict()).quoted_answers is kept
    assert ConversationSettings.from_dict({"quoted_answers": "yes"}).quoted_answers is None


def test_a_question_about_every_document_quotes_each_document_that_answers_not_the_best_three():
    # Too long to go in whole (whose sources are the best four parts): each document's best passage is given.
    filler = "The goods are delivered to the warehouse in sound packaging with a delivery note. " * 40
    contracts = [replace(chunk(f"supplier-contract-{name}.md", part, text, page=part + 1), similarity=0.7, coverage=1.0)
                 for name, month in (("acme", "March"), ("borealis", "April"), ("cobalt", "June"),
                                     ("dunmore", "September"), ("elvira", "December"))
                 for part, text in enumerate((f"The {name} supplier contract renews on 1 {month} 2027.", filler))]
    setup = Setup(FakeLibrary(*contracts), window=4_096)
    conversation = quoting(setup)

    collection = setup.ask("List the renewal date of every supplier contract.", conversation)
    lookup = setup.ask("When does the supplier contract renew?", conversation)

    assert collection.answer.facts.approach.way.value == "collection" and setup.gateway.requests == []
    assert collection.answer.facts.form is AnswerForm.QUOTED
    assert {c.document for c in collection.answer.cited} == {c.document for c in contracts}
    assert collection.answer.facts.coverage.documents_read == 5
    assert collection.answer.content.count("renews on") == 5
    assert lookup.answer.content.count("renews on") == 3  # a lookup quotes its best three passages


def test_a_collection_too_large_for_one_prompt_is_quoted_from_every_document_with_no_model_reading_it_in_rounds():
    findings = [replace(report, similarity=0.7, coverage=1.0) for report in reports(7)]
    setup = Setup(FakeLibrary(*findings), rounds=True)
    conversation = quoting(setup)
    stages = []

    turn = setup.chat.answer(conversation, "What did each report find in the audit?", progress=stages.append)
    turn.text()

    assert setup.gateway.requests == [] and not [stage for stage in stages if "round" in stage]
    assert turn.answer.facts.form is AnswerForm.QUOTED
    assert turn.answer.facts.coverage == Coverage(7, 7)
    assert {c.document for c in turn.answer.cited} == {f"report-{n}.md" for n in range(1, 8)}
    assert all(f"the audit found {n} issues" in turn.answer.content for n in range(1, 8))
    # The question is kept with docchat's notes on the passages, within the prompt's room, as
    # a model's notes would have been.
    assert turn.question.model_text.startswith("Notes taken from the documents in 3 rounds")
    assert setup.counter.count_message("user", turn.question.model_text) < 2_048 // 2


def test_a_collection_that_fits_whole_is_quoted_from_every_document_not_from_its_four_best_passages():
    contracts = [replace(chunk(f"supplier-contract-{name}.md", 0, f"The {name} supplier contract renews on 1 {month} 2027."),
                         similarity=0.7, coverage=1.0)
                 for name, month in (("acme", "March"), ("borealis", "April"), ("cobalt", "June"),
                                     ("dunmore", "September"), ("elvira", "December"), ("fenwick", "May"))]
    setup = Setup(FakeLibrary(*contracts))
    conversation = quoting(setup)

    turn = setup.ask("List the renewal date of every supplier contract.", conversation)

    assert turn.question.model_text == turn.question.content  # the documents went in whole, not in its turn
    assert turn.answer.facts.coverage == Coverage(6, 6)
    assert {c.document for c in turn.answer.cited} == {c.document for c in contracts}
    assert turn.answer.content.count("renews on") == 6


def test_a_summary_of_the_collection_is_quoted_from_each_document_though_its_passages_share_few_of_its_words():
    contracts = [replace(chunk(f"supplier-contract-{name}.md", 0, f"The {name} supplier contract covers {goods}."),
                         similarity=0.45, coverage=0.2)
                 for name, goods in (("acme", "steel"), ("borealis", "timber"), ("cobalt", "paint"))]
    setup = Setup(FakeLibrary(*contracts))
    conversation = quoting(setup)

    lookup = setup.ask("What do the supplier contracts cover?", conversation)
    summary = setup.ask("Summarise all the supplier contracts.", conversation)

    assert lookup.answer.facts.evidence.judgement is Judgement.NOT_FOUND  # the premise: judged by words and closeness
    assert summary.answer.facts.evidence.judgement is Judgement.FOUND
    assert summary.answer.facts.form is AnswerForm.QUOTED
    assert {c.document for c in summary.answer.cited} == {c.document for c in contracts}

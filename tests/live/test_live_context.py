"""The context engine on the real server: condensation, titles, follow-up rewriting."""

import pytest

from docchat.bootstrap import build_services
from docchat.domain import FINISHED, TitleSource

from tests.live.conftest import PLANNED_WINDOW, served_prompt_tokens

QUESTION = ("What does clause {i} of the Harbour Street Trust Agreement say about the Determination Date? "
            + "Explain the reserve account rules, the servicer's duties and the notice requirements. " * 6)
ANSWER = "Clause {i} sets the Determination Date on the 15th; payments follow on the second Business Day."


@pytest.fixture
def compacting_services(live_settings):
    return build_services(live_settings.model_copy(update={"llm_window": PLANNED_WINDOW}))


def _long_conversation(services, exchanges: int = 56):
    conversation = services.conversations.create("Harbour Street Trust review")
    for i in range(exchanges):
        services.messages.append_message(conversation.id, "user", QUESTION.format(i=i))
        services.messages.append_message(conversation.id, "assistant", ANSWER.format(i=i))
    return conversation


def test_a_history_past_its_share_is_compacted_and_the_turn_is_still_answered(compacting_services):
    services = compacting_services
    conversation = _long_conversation(services)
    before = services.messages.history(conversation.id)

    turn = services.chat.answer(conversation.id, "Summarise the Determination Date rules in one sentence.")
    turn.text()

    assert turn.answer.status in FINISHED and turn.answer.content  # in full or up to the answer limit
    assert turn.stats.compactions == 1
    assert turn.usage["prompt_tokens"] == turn.budget.prompt
    assert turn.usage["prompt_tokens"] + turn.budget.answer_reserve <= turn.budget.max_model_len
    # The originals are intact: nothing stored is deleted or rewritten by a compaction.
    after = services.messages.history(conversation.id)
    assert [(m.id, m.content) for m in after[: len(before)]] == [(m.id, m.content) for m in before]
    summaries = services.transfer  # exported below: the summary (if the model wrote one) travels too
    if turn.stats.summary_created:
        assert turn.stats.summary_version == 1 and turn.stats.summarised >= len(before) - 4
    else:
        assert turn.budget.dropped_messages > 0
    assert summaries.export_json(conversation.id)


def test_the_turn_after_a_compaction_reuses_the_new_prefix(compacting_services):
    services = compacting_services
    conversation = _long_conversation(services)
    services.chat.answer(conversation.id, "Summarise the Determination Date rules in one sentence.").text()

    follow_up = services.chat.answer(conversation.id, "Summarise the servicer's duties in one sentence, please.")
    follow_up.text()

    assert follow_up.stats.compactions == 1  # no second compaction
    assert follow_up.usage["prompt_tokens_details"]["cached_tokens"] > 0.5 * follow_up.usage["prompt_tokens"]


def test_the_first_exchange_names_the_conversation(live_services):
    turn = live_services.chat.answer(None, "What is the capital of France and what river runs through it?")
    turn.text()

    title = live_services.conversations.get(turn.conversation_id).title
    assert 1 <= len(title.split()) <= 8
    assert live_services.conversations.get(turn.conversation_id).settings.title_source in {
        TitleSource.MODEL, TitleSource.FIRST_WORDS}


def test_a_title_the_user_set_is_never_overwritten(live_services):
    conversation = live_services.conversations.create("My pension questions")

    live_services.chat.answer(conversation.id, "What is a defined benefit pension?").text()

    assert live_services.conversations.get(conversation.id).title == "My pension questions"


def test_a_follow_up_is_searched_with_its_context_and_the_query_is_stored_on_the_question(live_services):
    from tests.integration.test_documents import trust_pdf

    live_services.ingestion.ingest("Harbour Street Trust.pdf", trust_pdf())
    first = live_services.chat.answer(None, "What is the Determination Date in the Harbour Street Trust Agreement?")
    first.text()

    follow_up = live_services.chat.answer(first.conversation_id, "And what happens if it falls on a weekend?")
    follow_up.text()

    question = live_services.messages.history(first.conversation_id)[2]
    assert follow_up.stats.rewrite_method in {"rewriter", "history"}
    assert question.rewritten_query == follow_up.stats.rewritten_query
    assert question.rewritten_query != question.content
    assert question.content == "And what happens if it falls on a weekend?"


def test_a_self_contained_question_is_not_rewritten(live_services):
    first = live_services.chat.answer(None, "What is the Determination Date in the Harbour Street Trust Agreement?")
    first.text()

    second = live_services.chat.answer(
        first.conversation_id, "What is the Payment Date defined in section 7 of the Harbour Street Trust Agreement?")
    second.text()

    assert second.stats.rewrite_method == "none" and second.stats.rewritten_query is None


def test_the_session_remembers_a_resolved_term_across_a_restart(live_services, live_settings):
    from docchat.bootstrap import build_services

    turn = live_services.chat.answer(None, "What is the Determination Date?")
    turn.text()

    restarted = build_services(live_settings)
    session = restarted.conversations.get(turn.conversation_id).settings.session
    assert "Determination Date" in session.resolved_terms
    assert session.turns == 1


@pytest.mark.both_servers
def test_a_stateless_answer_uses_the_callers_history_and_stores_nothing(live_services, live_server):
    history = [{"role": "user", "content": "My name is Ada."}, {"role": "assistant", "content": "Hello Ada!"}]

    turn = live_services.stateless.answer(history, "What is my name?")
    turn.text()

    assert turn.answer
    assert served_prompt_tokens(turn, live_server) == turn.budget.prompt
    assert turn.budget.history_messages == 2
    assert live_services.conversations.list() == []

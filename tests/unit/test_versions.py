"""Versions of an answer: regenerating keeps the earlier one, the model's history follows the
version shown, and switching back changes what the next turn is sent."""

from __future__ import annotations

import pytest

from docchat.domain import Role, Status
from docchat.errors import InvalidInput, LLMUnavailable, NotFound

from tests.unit.test_pipeline import Setup
from tests.unit.fakes import FakeLibrary


def _shown(setup, conversation_id):
    return [m for m in setup.messages.history(conversation_id) if m.shown]


def test_regenerating_keeps_the_first_answer_as_a_version_and_shows_the_new_one():
    setup = Setup(FakeLibrary())
    setup.gateway.enqueue(["Paris."])
    first = setup.ask("What is the capital of France?")
    setup.gateway.enqueue(["It is Paris, on the Seine."])

    again = setup.chat.retry(first.conversation_id)
    again.text()

    history = setup.messages.history(first.conversation_id)
    assert [m.content for m in history] == ["What is the capital of France?", "Paris.", "It is Paris, on the Seine."]
    assert [m.shown for m in history] == [True, False, True]
    assert history[2].version_of == history[1].id
    # The regenerated answer was asked for with the same history as the first.
    assert setup.prompt(-1) == setup.prompt(-2)


def test_a_regenerated_answer_is_sampled_so_that_it_is_a_new_answer():
    setup = Setup(FakeLibrary())
    first = setup.ask("What is the capital of France?")

    setup.chat.retry(first.conversation_id).text()
    setup.ask("And of Italy?")

    # The first answer and the next question's are the profile's (greedy on the cpu one).
    assert setup.gateway.varied == [False, True, False]


def test_the_next_turn_is_sent_the_version_shown_and_switching_back_changes_it():
    setup = Setup(FakeLibrary())
    setup.gateway.enqueue(["Paris."])
    first = setup.ask("What is the capital of France?")
    conversation_id = first.conversation_id
    setup.gateway.enqueue(["It is Paris, on the Seine."])
    setup.chat.retry(conversation_id).text()

    setup.ask("And its population?", conversation_id)
    assert {"role": "assistant", "content": "It is Paris, on the Seine."} in setup.prompt()
    assert {"role": "assistant", "content": "Paris."} not in setup.prompt()

    original = setup.messages.history(conversation_id)[1]
    setup.messages.show_version(conversation_id, original.id)
    setup.ask("And its river?", conversation_id)
    assert {"role": "assistant", "content": "Paris."} in setup.prompt()
    assert {"role": "assistant", "content": "It is Paris, on the Seine."} not in setup.prompt()


def test_a_failed_answer_retried_is_replaced_in_view_not_followed_by_a_second_answer():
    setup = Setup(FakeLibrary())
    setup.gateway.down = LLMUnavailable("the LLM server is not running")
    failed = setup.chat.answer(None, "What is the capital of France?")
    with pytest.raises(LLMUnavailable):
        failed.text()
    setup.gateway.down = None

    setup.chat.retry(failed.conversation_id).text()

    question, answer = _shown(setup, failed.conversation_id)
    assert (question.role, answer.role, answer.status) == (Role.USER, Role.ASSISTANT, Status.COMPLETE)
    assert answer.version_of == failed.draft.id


def test_a_regeneration_refused_before_it_starts_leaves_the_answer_in_view():
    setup = Setup(FakeLibrary())
    first = setup.ask("What is the capital of France?")
    setup.gateway._info = type(setup.gateway._info)(max_model_len=64)  # the window no longer holds the question

    with pytest.raises(InvalidInput):
        setup.chat.retry(first.conversation_id)

    assert [m.shown for m in setup.messages.history(first.conversation_id)] == [True, True]


def _conversation_of_two_turns(setup):
    setup.gateway.enqueue(["Paris."])
    first = setup.ask("What is the capital of France?")
    setup.gateway.enqueue(["About two million."])
    setup.ask("And its population?", first.conversation_id)
    return first


def _edited(setup):
    """The two-turn conversation, its first question edited and answered."""
    first = _conversation_of_two_turns(setup)
    setup.gateway.enqueue(["Rome."])
    setup.chat.edit(first.conversation_id, first.question.id, "What is the capital of Italy?").text()
    return first


def test_an_edited_earlier_question_is_asked_with_only_what_came_before_it_and_the_old_turns_are_kept():
    setup = Setup(FakeLibrary())

    first = _edited(setup)

    conversation_id = first.conversation_id
    assert [m.content for m in _shown(setup, conversation_id)] == ["What is the capital of Italy?", "Rome."]
    sent = setup.prompt()
    assert sent[-1] == {"role": "user", "content": "What is the capital of Italy?"}
    assert not any("France" in m["content"] or m["content"] in ("Paris.", "About two million.") for m in sent)
    # Nothing is lost: the first question and the turns after it are an earlier version.
    assert len(setup.messages.history(conversation_id)) == 6
    edited = _shown(setup, conversation_id)[0]
    assert edited.version_of == first.question.id


def test_switching_back_to_the_question_as_first_asked_brings_back_its_turns_and_the_next_turn_follows_them():
    setup = Setup(FakeLibrary())
    first = _edited(setup)
    conversation_id = first.conversation_id

    setup.messages.show_version(conversation_id, first.question.id)

    assert [m.content for m in _shown(setup, conversation_id)] == [
        "What is the capital of France?", "Paris.", "And its population?", "About two million."]
    setup.ask("And its river?", conversation_id)
    assert {"role": "assistant", "content": "About two million."} in setup.prompt()
    assert {"role": "assistant", "content": "Rome."} not in setup.prompt()

    edited = next(m for m in setup.messages.history(conversation_id) if m.content == "What is the capital of Italy?")
    setup.messages.show_version(conversation_id, edited.id)
    assert [m.content for m in _shown(setup, conversation_id)] == ["What is the capital of Italy?", "Rome."]


def test_an_edit_refused_before_it_is_asked_leaves_the_conversation_in_view():
    setup = Setup(FakeLibrary())
    first = _conversation_of_two_turns(setup)

    with pytest.raises(InvalidInput):
        setup.chat.edit(first.conversation_id, first.question.id, "   ")
    with pytest.raises(InvalidInput):
        setup.chat.edit(first.conversation_id, first.question.id, "What is the capital of Italy? " * 1_000)

    assert [m.shown for m in setup.messages.history(first.conversation_id)] == [True] * 4


def test_only_a_question_in_view_can_be_edited():
    setup = Setup(FakeLibrary())
    first = _conversation_of_two_turns(setup)

    with pytest.raises(NotFound):
        setup.chat.edit(first.conversation_id, first.answer.id, "What is the capital of Italy?")


def test_an_answer_found_in_a_version_not_shown_under_a_question_not_shown_is_shown_with_the_way_to_it():
    setup = Setup(FakeLibrary())
    first = _conversation_of_two_turns(setup)
    conversation_id = first.conversation_id
    setup.gateway.enqueue(["Two point one million."])
    setup.chat.retry(conversation_id).text()  # the population answered again
    setup.gateway.enqueue(["Rome."])
    setup.chat.edit(conversation_id, first.question.id, "What is the capital of Italy?").text()
    answer = next(m for m in setup.messages.history(conversation_id) if m.content == "About two million.")

    found = setup.messages.show_found(conversation_id, answer.seq)

    assert [m.content for m in _shown(setup, conversation_id)] == [
        "What is the capital of France?", "Paris.", "And its population?", "About two million."]
    assert (found.message.id, found.reach, found.switched) == (answer.id, 1, True)
    setup.ask("And its river?", conversation_id)
    assert {"role": "assistant", "content": "About two million."} in setup.prompt()
    assert {"role": "assistant", "content": "Rome."} not in setup.prompt()


def test_a_message_found_on_the_branch_shown_changes_nothing():
    setup = Setup(FakeLibrary())
    first = _conversation_of_two_turns(setup)

    found = setup.messages.show_found(first.conversation_id, first.question.seq)

    assert (found.message.id, found.reach, found.switched) == (first.question.id, 4, False)
    assert [m.shown for m in setup.messages.history(first.conversation_id)] == [True] * 4

"""An answer cut short says why: stopped by its user, or ended by the page (reloaded, closed, or
another click), and a reason the LLM server gave is never replaced by the page's."""

from __future__ import annotations

from docchat.domain import Status
from docchat.errors import StreamCut

from tests.unit.fakes import FakeLibrary
from tests.unit.test_pipeline import Setup

PAGE_GONE = "cut short: the page was reloaded or closed before the end"


def started(setup: Setup, *, failure=None):
    setup.gateway.enqueue(["The Determination ", "Date is ", "the 15th."], failure=failure)
    turn = setup.chat.answer(None, "When is the Determination Date?")
    next(iter(turn))
    return turn


def stored_answer(setup: Setup, turn):
    return setup.messages.history(turn.conversation_id)[-1]


def test_an_answer_closed_by_a_page_that_went_away_keeps_that_reason():
    setup = Setup(FakeLibrary())
    turn = started(setup)

    turn.close(PAGE_GONE)

    answer = stored_answer(setup, turn)
    assert (answer.status, answer.content, answer.facts.error) == (Status.INTERRUPTED, "The Determination ", PAGE_GONE)


def test_the_next_look_can_say_it_was_the_user_who_stopped_it_after_all():
    setup = Setup(FakeLibrary())
    turn = started(setup)
    turn.close(PAGE_GONE)

    turn.interrupted_by(None)

    assert stored_answer(setup, turn).facts.error is None  # shown as "stopped before the end"
    turn.interrupted_by("cut short by another click on the page")
    assert stored_answer(setup, turn).facts.error == "cut short by another click on the page"


def test_a_reason_from_the_llm_server_is_kept():
    setup = Setup(FakeLibrary())
    turn = started(setup, failure=StreamCut("the LLM server closed the answer before it was finished"))
    try:
        turn.text()
    except StreamCut:
        pass

    turn.interrupted_by(None)

    answer = stored_answer(setup, turn)
    assert (answer.status, answer.facts.error) == (Status.INTERRUPTED,
                                                   "the LLM server closed the answer before it was finished")

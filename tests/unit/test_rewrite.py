"""Follow-up questions: which ones go to the rewriter, and the transcript it reads."""

from __future__ import annotations

import pytest

from docchat.context import prompt
from docchat.context.rewrite import needs_rewrite, transcript
from docchat.domain import Message, Role, utcnow

FOLLOW_UP = "And what happens if it falls on a weekend?"
SELF_CONTAINED = "What is the Determination Date defined in section 4.2 of the 2024 trust agreement?"
RECENT = [
    "What is the Determination Date?",
    "The Determination Date is the 15th day of each calendar month, as clause 4.2 defines it.",
]


@pytest.mark.parametrize("question", [FOLLOW_UP, "Which one?", "What about both?"])
def test_a_question_that_points_back_needs_a_rewrite(question):
    assert needs_rewrite(question) is True


def test_a_short_question_without_a_reference_word_still_needs_a_rewrite():
    assert needs_rewrite("Define Business Day.") is True


def test_a_long_self_contained_question_passes_through():
    assert needs_rewrite(SELF_CONTAINED) is False


def test_a_six_word_self_contained_question_passes_through():
    assert needs_rewrite("Who appoints the replacement Trust Manager?") is False


def test_a_long_question_with_a_reference_word_needs_a_rewrite():
    assert needs_rewrite("Does the Trustee have to send those notices to the beneficiaries in writing?") is True


def test_reference_words_count_only_as_whole_words():
    # "Item" holds "it", "Exhibit" holds "hi"... none of them refers back to anything
    assert needs_rewrite("Is the Item Schedule attached to the Trust Deed in Exhibit B?") is False


def test_the_rewriters_transcript_shows_questions_as_asked_not_as_sent_with_context():
    asked = Message(
        id="m1", conversation_id="harbour-street-trust", seq=1, role=Role.USER, content=RECENT[0],
        created_at=utcnow(), sent_content=prompt.user_turn(RECENT[0], ["Clause 4.2: the 15th of each month."]),
    )
    answered = Message(id="m2", conversation_id="harbour-street-trust", seq=2, role=Role.ASSISTANT,
                       content=RECENT[1], created_at=utcnow())

    assert transcript([asked, answered]) == f"user: {RECENT[0]}\nassistant: {RECENT[1]}"

"""The DSPy programs (condense, rewrite, title) over dspy's DummyLM: no server, no network."""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # as bootstrap does: no cost-map download

import dspy  # noqa: E402
import pytest  # noqa: E402
from dspy.utils import DummyLM  # noqa: E402
from dspy.utils.exceptions import AdapterParseError  # noqa: E402

from docchat.errors import UnusableOutput
from docchat.context.programs import Condensed, Programs  # noqa: E402

FIRST_EXCHANGE = (
    "user: What is the Determination Date?\n"
    "assistant: The Determination Date is the 15th day of each calendar month, as clause 4.2 defines it."
)
RECENT_TURNS = FIRST_EXCHANGE
FOLLOW_UP = "And what happens if it falls on a weekend?"
STANDALONE = "What happens if the Determination Date falls on a weekend?"


class ScriptedLMs:
    """An `lm_for(max_tokens)` factory: one DummyLM per call with the next scripted answer; records max_tokens."""

    def __init__(self, *answers: dict):
        self._answers = list(answers)
        self.max_tokens: list[int] = []
        self.lms: list[DummyLM] = []

    def __call__(self, max_tokens: int) -> DummyLM:
        self.max_tokens.append(max_tokens)
        self.lms.append(DummyLM([self._answers.pop(0)]))
        return self.lms[-1]


def test_title_returns_the_title_the_model_wrote():
    lms = ScriptedLMs({"title": "Trust Determination Date Rules"})

    assert Programs(lms).title(FIRST_EXCHANGE, max_tokens=24) == "Trust Determination Date Rules"


def test_title_strips_quotes_and_a_final_full_stop():
    lms = ScriptedLMs({"title": '"Trust Determination Date Rules."'})

    assert Programs(lms).title(FIRST_EXCHANGE, max_tokens=24) == "Trust Determination Date Rules"


def test_a_title_of_twenty_words_is_refused():
    rambling = ("The user asked about the Determination Date and what happens "
                "when it falls on a weekend or a public holiday")
    assert len(rambling.split()) == 20
    lms = ScriptedLMs({"title": rambling})

    with pytest.raises(ValueError, match="not a title"):
        Programs(lms).title(FIRST_EXCHANGE, max_tokens=24)


def test_a_title_of_eight_words_is_the_longest_accepted():
    eight = "Harbour Street Trust Determination Date and Weekend Rules"
    assert len(eight.split()) == 8

    assert Programs(ScriptedLMs({"title": eight})).title(FIRST_EXCHANGE, max_tokens=24) == eight
    with pytest.raises(ValueError, match="not a title"):
        Programs(ScriptedLMs({"title": eight + " Explained"})).title(FIRST_EXCHANGE, max_tokens=24)


def test_each_call_gets_its_own_lm_with_the_callers_output_budget():
    lms = ScriptedLMs({"title": "Trust Determination Date Rules"}, {"standalone_query": STANDALONE})
    programs = Programs(lms)

    programs.title(FIRST_EXCHANGE, max_tokens=24)
    programs.rewrite(RECENT_TURNS, FOLLOW_UP, max_tokens=150)

    assert lms.max_tokens == [24, 150]
    assert all(len(lm.history) == 1 for lm in lms.lms)
    assert dspy.settings.lm is None  # nothing leaks into dspy's global settings


def test_rewrite_returns_the_standalone_query():
    lms = ScriptedLMs({"standalone_query": STANDALONE})

    assert Programs(lms).rewrite(RECENT_TURNS, FOLLOW_UP, max_tokens=150) == STANDALONE


def test_rewrite_sends_the_recent_turns_and_the_question_to_the_model():
    lms = ScriptedLMs({"standalone_query": STANDALONE})

    Programs(lms).rewrite(RECENT_TURNS, FOLLOW_UP, max_tokens=150)

    sent = "\n".join(message["content"] for message in lms.lms[0].history[0]["messages"])
    assert FOLLOW_UP in sent
    assert "the 15th day of each calendar month" in sent


def test_rewrite_collapses_the_whitespace_a_model_leaves_in_a_query():
    lms = ScriptedLMs({"standalone_query": "What happens if the\n  Determination Date falls   on a weekend?"})

    assert Programs(lms).rewrite(RECENT_TURNS, FOLLOW_UP, max_tokens=150) == STANDALONE


def test_an_empty_rewrite_is_refused():
    lms = ScriptedLMs({"standalone_query": "  \n "})

    with pytest.raises(UnusableOutput, match="empty query"):
        Programs(lms).rewrite(RECENT_TURNS, FOLLOW_UP, max_tokens=150)


def test_condense_returns_the_summary_with_its_topics_key_questions_and_decisions():
    lms = ScriptedLMs({
        "summary": "The user asked when the Determination Date falls: the 15th of each month (clause 4.2).",
        "topics": ["Determination Date", "Business Day"],
        "key_questions": ["What is the Determination Date?", FOLLOW_UP],
        "decisions": ["A Determination Date on a weekend moves to the next Business Day."],
    })

    condensed = Programs(lms).condense("", RECENT_TURNS, max_tokens=512)

    assert condensed == Condensed(
        summary="The user asked when the Determination Date falls: the 15th of each month (clause 4.2).",
        topics=["Determination Date", "Business Day"],
        key_questions=["What is the Determination Date?", FOLLOW_UP],
        decisions=["A Determination Date on a weekend moves to the next Business Day."],
    )
    assert lms.max_tokens == [512]


def test_condense_sends_the_previous_summary_to_be_folded_in():
    lms = ScriptedLMs({"summary": "Folded.", "topics": [], "key_questions": [], "decisions": []})

    Programs(lms).condense("Earlier: clauses 1 to 3, the parties and definitions.", RECENT_TURNS, max_tokens=512)

    sent = "\n".join(message["content"] for message in lms.lms[0].history[0]["messages"])
    assert "Earlier: clauses 1 to 3, the parties and definitions." in sent


def test_an_empty_summary_is_refused():
    lms = ScriptedLMs({"summary": " ", "topics": [], "key_questions": [], "decisions": []})

    with pytest.raises(ValueError, match="empty summary"):
        Programs(lms).condense("", RECENT_TURNS, max_tokens=512)


def test_a_summary_without_its_fields_is_kept_as_prose():
    prose = ("The user asked when the Determination Date falls; it is the 15th of each month, "
             "and a weekend date moves to the next Business Day.")
    lms = ScriptedLMs({"summary": prose})  # topics, key_questions and decisions never written

    assert Programs(lms).condense("", RECENT_TURNS, max_tokens=512) == Condensed(prose)


def test_a_few_words_without_the_fields_are_not_taken_for_a_summary():
    lms = ScriptedLMs({"summary": "Weekend rules."})

    with pytest.raises(AdapterParseError):
        Programs(lms).condense("", RECENT_TURNS, max_tokens=512)

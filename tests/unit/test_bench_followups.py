"""The followups bench's baseline: a follow-up enriched with the summary's topics and the recent
turns' salient terms, as the pipeline's fallback did before history-aware retrieval."""

from __future__ import annotations

from docchat_bench.followups import enrich

FOLLOW_UP = "And what happens if it falls on a weekend?"
RECENT = [
    "What is the Determination Date?",
    "The Determination Date is the 15th day of each calendar month, as clause 4.2 defines it.",
]


def test_enrich_appends_the_summary_topics_the_question_does_not_mention():
    enriched = enrich(FOLLOW_UP, topics=["Determination Date", "Business Day"], recent=[])

    assert enriched == "And what happens if it falls on a weekend? Determination Date Business Day"


def test_enrich_leaves_out_a_topic_the_question_already_names():
    question = "What happens if the Determination Date falls on a weekend?"

    enriched = enrich(question, topics=["Determination Date", "Business Day"], recent=[])

    assert enriched == f"{question} Business Day"


def test_enrich_appends_the_salient_terms_of_the_recent_turns():
    enriched = enrich(FOLLOW_UP, topics=[], recent=RECENT)

    assert enriched == "And what happens if it falls on a weekend? determination date day calendar month clause"


def test_enrich_does_not_repeat_a_topic_word_as_a_recent_term():
    enriched = enrich(FOLLOW_UP, topics=["Determination Date"], recent=RECENT)

    assert enriched == "And what happens if it falls on a weekend? Determination Date day calendar month clause defines"


def test_enrich_adds_at_most_six_terms():
    topics = ["Vesting Date", "Unit Register", "Trust Manager", "Distribution Amount", "Business Day",
              "Trustee fee", "Winding up"]

    enriched = enrich(FOLLOW_UP, topics=topics, recent=RECENT)

    assert enriched == f"{FOLLOW_UP} {' '.join(topics[:6])}"


def test_enrich_leaves_the_question_unchanged_when_everything_is_already_in_it():
    question = "What happens if the Determination Date falls on a weekend?"

    enriched = enrich(question, topics=["Determination Date", "weekend"], recent=["What is the Determination Date?"])

    assert enriched == question


def test_enrich_leaves_the_question_unchanged_without_topics_or_recent_turns():
    assert enrich(FOLLOW_UP, topics=[], recent=[]) == FOLLOW_UP

"""The pattern a constrained answer is written under: every sentence ends with marks of passages
the answer was given, and the citation check reads each of them as the sentence it is."""

from __future__ import annotations

import re

import pytest

from docchat.context.citing import SENTENCE_UNITS, citing, matches
from docchat.domain.grounding import REFUSAL
from docchat.grounding.citation_check import split_sentences

THREE = citing([1, 2, 3])


@pytest.mark.parametrize("answer", [
    "The rent is GBP 62,000 a year [2].",
    "The rent rose to 62.5 thousand [2]. It is paid every quarter [1][3].",
    "- The tenant may keep one cat [1].\n- No pets after 2025 [2].",
    "Rent is due monthly [1].\n\nFor example, e.g., in May [3]!",
    REFUSAL,
])
def test_an_answer_whose_every_sentence_cites_a_given_passage_keeps_to_the_pattern(answer):
    assert matches(answer, THREE)


@pytest.mark.parametrize(("answer", "why"), [
    ("The rent is GBP 62,000 a year.", "no mark"),
    ("The rent is due. It is 5 [1].", "a sentence without a mark"),
    ("The rent is GBP 62,000 a year [4].", "a passage it was not given"),
    ("The rent is GBP 62,000 a year [12].", "a number not given, though it starts with one that is"),
    ("The rent is due [1][1].", "one passage twice"),
    ("The rent is due [3][1].", "marks out of order"),
    ("The rent is due [1][2][3].", "more than two marks"),
    ("The rent [1] is due monthly [2].", "a mark inside a sentence"),
    ("It opens at 10 a.m. on Mondays [1].", "a full stop inside a sentence"),
    ("# Rent\nIt is due monthly [1].", "a heading"),
    ("It is due monthly.\x0bIt is GBP 900 [1].", "a control character where a sentence should end"),
    ("See [the lease](https://example.org) [1].", "a link"),
])
def test_an_answer_that_leaves_the_pattern_does_not_keep_to_it(answer, why):
    assert not matches(answer, THREE), why


def test_a_sentence_longer_than_the_bound_does_not_keep_to_it():
    longest = "R" + "e" * SENTENCE_UNITS

    assert matches(f"{longest} [1].", THREE)
    assert not matches(f"{longest}e [1].", THREE)


def test_the_citation_check_reads_each_constrained_sentence_with_its_own_marks():
    answer = "The rent is GBP 62,000 a year [2]. It is paid every quarter [1][3].\n\n- No pets may be kept [3]."

    sentences = split_sentences(answer)

    assert matches(answer, THREE)
    assert [re.findall(r"\[(\d+)\]", sentence) for sentence in sentences] == [["2"], ["1", "3"], ["3"]]


def test_the_regex_and_the_grammar_name_the_same_passages():
    pattern = citing([3, 1, 3, 7])

    assert pattern.numbers == (1, 3, 7)
    assert '"[7]"' in pattern.grammar and r"\[7\]" in pattern.regex
    assert '"[2]"' not in pattern.grammar and r"\[2\]" not in pattern.regex


def test_an_answer_with_no_passages_has_no_pattern():
    with pytest.raises(ValueError, match="at least one passage"):
        citing([])


def test_the_pattern_of_hundreds_of_passages_stays_small_and_still_names_only_them():
    rounds = citing(range(1, 301))  # the collection read in rounds

    assert len(rounds.regex) < 10_000 and len(rounds.grammar) < 10_000
    assert matches("The penalty is 2% of the invoice [17][240].", rounds)
    assert not matches("The penalty is 2% of the invoice [301].", rounds)

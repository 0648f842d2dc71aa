"""The quoted answer: the passages' own sentences that hold the question's words, each cited, and
nothing else; the notes docchat writes for a round of the collection use the same choice."""

from __future__ import annotations

import re

from docchat.context.quotes import quoted_answer, sentences
from docchat.domain import Citation

LEAVE = [
    Citation(1, "staff-handbook.md", "Annual leave", "Every employee has 25 days of annual leave a year. "
             "Leave is booked through the HR portal."),
    Citation(2, "staff-handbook.md", "Carrying over leave", "Up to five days of unused leave may be carried "
             "over to the next year. The rest lapses on 31 December."),
    Citation(3, "kitchen-notebook.md", "Gravy", "Gravy keeps for three days in the fridge."),
    Citation(4, "staff-handbook.md", "Sick leave", "Sick leave is paid for up to ten days a year."),
    Citation(5, "staff-handbook.md", "Parental leave", "Parental leave is 26 weeks."),
]


def quotes(answer: str) -> list[tuple[str, int]]:
    return [(sentence, int(number)) for sentence, number in re.findall(r"^- \u201c(.+)\u201d \[(\d+)\]$", answer, re.M)]


def test_every_quote_is_a_sentence_of_the_passage_it_cites():
    answer = quoted_answer("Can unused days of leave be carried over to next year?", LEAVE)

    quoted = quotes(answer)
    assert len(quoted) == len(answer.splitlines()) >= 1
    by_number = {c.number: c.text for c in LEAVE}
    assert all(sentence in sentences(by_number[number]) for sentence, number in quoted)


def test_the_passage_that_answers_best_is_quoted_first_and_at_most_three_are():
    answer = quoted_answer("Can unused days of leave be carried over to next year?", LEAVE)

    quoted = quotes(answer)
    assert quoted[0] == ("Up to five days of unused leave may be carried over to the next year.", 2)
    assert len(quoted) <= 3 and 3 not in [number for _, number in quoted]


def test_a_sentence_sharing_only_a_word_with_the_question_is_not_quoted_beside_one_that_answers_it():
    handbook = [Citation(1, "handbook.md", "Holidays", "Every employee has 25 days of paid holiday a year."),
                Citation(2, "handbook.md", "Home working", "Staff may work from home two days a week with their manager's agreement."),
                Citation(3, "handbook.md", "Parental leave", "Employees may take up to 26 weeks of paid parental leave.")]

    answer = quoted_answer("How many days a week may staff work from home?", handbook)

    assert quotes(answer) == [("Staff may work from home two days a week with their manager's agreement.", 2)]


def test_passages_that_hold_none_of_the_questions_words_give_no_quote():
    assert quoted_answer("Who designed the company logo?", LEAVE) == "I could not find this in the passages."


def test_a_whole_documents_part_kept_as_several_chunks_is_quoted_once_under_its_number():
    part = [Citation(1, "trust.md", "page 2", "The Determination Date is the 15th."),
            Citation(1, "trust.md", "page 2", "If it falls on a weekend, the Determination Date moves to Monday.")]

    answer = quoted_answer("What if the Determination Date falls on a weekend?", part)

    assert quotes(answer) == [("If it falls on a weekend, the Determination Date moves to Monday.", 1)]


def test_a_sections_heading_is_never_quoted():
    part = [Citation(1, "staff-handbook.md", "Sick leave", "## Sick leave\n\nSick pay is full pay for ten days a year.")]

    assert quotes(quoted_answer("What about sick leave?", part)) == [("Sick pay is full pay for ten days a year.", 1)]


def test_a_follow_up_is_quoted_for_its_own_words_before_those_of_the_question_before_it():
    answer = quoted_answer("Is it paid?", LEAVE, context="What about sick leave?")

    assert quotes(answer)[0] == ("Sick leave is paid for up to ten days a year.", 4)


def test_a_follow_up_on_another_subject_is_quoted_for_it_however_many_words_the_earlier_question_had():
    answer = quoted_answer("What about parental leave?", LEAVE, context="How many days of annual leave do I get?")

    assert quotes(answer)[0] == ("Parental leave is 26 weeks.", 5)

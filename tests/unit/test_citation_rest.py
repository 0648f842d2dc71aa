"""The rest of a constrained answer's pattern, for Continue: after an answer cut anywhere, the rest
takes exactly what the whole pattern would have let the answer go on with."""

from __future__ import annotations

import re

import pytest

from docchat.context.citing import SENTENCE_UNITS, citing, matches
from docchat.context.citing_rest import rest
from docchat.domain.grounding import REFUSAL

NUMBERS = [1, 2, 3, 12]
WHOLE = citing(NUMBERS)
ANSWERS = [
    "The rent rose to 62.5 thousand [2]. It is paid every quarter [1][3].",
    "- The tenant may keep one cat [1].\n- No pets after 2025 [12].",
    "Rent is due monthly [1].\n\nFor example, e.g., in May [3]!",
    "-x is odd [1][12].\n-y too [12]. Wait...really [3]. A [1]. B [2]. C [3].",
    "R" + "e" * SENTENCE_UNITS + " [1].",
    "I could not find it [2].",
    REFUSAL,
]


def _goes_on(prefix: str, text: str) -> bool:
    constraint = rest(prefix, NUMBERS)
    return constraint is not None and re.fullmatch(constraint.regex, text) is not None


@pytest.mark.parametrize("answer", ANSWERS)
def test_an_answer_cut_anywhere_can_go_on_to_its_own_end(answer):
    assert matches(answer, WHOLE)
    cuts = [at for at in range(len(answer)) if not _goes_on(answer[:at], answer[at:])]

    assert cuts == []


@pytest.mark.parametrize(("prefix", "text", "why"), [
    ("The rent is due", " monthly.", "a sentence still owes its mark"),
    ("The rent is due monthly [1]", ". It is due.", "a sentence after it without one"),
    ("The rent is due [", "4].", "a passage it was not given"),
    ("The rent is due [1", "2][3].", "a second mark after [12] is not rising"),
    ("The rent is due [2]", "[1].", "marks out of order"),
    ("The rent is due [1][2]", "[3].", "a third mark"),
    ("The rent is due at 10 a.", "m. on Mondays [1].", "a full stop inside a sentence"),
    ("R" + "e" * (SENTENCE_UNITS - 1), "ee [1].", "past the sentence's bound"),
    ("A [1]. B [2]. C [3]. D [1]. E [2]", ". F [3]. G [1].", "a seventh sentence"),
    ("Rent [1].\n", "# Heading\nDue [1].", "a heading"),
    ("I could not find this", " in the passages. More.", "more after the refusal, unmarked"),
])
def test_what_the_rest_takes_is_what_the_whole_pattern_takes(prefix, text, why):
    assert not matches(prefix + text, WHOLE), why
    assert not _goes_on(prefix, text), why


def test_a_whole_answer_has_no_rest_and_neither_has_one_that_left_the_pattern():
    assert rest("A [1]. B [2]. C [3]. D [1]. E [2]. F [3].", NUMBERS) is None  # six sentences: whole
    assert rest("The rent is due [7", NUMBERS) is None  # no passage 7 was given
    assert rest("The rent is due. It is", NUMBERS) is None  # an unmarked sentence: a server that ignored it
    assert rest("", NUMBERS) == WHOLE


def test_the_rest_names_only_the_passages_the_answer_was_given():
    constraint = rest("The rent is due ", NUMBERS)

    assert constraint is not None and constraint.numbers == (1, 2, 3, 12)
    assert constraint.grammar.startswith("root ::= ")
    assert '"[12]"' in constraint.grammar and r"\[12\]" in constraint.regex
    named = {int(n) for n in re.findall(r'"\[?(\d+)\]?"', constraint.grammar)}
    assert named == {1, 2, 3, 12}

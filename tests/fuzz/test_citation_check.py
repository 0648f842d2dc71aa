"""Any answer text a model can write, checked against any passages: the check never fails, and
what it says an answer cites is what its marks name (or, without marks, passages it was given);
its record reads back as it was."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from docchat.grounding.citation_check import check
from docchat.domain import Grounding, marks_in

from tests.fuzz.checks import examples
from tests.fuzz.texts import hostile_text

MARKS = st.sampled_from(["[1]", "[2]", "[1, 3]", "[9]", "[0]", "[12][2]", "[", "]", "[1", "[x]"])
PIECES = st.sampled_from(["The rent is GBP 62,000.", "It is due on the 25th.", " ", "\n", ". ", "1.5%", "1st"])
ANSWERS = st.lists(st.one_of(hostile_text(max_size=30), MARKS, PIECES), max_size=25).map("".join)


@examples(300)
@given(answer=ANSWERS, passages=st.dictionaries(st.integers(1, 4), st.one_of(hostile_text(max_size=60), PIECES),
                                                max_size=4))
def test_any_answer_is_checked_without_failing_and_cites_only_what_it_marks_or_was_given(answer, passages):
    grounding = check(answer, passages, lambda texts: [[float(len(t)), 1.0] for t in texts])

    marked = marks_in(answer)
    if grounding.attributed:
        assert set(grounding.cited) <= set(passages)
    else:
        assert grounding.cited == marked
    assert all(s.text and s.text in answer for s in grounding.sentences)
    assert Grounding.from_dict(grounding.as_dict()) == grounding

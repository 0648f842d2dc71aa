"""A reading docchat is unsure of is said as unsure, with the reading shown, rather than given as
a figure (issue 55 part 2): over a real Markdown table, through the library and the chat
service, with no model. A question whose words the reading all used is stated as before."""

from __future__ import annotations

import pytest

from tests.integration.libraries import library_of
from tests.integration.test_markdown_tables import REPORT


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    yield from library_of(tmp_path_factory.mktemp("unsure"), {"depot-report.md": REPORT.encode()})


@pytest.mark.parametrize(("question", "unread"), [
    ("Which depot holds the second most pallets?", ("second",)),
    ("What percentage of the total pallets is held in Oslo?", ("percentage",)),
    ("How many pallets are held in Oslo and Trondheim?", ("Trondheim",)),
])
def test_a_question_with_words_the_reading_left_unread_gets_an_unsure_figure(library, question, unread):
    figure = library.figures.figure(question, library.retrieval.in_scope(None))

    assert figure is not None and figure.unread == unread


def test_an_unsure_reading_is_said_so_first_with_the_words_it_did_not_read_and_kept_so(library):
    turn = library.chat.answer(None, "Which depot holds the second most pallets?")

    text = turn.text()
    assert text.startswith("docchat is not sure it read your question right: it did not read “second”. Its "
                           "reading, to check: The Depot with the highest total of Pallets is **Bergen**")
    assert turn.answer.facts.table.unread == ("second",)
    kept = library.messages.message(turn.conversation_id, turn.answer.id)
    assert kept.facts.table.unread == ("second",)  # read back from the store as written


def test_a_question_whose_words_the_reading_all_used_is_stated_as_docchat_s(library):
    turn = library.chat.answer(None, "Which depot holds the most pallets?")

    assert turn.text().startswith("The Depot with the highest total of Pallets is **Bergen**")
    assert turn.answer.facts.table.unread == ()

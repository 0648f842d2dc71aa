"""The collection and a comparison answered by docchat (issue 54): a row for each document, its
own sentence quoted and cited, whatever the model, unless the user asks for the model's words;
a document none of whose passages holds the question's words is named, not skipped."""

from __future__ import annotations

from dataclasses import replace

from docchat.context.quotes import Quote, documents_text
from docchat.domain import AnswerForm, Citation
from docchat.domain.approach import Way
from docchat.domain.grounding import QUOTED_BY

from tests.unit.fakes import FakeLibrary, chunk
from tests.unit.test_pipeline import Setup


def _found(document: str, text: str, part: int = 0):
    return replace(chunk(document, part, text, page=part + 1), similarity=0.7, coverage=1.0)


CONTRACTS = [_found("supplier-contract-acme.md", "The acme supplier contract renews on 1 March 2027."),
             _found("supplier-contract-borealis.md", "The borealis supplier contract renews on 1 April 2027."),
             _found("supplier-contract-cobalt.md", "The cobalt supplier contract ends with the 2026 deliveries.")]
LEASES = [_found("lease-2024.md", "The tenant pays GBP 1,200 rent on the first day of each month."),
          _found("lease-2025.md", "The tenant pays GBP 1,300 rent | service charge included, monthly.")]


def test_a_question_about_every_document_is_a_list_of_each_document_s_quote_with_no_model_asked():
    setup = Setup(FakeLibrary(*CONTRACTS))

    turn = setup.ask("What does every supplier contract say about renewal?")

    answer = turn.answer
    assert answer.facts.approach.way is Way.COLLECTION and setup.gateway.requests == []
    assert (answer.facts.form, answer.facts.model) == (AnswerForm.QUOTED, QUOTED_BY)
    assert answer.content.splitlines() == [
        "- **supplier-contract-acme.md**: \u201cThe acme supplier contract renews on 1 March 2027.\u201d [1]",
        "- **supplier-contract-borealis.md**: \u201cThe borealis supplier contract renews on 1 April 2027.\u201d [2]",
        "- **supplier-contract-cobalt.md**: \u201cThe cobalt supplier contract ends with the 2026 deliveries.\u201d [3]"]


def test_a_question_asking_a_date_of_every_document_is_a_table_with_a_column_of_the_dates():
    setup = Setup(FakeLibrary(*CONTRACTS))

    turn = setup.ask("List the renewal date of every supplier contract.")

    assert turn.answer.content.splitlines() == [
        "| Document | Date | What it says |", "| --- | --- | --- |",
        "| supplier-contract-acme.md | 1 March 2027 | \u201cThe acme supplier contract renews on 1 March 2027.\u201d [1] |",
        "| supplier-contract-borealis.md | 1 April 2027 | \u201cThe borealis supplier contract renews on 1 April 2027."
        "\u201d [2] |",
        # A year alone is a figure, not a date: the row says no date was stated rather than guess.
        "| supplier-contract-cobalt.md | \u2014 | \u201cThe cobalt supplier contract ends with the 2026 deliveries."
        "\u201d [3] |"]


def test_a_question_asking_a_figure_of_every_document_has_the_figure_with_what_it_counts():
    from docchat.context.value_table import DATE, FIGURE, asked_value, value_of

    given = [Citation(number=1, document="oslo|depot.md", where="", text="", document_id="o"),
             Citation(number=2, document="bergen.md", where="", text="", document_id="b")]
    quotes = [Quote(given[0], "The Oslo depot holds 1,840 pallets of film."),
              Quote(given[1], "Bergen pays GBP 5,500 a month for its depot.")]

    table = documents_text(quotes, given, side_by_side=False, question="How many pallets does each depot hold?",
                           left_out=(("troms\u00f8.md", "no room in the prompt"),))

    assert table.splitlines()[2:] == [
        "| oslo\\|depot.md | 1,840 pallets | \u201cThe Oslo depot holds 1,840 pallets of film.\u201d [1] |",
        "| bergen.md | GBP 5,500 | \u201cBergen pays GBP 5,500 a month for its depot.\u201d [2] |",
        "| troms\u00f8.md | \u2014 | left out: no room in the prompt |"]
    assert [asked_value(q) for q in ("When does each lease end?", "What does each report say about risk?",
                                     "What is the rent in every lease?", "Who signed each contract?")] == [
        DATE, None, FIGURE, None]
    assert value_of("It renews on 3 May 2026, for 12 months.", FIGURE) == "12 months"


def test_a_comparison_is_a_table_of_what_each_document_says():
    setup = Setup(FakeLibrary(*LEASES))

    turn = setup.ask("Compare the rent in lease-2024.md and lease-2025.md.")

    assert turn.answer.facts.approach.way is Way.COMPARE and setup.gateway.requests == []
    assert turn.answer.content.splitlines() == [
        "| Document | What it says |", "| --- | --- |",
        "| lease-2024.md | \u201cThe tenant pays GBP 1,200 rent on the first day of each month.\u201d [1] |",
        "| lease-2025.md | \u201cThe tenant pays GBP 1,300 rent \\| service charge included, monthly.\u201d [2] |"]


def test_the_model_writes_a_collection_answer_when_the_user_asks_for_its_own_words():
    setup = Setup(FakeLibrary(*CONTRACTS))
    setup.gateway.enqueue(["Both renew in spring 2027 [1][2]."])

    turn = setup.chat.answer(None, "List the renewal date of every supplier contract.", form=AnswerForm.FREE)

    assert turn.text() == "Both renew in spring 2027 [1][2]." and len(setup.gateway.requests) == 1
    assert turn.answer.facts.form is AnswerForm.FREE


def test_a_document_with_no_quote_and_one_left_out_each_have_their_row_saying_why():
    given = [Citation(number=1, document="acme.md", where="", text="The acme contract renews on 1 March 2027.", document_id="a"),
             Citation(number=2, document="cobalt.md", where="", text="Cobalt ships paint in sealed tins.", document_id="c")]
    quotes = [Quote(given[0], "The acme contract renews on 1 March 2027.")]

    listed = documents_text(quotes, given, side_by_side=False, left_out=(("dunmore.md", "no room in the prompt"),))

    assert listed.splitlines() == ["- **acme.md**: \u201cThe acme contract renews on 1 March 2027.\u201d [1]",
                                   "- **cobalt.md**: none of its passages holds the question's words",
                                   "- **dunmore.md**: left out: no room in the prompt"]


def test_a_comparison_among_other_documents_lists_its_sides_alone_and_docchat_s_words_are_not_flagged():
    from docchat.domain.approach import Coverage
    from docchat.services.grounding import CitationChecker
    from tests.unit.fakes import WordsEmbedder

    setup = Setup(FakeLibrary(*LEASES, *CONTRACTS), checker=CitationChecker(WordsEmbedder()))

    turn = setup.ask("Compare the rent in lease-2024.md and lease-2025.md.")

    rows = turn.answer.content.splitlines()[2:]
    assert [row.split(" | ")[0] for row in rows] == ["| lease-2024.md", "| lease-2025.md"]
    assert turn.answer.facts.coverage == Coverage(2, 2)
    assert turn.answer.facts.grounding.flagged == ()  # "2024" is the name docchat wrote, not a claim
    assert turn.answer.facts.grounding.cited == (1, 2)

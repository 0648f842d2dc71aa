"""Choosing how a question is answered, before retrieval: a lookup, the collection or a
comparison, from the question's words and the documents in scope."""

from __future__ import annotations

from dataclasses import replace

import pytest

from docchat.context.approach import COLLECTION_MAX, choose, names_any, of_the_documents
from docchat.errors import InvalidInput
from docchat.domain.approach import LOOKUP, Approach, Coverage, Figure, Way, approach_line, covered_line

LEASES = [("d-2023", "lease-2023.md"), ("d-2024", "lease-2024.md"), ("d-2025", "lease-2025.md")]
CONTRACTS = [("acme", "contracts/supplier-contract-acme.pdf"), ("borealis", "contracts/supplier-contract-borealis.pdf"),
             ("cobalt", "contracts/supplier-contract-cobalt.pdf"), ("minutes", "Board minutes March.docx")]


def test_a_question_naming_two_documents_in_scope_compares_them_in_the_order_it_names_them():
    approach = choose("Compare the 2025 lease with the 2024 lease", LEASES)

    assert approach == Approach(Way.COMPARE, ("d-2025", "d-2024"), ("lease-2025.md", "lease-2024.md"))


def test_two_documents_named_without_a_word_of_comparing_are_still_compared():
    assert choose("What does lease 2023 say about pets, and lease 2025?", LEASES).documents == ("d-2023", "d-2025")


def test_a_word_of_comparing_over_a_scope_of_two_compares_the_two():
    scope = [("old", "Employee handbook.pdf"), ("new", "Staff guide.pdf")]

    assert choose("What changed in the holiday policy?", scope) == \
        Approach(Way.COMPARE, ("old", "new"), ("Employee handbook.pdf", "Staff guide.pdf"))


def test_a_word_of_comparing_over_a_larger_scope_names_no_sides_and_stays_a_lookup():
    assert choose("What is the difference between a break clause and a rent review?", LEASES).way is Way.LOOKUP


def test_the_longer_of_two_names_that_hold_the_same_words_is_the_one_named():
    scope = [("plain", "lease.md"), ("dated", "lease-2024.md"), ("other", "lease-2025.md")]

    assert choose("Compare the 2024 lease with the 2025 lease", scope).documents == ("dated", "other")


def test_a_document_outside_the_scope_is_never_named():
    scope = [*LEASES[1:], ("notes", "viewing notes.md")]

    assert choose("Compare the 2023 lease with the 2024 lease", scope).way is Way.LOOKUP


def test_names_are_matched_on_their_last_part_without_the_extension():
    scope = [("a", "mail/Quarterly.eml › budget-2024.xlsx"), ("b", "archive/2023/budget-2025.xlsx")]

    assert choose("How does budget 2024 differ from budget 2025?", scope).documents == ("a", "b")


@pytest.mark.parametrize("question", [
    "List the renewal date of every supplier contract",
    "Which of my contracts mention penalties?",
    "Which of my supplier contracts carry a penalty?",
    "Summarise these 3 reports",
    "Do all the agreements have a termination clause?",
    "What does each document say about liability?",
])
def test_a_question_about_the_documents_as_a_set_reads_the_collection(question):
    assert choose(question, CONTRACTS).way is Way.COLLECTION


def test_the_set_may_be_called_by_a_word_its_names_share():
    scope = [("n", "Harbour inventory north.xlsx"), ("s", "Harbour inventory south.xlsx")]

    assert choose("Which inventories list pallets of salt?", scope).way is Way.COLLECTION


@pytest.mark.parametrize("question", [
    "What is all the rent due in March?",
    "Does each party pay its own costs?",
    "Which contract mentions penalties?",
    "Which supplier contract mentions penalties?",
    "When is the rent review?",
])
def test_a_question_about_the_contents_is_a_lookup(question):
    assert choose(question, CONTRACTS).way is Way.LOOKUP


@pytest.mark.parametrize("question, themselves", [
    ("Summarise all the supplier contracts.", True),
    ("Give me an overview of these 3 reports", True),
    ("What do all my contracts say?", True),
    ("Summarise the penalty clauses of every contract", False),
    ("Which of my supplier contracts carry a penalty?", False),
    ("What does each document say about liability?", False),
])
def test_a_question_asking_for_the_documents_themselves_is_told_from_one_asking_something_in_them(question, themselves):
    assert of_the_documents(question, CONTRACTS) is themselves


def test_a_question_about_a_scope_past_the_collections_limit_is_a_lookup():
    library = [(f"c{n}", f"contract-{n}.pdf") for n in range(COLLECTION_MAX + 1)]

    assert choose("Which contracts mention penalties?", library[:COLLECTION_MAX]).way is Way.COLLECTION
    assert choose("Which contracts mention penalties?", library).way is Way.LOOKUP


def test_a_scope_of_one_document_is_always_a_lookup():
    assert choose("Summarise every contract", CONTRACTS[:1]).way is Way.LOOKUP


def test_the_page_says_what_each_plan_reads():
    assert approach_line(Approach(Way.COLLECTION), 12) == "Reading all 12 documents in scope"
    assert approach_line(choose("Compare the 2024 lease and the 2025 lease", LEASES), 3) == \
        "Comparing lease-2024.md and lease-2025.md"
    assert approach_line(choose("lease 2023 vs lease 2024 vs lease 2025", LEASES), 3) == \
        "Comparing lease-2023.md, lease-2024.md and lease-2025.md"


def test_once_answered_the_plan_says_what_it_covered_and_what_it_left_out_and_why():
    compared = choose("Compare the 2024 lease and the 2025 lease", LEASES)

    assert covered_line(compared, Coverage(2, 2)) == \
        "Compared lease-2024.md and lease-2025.md: covered 2 of 2 documents."
    assert covered_line(Approach(Way.COLLECTION), Coverage(10, 12, (("a.pdf", "nothing in it matched the question"),
                                                                    ("b.pdf", "no room left")))) == \
        ("Read every document in scope: covered 10 of 12 documents. Left out: a.pdf (nothing in it matched the "
         "question); b.pdf (no room left).")
    # A lookup answers as docchat always did, and an answer from before plans were kept says nothing.
    assert covered_line(LOOKUP, None) is None
    assert covered_line(None, None) is None


def test_a_plan_is_read_back_as_written_and_anything_else_is_none():
    compared = choose("Compare the 2024 lease and the 2025 lease", LEASES)

    assert Approach.from_dict(compared.as_dict()) == compared
    assert Approach.from_dict(LOOKUP.as_dict()) == LOOKUP
    for damaged in (None, [], {"way": "guess"}, {"documents": []}):
        assert Approach.from_dict(damaged) is None


def test_coverage_is_read_back_as_written_and_anything_else_is_none():
    coverage = Coverage(documents_read=11, documents_in_scope=12, left_out=(("b.pdf", "no room left"),), rounds=3)

    assert Coverage.from_dict(coverage.as_dict()) == coverage
    assert Coverage.from_dict({**coverage.as_dict(), "rounds": None}).rounds == 1  # kept before rounds were
    assert covered_line(Approach(Way.COLLECTION), coverage) == (
        "Read every document in scope in 3 rounds: covered 11 of 12 documents. Left out: b.pdf (no room left).")
    for damaged in (None, [], {"documents_read": 3}, {"documents_read": 13, "documents_in_scope": 12},
                    {"documents_read": "3", "documents_in_scope": 12}):
        assert Coverage.from_dict(damaged) is None


def test_a_plan_the_user_chose_is_followed_where_the_scope_allows_it():
    assert choose("Compare the 2024 lease and the 2025 lease", LEASES, Way.LOOKUP) == LOOKUP
    assert choose("When is the rent due?", LEASES, Way.COLLECTION) == Approach(Way.COLLECTION)
    # Compared: the documents named, or every document in scope when fewer than two are named.
    assert choose("lease 2023 or lease 2025?", LEASES, Way.COMPARE).documents == ("d-2023", "d-2025")
    assert choose("When is the rent due?", LEASES, Way.COMPARE).names == (
        "lease-2023.md", "lease-2024.md", "lease-2025.md")


@pytest.mark.parametrize(("chosen", "scope", "refusal"), [
    (Way.COMPARE, LEASES[:1], "a comparison needs two or more documents in scope"),
    (Way.COLLECTION, [], "there are no documents in this conversation's scope to read"),
    (Way.COLLECTION, [(f"d{n}", f"report-{n}.pdf") for n in range(COLLECTION_MAX + 1)],
     f"at most {COLLECTION_MAX} documents in scope, and this conversation has {COLLECTION_MAX + 1}"),
    (Way.TABLE, LEASES, "found no figure to compute from a sheet in scope"),
])
def test_a_chosen_plan_the_scope_cannot_give_is_refused_in_words(chosen, scope, refusal):
    with pytest.raises(InvalidInput, match=refusal):
        choose("When is the rent due?", scope, chosen)


def test_a_computed_figure_is_read_back_as_written_and_anything_else_is_none():
    figure = Figure("d-1", "harbour-inventory.xlsx", "Stock", "the average of Unit price", 4.6667, "SELECT ...", (2, 3, 5))

    assert Figure.from_dict(figure.as_dict()) == figure
    assert figure.as_dict()["where"] == "Stock, rows 2-3, 5"
    for damaged in (None, [], {"columns": ["x"]}, {**figure.as_dict(), "rows": [[1], [2]]},
                    {**figure.as_dict(), "rows_read": ["two"]}):
        assert Figure.from_dict(damaged) is None
    assert Figure.from_dict({**figure.as_dict(), "rows": [[True]]}).value is None


def test_a_text_cell_looked_up_is_said_as_written_escaped_and_read_back_as_written():
    from docchat.domain.stated import figures_of, stated_text

    figure = Figure("d-1", "races.csv", "races", "the Winner where Date is 2026-05-10", None, "SELECT ...", (3,),
                    text="Lars *Holm*")

    assert Figure.from_dict(figure.as_dict()) == figure
    assert figure.as_dict()["rows"] == [["Lars *Holm*"]]
    assert stated_text(figure).startswith("The Winner where Date is 2026-05-10 is **Lars \\*Holm\\***")
    assert figures_of(figure) == []  # no number of the answer is checked against a name


def test_a_figures_unit_is_kept_and_said_with_it():
    figure = Figure("d-1", "invoices.csv", "invoices", "the total of Amount", 3250.0, "SELECT ...", (2, 4), unit="$")

    assert Figure.from_dict(figure.as_dict()) == figure and figure.as_dict()["unit"] == "$"
    assert figure.result == "the total of Amount is $3250"


def test_once_computed_the_answer_says_what_from_where_and_the_figure():
    figure = Figure("d-1", "harbour-inventory.xlsx", "Stock", "the total of Pallets where Location is Oslo", 245.0,
                    "SELECT ...", (2, 3, 4))

    assert covered_line(Approach(Way.TABLE, ("d-1",), ("harbour-inventory.xlsx › Stock",)), None, figure) == (
        "Computed from harbour-inventory.xlsx › Stock, rows 2-4: the total of Pallets where Location is Oslo is 245.")


def test_a_figure_per_value_of_a_column_is_said_value_by_value_and_read_back_as_written():
    figure = Figure("d-1", "harbour-inventory.xlsx", "Stock", "the total of Pallets per Location", None, "SELECT ...",
                    (2, 3, 4, 6), by="Location", groups=(("Oslo", 245), ("Bergen", 85.0), ("", 9)))

    assert figure.as_dict()["columns"] == ["Location", "the total of Pallets per Location"]
    assert Figure.from_dict(figure.as_dict()) == figure
    assert figure.statement == ("Computed by docchat from harbour-inventory.xlsx › Stock, over rows 2-4, 6 (subtotal "
                                "and total rows left out): the total of Pallets per Location is Oslo: 245; Bergen: 85; "
                                "(blank): 9.")
    assert Figure.from_dict({**figure.as_dict(), "rows": [["Oslo"]]}) is None
    assert Figure.from_dict({**figure.as_dict(), "columns": ["a", "b", "c"]}) is None


def test_a_figure_of_the_model_s_query_names_the_model_and_no_rows_and_is_read_back_as_written():
    figure = Figure("d-1", "harbour-inventory.xlsx", "Stock", "stock value", 1080, "SELECT ...", (),
                    written_by="Qwen3-4B-Instruct-2507")
    docchat = replace(figure, written_by="", rows=(2, 3))

    assert Figure.from_dict(figure.as_dict()) == figure
    assert (figure.where, figure.as_dict()["written_by"]) == ("Stock", "Qwen3-4B-Instruct-2507")
    assert "written_by" not in docchat.as_dict()  # an export of docchat's own figure is as before
    assert covered_line(Approach(Way.TABLE, ("d-1",), ("harbour-inventory.xlsx › Stock",)), None, figure) == (
        "Computed from harbour-inventory.xlsx › Stock by a query Qwen3-4B-Instruct-2507 wrote: stock value is 1080.")


def test_a_question_names_a_sheet_or_document_by_every_word_of_its_name_singular_or_plural():
    assert names_any("What is the average lead time in days?", ["harbour-inventory.xlsx", "Lead times"])
    assert names_any("How much is in the harbour inventory?", ["harbour-inventory.xlsx", "Stock"])
    assert not names_any("How many days of notice does the lease ask for?", ["harbour-inventory.xlsx", "Lead times"])

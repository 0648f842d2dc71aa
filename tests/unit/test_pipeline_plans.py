"""The answer pipeline's plans with fakes of its ports: comparisons, the collection (in rounds
when it does not fit one prompt), and figures computed from a sheet."""

from __future__ import annotations

from dataclasses import replace

import pytest

from docchat.context.pipeline import LEFT_OUT_NO_MATCH
from docchat.domain import AnswerForm
from docchat.domain.approach import LOOKUP, Coverage, Figure, Way
from docchat.errors import InvalidInput, LLMUnavailable

from tests.unit.fakes import FakeLibrary, chunk
from tests.unit.test_pipeline import SYSTEM, Setup


def leases() -> list:
    """Two leases too long to go in whole; the 2024 one says "rent" far more often."""
    older = [chunk("lease-2024.md", n, " ".join(["rent is due monthly rent rent"] * 8) + f" clause {n}.", page=n + 1)
             for n in range(30)]
    newer = [chunk("lease-2025.md", n, " ".join(["the tenant pays rent quarterly"] * 8) + f" clause {n}.", page=n + 1)
             for n in range(30)]
    return older + newer


def test_a_question_comparing_two_documents_gives_each_its_passages_side_by_side():
    setup = Setup(FakeLibrary(*leases()), window=4_096)
    lookup = setup.ask("How is the rent paid?")
    assert {c.document for c in lookup.answer.facts.citations} == {"lease-2024.md"}  # the premise
    stages = []

    turn = setup.chat.answer(None, "Compare how rent is paid in lease 2025 and lease 2024", progress=stages.append)
    turn.text()

    documents = [c.document for c in turn.answer.facts.citations]
    assert stages[0] == "Comparing lease-2025.md and lease-2024.md…"
    assert set(documents) == {"lease-2024.md", "lease-2025.md"}
    # Side by side: every passage of the first named before any of the second, numbered in that order.
    assert documents == sorted(documents, key=lambda name: name != "lease-2025.md")
    assert abs(documents.count("lease-2024.md") - documents.count("lease-2025.md")) <= 1
    assert [c.number for c in turn.answer.facts.citations] == list(range(1, len(documents) + 1))
    assert turn.answer.facts.approach.names == ("lease-2025.md", "lease-2024.md")
    assert turn.answer.facts.coverage == Coverage(2, 2)


def test_a_question_about_every_document_reads_each_one_in_scope():
    manuals = [chunk(f"manual-{name}.md", n, " ".join([f"{name} warranty lasts two years"] * 10) + f" part {n}.",
                     page=n + 1)
               for name in ("kettle", "toaster", "blender", "mixer") for n in range(12)]
    setup = Setup(FakeLibrary(*manuals), window=4_096)
    lookup = setup.ask("How long is the warranty?")
    assert len({c.document for c in lookup.answer.facts.citations}) < 4  # the premise
    stages = []

    turn = setup.chat.answer(None, "How long is the warranty in each manual?", progress=stages.append)
    turn.text()

    assert stages[0] == "Reading all 4 documents in scope…"
    assert {c.document for c in turn.answer.facts.citations} == {
        "manual-kettle.md", "manual-toaster.md", "manual-blender.md", "manual-mixer.md"}
    assert (turn.answer.facts.approach.way, turn.answer.facts.coverage) == (Way.COLLECTION, Coverage(4, 4))


def test_the_collection_says_which_documents_it_left_out_and_why():
    manuals = [chunk(f"manual-{name}.md", n, " ".join([f"{name} warranty lasts two years"] * 10) + f" part {n}.",
                     page=n + 1)
               for name in ("kettle", "toaster", "blender") for n in range(12)]
    minutes = chunk("minutes-march.md", 0, "Board met Tuesday; agenda approved.")
    setup = Setup(FakeLibrary(*manuals, minutes), window=4_096)

    turn = setup.ask("How long is the warranty in each of my documents?")

    assert turn.answer.facts.coverage == Coverage(3, 4, (("minutes-march.md", LEFT_OUT_NO_MATCH),))


def reports(count: int) -> list:
    """Reports of one long passage each: about three fit the passage budget of a 2,048-token window."""
    return [chunk(f"report-{n}.md", 0, f"Report {n}: the audit found {n} issues. " + " ".join(["audit finding"] * 70))
            for n in range(1, count + 1)]


def test_a_collection_too_large_for_one_prompt_is_read_in_rounds_and_answered_from_their_notes():
    setup = Setup(FakeLibrary(*reports(7)), rounds=True)
    for n, first in ((1, 1), (2, 4), (3, 7)):
        setup.gateway.enqueue([f"Report {first}: the audit found {first} issues [{first}]."])
    setup.gateway.enqueue(["Every report found issues [1] [7]."])
    stages = []

    # In the model's own words: else docchat quotes each report, and no model reads them in rounds.
    turn = setup.chat.answer(None, "What did each report find in the audit?", progress=stages.append,
                             form=AnswerForm.FREE)
    turn.text()

    rounds = [stage for stage in stages if "round" in stage]
    assert rounds == [f"Reading the documents in 3 rounds: round {n} of 3 ({k} documents)…"
                      for n, k in ((1, 3), (2, 3), (3, 1))]
    *asked, answered = setup.gateway.requests
    assert len(asked) == 3 and all(messages[0]["content"] == SYSTEM for messages, _ in asked)
    # Each round's passages are numbered as the answer cites them: 1-3, then 4-6, then 7.
    assert "[4] report-" in asked[1][0][-1]["content"] and "[1] report-" not in asked[1][0][-1]["content"]
    assert "Write short notes" in asked[0][0][-1]["content"]
    final = answered[0][-1]["content"]
    assert final.startswith("Notes taken from the documents in 3 rounds")
    assert "Report 4: the audit found 4 issues [4]." in final and final.endswith(
        "Question: What did each report find in the audit?")
    facts = turn.answer.facts
    assert facts.coverage == Coverage(7, 7, rounds=3)
    assert [c.number for c in facts.citations] == list(range(1, 8))
    assert len({c.document for c in facts.citations}) == 7
    assert turn.question.model_text == final  # kept as it was sent


def test_notes_the_passages_do_not_bear_out_are_replaced_by_the_passages_own_sentences():
    setup = Setup(FakeLibrary(*reports(7)), rounds=True)
    setup.gateway.enqueue(["Report 1: the audit found 1 issues [1].\nThe supplier of the supplier of the supplier [2].\n"
                           "Report 9 found nothing [12].\n2. [2] report-2.md, Body: ## Body"])
    setup.gateway.enqueue(["Supplier contracts: acme, borealis, cobalt [5]."])  # the round's numbers, not its words

    setup.chat.answer(None, "What did each report find in the audit?", form=AnswerForm.FREE).text()

    final = setup.prompt()[-1]["content"]
    first, second = final.split("\n\nRound 2")[0], final.split("\n\nRound 2")[1]
    assert "Report 1: the audit found 1 issues [1]." in first and "supplier" not in first and "[12]" not in first
    assert "## Body" not in first  # a passage's name copied is no note
    assert "acme" not in second
    assert "report-4.md: \u201cReport 4: the audit found 4 issues.\u201d [4]" in second


def test_a_round_that_fails_leaves_the_collection_to_one_prompt_that_says_what_it_left_out():
    setup = Setup(FakeLibrary(*reports(7)), rounds=True)
    setup.gateway.enqueue([], failure=LLMUnavailable("the server went away"))

    turn = setup.chat.answer(None, "What did each report find in the audit?", form=AnswerForm.FREE)
    turn.text()

    coverage = turn.answer.facts.coverage
    assert (coverage.rounds, coverage.documents_read) == (1, 3) and len(coverage.left_out) == 4
    assert setup.prompt()[-1]["content"].startswith("Context:\n[1] report-")


def test_a_collection_that_fits_whole_reads_every_document_whole():
    notes = [replace(chunk(f"note-{n}.md", 0, f"Note {n}: the warranty lasts {n} years."), similarity=0.7)
             for n in range(3)]
    setup = Setup(FakeLibrary(*notes))

    turn = setup.ask("What does each note say about the warranty?", form=AnswerForm.FREE)

    assert turn.budget.mode == "documents"
    assert turn.answer.facts.coverage == Coverage(3, 3)


def test_a_question_asked_again_with_another_plan_is_a_new_version_and_its_answer_follows_it():
    setup = Setup(FakeLibrary(*leases()), window=4_096)
    lookup = setup.ask("How is the rent paid?")
    stages = []

    again = setup.chat.retry(lookup.conversation_id, plan=Way.COMPARE, progress=stages.append)
    again.text()

    assert stages[0] == "Comparing lease-2024.md and lease-2025.md…"
    # The question is kept as it was sent, with the lookup's passages: it is asked again, a new version.
    assert again.question.version_of == lookup.question.id and again.question.content == lookup.question.content
    shown = [m.id for m in setup.messages.history(lookup.conversation_id) if m.shown]
    assert shown[-2:] == [again.question.id, again.answer.id] and lookup.question.id not in shown
    assert {c.document for c in again.answer.facts.citations} == {"lease-2024.md", "lease-2025.md"}
    assert again.answer.facts.coverage == Coverage(2, 2)


def test_a_chosen_plan_the_scope_cannot_give_is_refused_and_keeps_nothing():
    setup = Setup(FakeLibrary(*leases()[:30]), window=4_096)

    with pytest.raises(InvalidInput, match="a comparison needs two or more documents"):
        setup.chat.answer(None, "How is the rent paid?", plan=Way.COMPARE)

    assert setup.uow.conversations.conversations == {} and setup.gateway.requests == []


def stock() -> list:
    """A stock sheet's sections as chunks: rows 2-4 hold Oslo's, rows 5-7 the rest."""
    return [chunk("harbour-inventory.xlsx", 0, "Location | Pallets\nRow 2: Location: Oslo; Pallets: 120\n"
                  "Row 3: Location: Oslo; Pallets: 45\nRow 4: Location: Oslo subtotal; Pallets: 165",
                  label="Stock, rows 2-4"),
            chunk("harbour-inventory.xlsx", 1, "Location | Pallets\nRow 5: Location: Bergen; Pallets: 25\n"
                  "Row 6: Location: Pallets in transit; Pallets: 9\nRow 7: Location: Grand total; Pallets: 199",
                  label="Stock, rows 5-7")]


OSLO = Figure("harbour-inventory.xlsx", "harbour-inventory.xlsx", "Stock", "the total of Pallets where Location is Oslo",
              165, "SELECT SUM(\"Pallets\") ...", (2, 3))


def test_a_figure_asked_of_a_sheet_is_given_first_as_docchat_computed_it_then_the_rows_it_read():
    setup = Setup(FakeLibrary(*stock(), *leases(), computed=OSLO), window=4_096)
    stages = []

    # In the model's own words, so that the model is sent the figure (docchat states it first).
    turn = setup.chat.answer(None, "How many pallets are in Oslo in total?", progress=stages.append,
                             form=AnswerForm.FREE)
    turn.text()

    assert stages[0] == "Computing from harbour-inventory.xlsx › Stock…"
    [figure, rows, *_] = turn.answer.facts.citations
    assert figure.text == ("Computed by docchat from harbour-inventory.xlsx › Stock, over rows 2-3 (subtotal and "
                           "total rows left out): the total of Pallets where Location is Oslo is 165.")
    assert rows.where == "Stock, rows 2-4" and figure.chunk_id == rows.chunk_id  # opens on the rows it read
    assert {c.document for c in turn.answer.facts.citations} == {"harbour-inventory.xlsx"}
    assert "[1] harbour-inventory.xlsx, Stock, rows 2-4: Computed by docchat" in setup.prompt()[-1]["content"]
    assert turn.answer.facts.approach.way is Way.TABLE
    assert turn.answer.facts.evidence.found  # the sheet holds the figure, however its words match the question


def test_a_figure_a_sheet_could_give_does_not_answer_a_question_about_another_document():
    setup = Setup(FakeLibrary(*stock(), *leases(), computed=OSLO), window=4_096)

    turn = setup.ask("What is the total rent due monthly?")

    assert turn.answer.facts.approach is LOOKUP and turn.answer.facts.table is None
    assert {c.document for c in turn.answer.facts.citations} == {"lease-2024.md"}


def test_a_figure_over_a_value_the_question_names_is_computed_though_a_passage_without_it_ranks_first():
    # "Oslo" is a Location of the stock sheet; the lease's passages rank first for "rent" but hold no Oslo.
    linked = replace(OSLO, named=("Oslo",))
    setup = Setup(FakeLibrary(*stock(), *leases(), computed=linked), window=4_096)

    turn = setup.ask("What is the total rent due monthly in Oslo?")

    assert turn.answer.facts.approach.way is Way.TABLE and turn.answer.facts.table == OSLO


def test_a_figure_over_a_named_value_gives_way_to_a_passage_of_another_document_holding_it():
    linked = replace(OSLO, named=("monthly",))  # a value the lease's first passage holds as well
    setup = Setup(FakeLibrary(*stock(), *leases(), computed=linked), window=4_096)

    turn = setup.ask("What is the total rent due monthly?")

    assert turn.answer.facts.approach is LOOKUP and turn.answer.facts.table is None


def test_a_figure_is_computed_for_a_question_naming_its_sheet_though_other_passages_match_it_better():
    setup = Setup(FakeLibrary(*stock(), *leases(), computed=OSLO), window=4_096)

    turn = setup.ask("What is the total in the stock sheet?")

    assert turn.answer.facts.approach.way is Way.TABLE and turn.answer.facts.table == OSLO


def test_a_figure_the_user_asks_for_is_computed_whatever_the_question_matches():
    setup = Setup(FakeLibrary(*stock(), *leases(), computed=OSLO), window=4_096)

    turn = setup.chat.answer(None, "What is the total rent due monthly for pallets?", plan=Way.TABLE)
    turn.text()

    assert turn.answer.facts.approach.way is Way.TABLE and turn.answer.facts.table == OSLO


def test_a_figure_asked_for_where_none_can_be_computed_is_refused_and_keeps_nothing():
    setup = Setup(FakeLibrary(*stock()), window=4_096)

    with pytest.raises(InvalidInput, match="found no figure to compute from a sheet in scope"):
        setup.chat.answer(None, "Who counted the pallets?", plan=Way.TABLE)

    assert setup.uow.conversations.conversations == {} and setup.gateway.requests == []


def test_a_lookup_keeps_its_plan_and_no_coverage():
    setup = Setup(FakeLibrary(*leases()), window=4_096)

    turn = setup.ask("How is the rent paid?")

    assert (turn.answer.facts.approach, turn.answer.facts.coverage) == (LOOKUP, None)

"""A figure docchat computed is stated by docchat (issue 54): the answer opens with docchat's own
sentence, or a table per value, cited to the rows; the model adds words only where it has shown
it can, or where the user asked for them. Stored and stateless answers alike."""

from __future__ import annotations

from docchat.context.citing import CITE, JUDGED_ENOUGH, CitationGate
from docchat.domain import AnswerForm
from docchat.domain.approach import Figure
from docchat.domain.grounding import STATED_BY, form_line
from docchat.domain.stated import shown_figure, stated_text
from docchat.llm.skill_record import JsonSkillRecord
from docchat.services.grounding import CitationChecker
from tests.unit.fakes import FakeLibrary, WordsEmbedder
from tests.unit.test_pipeline import Setup
from tests.unit.test_pipeline_plans import OSLO, leases, stock

PER_LOCATION = Figure("harbour-inventory.xlsx", "harbour-inventory.xlsx", "Stock", "the total of Pallets per Location",
                      None, "SELECT \"Location\" AS per, SUM(\"Pallets\") ...", (2, 3, 4, 5),
                      by="Location", groups=(("Oslo", 165), ("Bergen | Laksevåg", 20)),
                      group_rows=((2, 3), (4, 5)))


def test_a_computed_figure_is_the_answer_in_docchat_s_words_and_no_model_is_asked():
    setup = Setup(FakeLibrary(*stock(), *leases(), computed=OSLO), window=4_096)

    turn = setup.ask("How many pallets are in Oslo in total?")

    answer = turn.answer
    assert answer.content == ("The total of Pallets where Location is Oslo is **165** (computed by docchat from "
                              "harbour-inventory.xlsx › Stock, 2 rows (2-3); subtotal and total rows left out) [1].")
    assert setup.gateway.requests == []
    assert answer.facts.form is AnswerForm.STATED and answer.facts.model == STATED_BY
    assert [c.number for c in answer.cited] == [1] and answer.cited[0].where == "Stock, rows 2-4"
    assert form_line(answer.facts.form, answer.facts.model) == "Computed by docchat from your documents; no model wrote it."


def test_a_figure_per_value_is_a_table_of_each_value_its_figure_and_its_rows():
    setup = Setup(FakeLibrary(*stock(), *leases(), computed=PER_LOCATION), window=4_096)

    turn = setup.ask("What is the total of pallets per location?")

    lines = turn.answer.content.splitlines()
    assert lines[0] == ("The total of Pallets per Location, computed by docchat from harbour-inventory.xlsx › Stock, "
                        "4 rows (2-5); subtotal and total rows left out [1]:")
    assert lines[2:] == ["| Location | Total of Pallets | Rows |", "| --- | --- | --- |", "| Oslo | 165 | 2-3 |",
                         "| Bergen \\| Laksevåg | 20 | 4-5 |"]  # a value's own bar cannot split its row


def test_the_model_s_words_follow_docchat_s_figure_when_the_user_asks_for_them_and_only_they_are_checked():
    setup = Setup(FakeLibrary(*stock(), *leases(), computed=OSLO), window=4_096,
                  checker=CitationChecker(WordsEmbedder()))
    setup.gateway.enqueue(["Oslo holds 47795 pallets."])

    turn = setup.chat.answer(None, "How many pallets are in Oslo in total?", form=AnswerForm.FREE)
    turn.text()

    answer = turn.answer
    statement = stated_text(OSLO)
    assert answer.content == f"{statement}\n\nOslo holds 47795 pallets."
    assert "Computed by docchat" in setup.prompt()[-1]["content"]  # the model was given the figure too
    assert answer.facts.form is AnswerForm.STATED and answer.facts.model != STATED_BY
    check = answer.facts.grounding
    assert [s.text for s in check.flagged] == ["Oslo holds 47795 pallets."]  # the model's number, not docchat's
    assert 1 in check.cited


def test_a_model_that_has_shown_it_cites_well_adds_its_words_to_a_figure_unasked(tmp_path):
    record = JsonSkillRecord(tmp_path)
    for _ in range(JUDGED_ENOUGH):
        record.note("tiny", CITE, usable=True)
    setup = Setup(FakeLibrary(*stock(), *leases(), computed=OSLO), window=4_096, citation_gate=CitationGate(record),
                  checker=CitationChecker(WordsEmbedder()))
    setup.gateway.enqueue(["That is the whole of the Oslo stock [1]."])

    answer = setup.ask("How many pallets are in Oslo in total?").answer

    assert answer.content.startswith(stated_text(OSLO))
    assert answer.content.endswith("That is the whole of the Oslo stock [1].")


def test_a_model_not_yet_judged_adds_nothing_to_a_figure(tmp_path):
    setup = Setup(FakeLibrary(*stock(), *leases(), computed=OSLO), window=4_096,
                  citation_gate=CitationGate(JsonSkillRecord(tmp_path)))

    answer = setup.ask("How many pallets are in Oslo in total?").answer

    assert answer.content == stated_text(OSLO) and setup.gateway.requests == []


def test_a_stateless_answer_states_the_figure_as_a_stored_one_does():
    setup = Setup(FakeLibrary(*stock(), *leases(), computed=OSLO), window=4_096)

    turn = setup.stateless.answer([], "How many pallets are in Oslo in total?")

    assert turn.text() == stated_text(OSLO)
    assert turn.answer.facts.form is AnswerForm.STATED and setup.gateway.requests == []


def test_figures_are_shown_with_thousands_separators_and_two_decimals_at_most():
    assert [shown_figure(v) for v in (9492, 5479.5714, 1_250_000.0, 0.004, -12.5, None)] == \
        ["9,492", "5,479.57", "1,250,000", "0.004", "-12.5", "none (no value in those rows)"]


def test_a_sheet_s_names_cannot_restyle_docchat_s_sentence():
    figure = Figure("d", "**loud**.xlsx", "Sheet_1", "the total of [Cost](x) where Item is *star*", 3, "SELECT 1", (2,))

    assert stated_text(figure) == ("The total of \\[Cost\\]\\(x\\) where Item is \\*star\\* is **3** (computed by "
                                   "docchat from \\*\\*loud\\*\\*.xlsx › Sheet\\_1, 1 row (2); subtotal and total "
                                   "rows left out) [1].")


def test_a_figure_a_model_s_query_computed_names_the_model():
    figure = Figure("d", "stock.xlsx", "Stock", "stock value", 1080.0, "SELECT ...", (), written_by="Qwen3-4B")

    assert stated_text(figure) == ("Stock value is **1,080** (computed by a query Qwen3-4B wrote, run by docchat over "
                                   "the data rows of stock.xlsx › Stock; subtotal and total rows left out) [1].")


def test_the_model_s_words_after_a_figure_cut_at_the_limit_go_on_and_docchat_s_sentence_stays_unchecked():
    # Fourteen rows: "14" is in docchat's sentence and not in the passage it cites.
    fourteen = Figure(OSLO.document_id, OSLO.document, OSLO.sheet, OSLO.what, 165, OSLO.sql, tuple(range(2, 16)))
    setup = Setup(FakeLibrary(*stock(), *leases(), computed=fourteen), window=4_096,
                  checker=CitationChecker(WordsEmbedder()))
    setup.gateway.enqueue(["So the total of Pallets where "], finish_reason="length")
    setup.gateway.enqueue(["Location is Oslo is 165 [1]."])
    first = setup.chat.answer(None, "How many pallets are in Oslo in total?", form=AnswerForm.FREE)
    first.text()

    turn = setup.chat.continue_answer(first.conversation_id)
    turn.text()

    assert turn.answer.content == f"{stated_text(fourteen)}\n\nSo the total of Pallets where Location is Oslo is 165 [1]."
    assert turn.answer.facts.form is AnswerForm.STATED
    assert turn.answer.facts.grounding.flagged == ()

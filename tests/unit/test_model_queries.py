"""A figure docchat's own queries cannot compute is asked of the served model as a query, only
where it has shown it can write one: what it wrote is run behind the sheets' data rows, and a
model whose queries are unusable is not asked again (the passages answer)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from docchat.context.model_queries import SKILL, ModelQueries
from docchat.tables.model_query import SHOWN_CHARS, described, plain_names, statement, wrapped
from docchat.context.skill_gate import GIVE_UP_AFTER, SkillGate
from docchat.domain.approach import LOOKUP, Figure, Way
from docchat.errors import LLMUnavailable, UnusableOutput
from docchat.llm.skill_record import JsonSkillRecord
from docchat.domain.documents import TableShape

from tests.unit.fakes import FakeLibrary, FakeServerInfo
from tests.unit.test_pipeline import Setup
from tests.unit.test_pipeline_plans import leases, stock

STOCK = TableShape("harbour-inventory.xlsx", "Stock", "sheet_d1_0",
                   (("Location", "text"), ("Item", "text"), ("Pallets", "integer"), ("Unit price", "real")), 8)
VALUE = 'SELECT SUM("Pallets" * "Unit price") AS stock_value FROM stock WHERE "Location" = \'Oslo\''
OSLO_VALUE = Figure("harbour-inventory.xlsx", "harbour-inventory.xlsx", "Stock", "stock value", 1080, VALUE, ())
QUESTION = "What is the stock value of Oslo, pallets times unit price, in total?"


class QueryWriter:
    """The model's queries, as scripted: what it writes each time it is asked, or what it raises."""

    def __init__(self, *outcomes):
        self.outcomes = list(outcomes)
        self.asked: list[tuple[str, str]] = []

    def query(self, tables: str, question: str, *, max_tokens: int) -> str:
        self.asked.append((tables, question))
        outcome = self.outcomes[min(len(self.asked), len(self.outcomes)) - 1]
        if isinstance(outcome, Exception):
            raise outcome
        return outcome


def gated(tmp_path, writer: QueryWriter, *chunks) -> Setup:
    gate = SkillGate(JsonSkillRecord(tmp_path), SKILL)
    gate.follow(FakeServerInfo(model="tiny"))
    library = FakeLibrary(*(chunks or stock()), sheets=[STOCK], query_figures={VALUE: OSLO_VALUE})
    return Setup(library, window=4_096, queries=ModelQueries(writer, gate))


def test_a_figure_docchat_computes_no_query_for_is_computed_by_the_model_s_query_and_said_so(tmp_path):
    writer = QueryWriter(f"```sql\n{VALUE};\n```")
    setup = gated(tmp_path, writer)
    stages: list[str] = []

    turn = setup.chat.answer(None, QUESTION, progress=stages.append)
    turn.text()

    assert stages[:2] == ["Asking the model for a query over Stock…", "Computing from harbour-inventory.xlsx › Stock…"]
    assert writer.asked == [("Stock", QUESTION)]
    facts = turn.answer.facts
    assert facts.approach.way is Way.TABLE and facts.table.written_by == "tiny" and facts.table.sql == VALUE
    assert facts.citations[0].text == ("Computed by a query tiny wrote, run by docchat over the data rows of "
                                       "harbour-inventory.xlsx › Stock (subtotal and total rows left out): "
                                       "stock value is 1080.")


def test_a_model_whose_queries_are_unusable_is_not_asked_again_and_the_passages_answer(tmp_path):
    writer = QueryWriter("The total is 1080 pallets.", 'SELECT * FROM "sheet_tables"')
    setup = gated(tmp_path, writer)

    turns = [setup.ask(QUESTION) for _ in range(GIVE_UP_AFTER + 2)]

    assert len(writer.asked) == GIVE_UP_AFTER
    assert all(turn.answer.facts.approach is LOOKUP and turn.answer.facts.table is None for turn in turns)
    assert all(turn.answer.facts.citations for turn in turns)  # the sheet's passages still answer


def test_a_model_asked_while_its_server_is_down_is_not_judged_by_it(tmp_path):
    writer = QueryWriter(LLMUnavailable("the LLM server is not running"), LLMUnavailable("down"), VALUE)
    setup = gated(tmp_path, writer)

    turns = [setup.ask(QUESTION) for _ in range(GIVE_UP_AFTER + 1)]

    assert len(writer.asked) == GIVE_UP_AFTER + 1
    assert turns[-1].answer.facts.table.written_by == "tiny"


def test_the_model_is_not_asked_for_a_question_about_another_document_or_asking_no_figure(tmp_path):
    writer = QueryWriter(VALUE)
    setup = gated(tmp_path, writer, *stock(), *leases())

    about_a_lease = setup.ask("What is the average rent due monthly in lease 2024?")
    no_figure = setup.ask("Where are the cardboard boxes of the stock sheet kept?")

    assert writer.asked == []
    assert about_a_lease.answer.facts.table is None and no_figure.answer.facts.table is None


def test_a_figure_the_user_asks_for_is_asked_of_the_model_whatever_the_question_matches(tmp_path):
    writer = QueryWriter(VALUE)
    setup = gated(tmp_path, writer, *stock(), *leases())

    turn = setup.chat.answer(None, "What is the average rent due monthly for pallets?", plan=Way.TABLE)
    turn.text()

    assert turn.answer.facts.table == replace(OSLO_VALUE, written_by="tiny")


@pytest.mark.parametrize("written", [
    "DELETE FROM stock", "The answer is 1080.", "", "PRAGMA table_info(stock)",
])
def test_what_is_not_a_select_statement_is_unusable(written):
    with pytest.raises(UnusableOutput):
        statement(written)


def test_the_model_s_sheets_are_bound_to_their_data_rows_before_its_own_query():
    named = plain_names([STOCK, TableShape("d2", "Lead times", "sheet_d2_0", (("Days", "integer"),), 5),
                         TableShape("d3", "Stock", "sheet_d3_0", (("Pallets", "integer"),), 2),
                         TableShape("d4", "Order", "sheet_d4_0", (("Pallets", "integer"),), 2),
                         TableShape("d5", "2025", "sheet_d5_0", (("Pallets", "integer"),), 2)])

    assert list(named) == ["stock", "lead_times", "stock_2", "sheet_order", "sheet_2025"]
    assert wrapped("SELECT 1", {"stock": STOCK}) == (
        'WITH stock AS (SELECT "Location", "Item", "Pallets", "Unit price" FROM sheet_d1_0 WHERE _kind = \'row\') '
        "SELECT 1")
    assert wrapped("with recursive n(x) AS (SELECT 1) SELECT x FROM n", {"stock": STOCK}).startswith(
        "WITH recursive stock AS (SELECT")


def test_a_long_text_cell_is_shown_to_the_model_cut():
    shown = described({"stock": STOCK}, {STOCK.document_id: "harbour-inventory.xlsx"},
                      lambda shape: [("Oslo", "x" * 500, 120, 4.5)])

    assert f"'{'x' * SHOWN_CHARS}…', 120, 4.5)" in shown and "x" * (SHOWN_CHARS + 1) not in shown

"""`docchat bench tables`: every question is asked of its own real table, kept as the kind of
document the bench makes of it, and scored against pandas' answer from the same data; docchat's
reader keeps to the issue's targets on them (no timing is asserted)."""

from __future__ import annotations

import json

from docchat.cli import main
from docchat.domain.approach import Figure
from docchat_bench.table_questions import QUESTIONS, Question
from docchat_bench.table_model import MODEL_ANSWERS
from docchat_bench.tables import KINDS, _rows, right


# The bench at a size make test affords: its time is mostly each document's ingestion (a sheet's
# rows embedded), and the thirteen tables past 700 rows (Forbes' 2,000 companies, Gapminder, a
# race's 978 runners...) take about half of it; `docchat bench tables` asks them all.
MAX_ROWS = 700


def test_the_bench_asks_every_question_of_its_table_and_meets_the_targets_on_them(capsys):
    assert main(["bench", "tables", "--json", "--max-rows", str(MAX_ROWS), "--answers", str(MODEL_ANSWERS)]) == 0

    report = json.loads(capsys.readouterr().out)
    asked = [table for table in KINDS if len(_rows(table)) - 1 <= MAX_ROWS]
    assert report["tables"] == len(asked) and report["questions"] == sum(q.table in asked for q in QUESTIONS)
    assert set(report["by_kind"]) == {"csv", "xlsx", "pdf", "md", "html", "docx"}
    assert set(report["by_set"]) == {"first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
                                     "ninth"}
    assert sum(row["questions"] for row in report["by_set"].values()) == report["questions"]
    # Of the figures docchat states as its own, 0.95 right (the target; 0.979 on these 680
    # questions at stop 64); right of all, 0.840 here at stop 64 against the 0.90
    # (docs/perf/tables.md): a floor under which a change of the reader fails. The ninth,
    # held-out set came in at stop 64 (right 0.34 on its first run, 0.57 after its wrong figures
    # were mended).
    assert report["right_of_stated"] >= 0.95, report["wrong"]
    assert report["right"] >= 0.80, report["unstated"]
    # A reading said as unsure is neither stated nor right.
    assert all(not r["stated"] and not r["right"] for r in report["results"] if r["unsure"])
    # The model's query is asked only where the reader stated no figure, and read and run as docchat
    # reads and runs the served model's: its recorded queries raise right to 0.89 here at stop 62.
    # The ninth set (stop 64) has none recorded, so with it the floor is lower: 0.868 at stop 64, of
    # 20 recorded queries stated, 19 right.
    assert all(not r["stated"] for r in report["results"] if "model" in r)
    assert all("model" in r for r in report["results"] if not r["stated"])
    with_model = report["with_model"]
    assert with_model["right_of_stated"] >= 0.95 and with_model["right_with_reader"] >= 0.85, with_model


def test_a_text_cell_looked_up_is_right_when_its_text_is_the_same_whatever_its_case():
    asked = Question("presidential", "What party was Nixon in?", "lookup", lambda frame: "Republican", "third")
    named = Figure("d", "presidential.md", "Table 1", "the party where name is Nixon", None, "SELECT 1", (5,),
                   by="party", groups=(("republican", 1),))
    assert right(asked, named, "Republican")
    assert not right(asked, named, "Democratic")
    assert not right(asked, Figure("d", "presidential.md", "Table 1", "the count", 1, "SELECT 1", (5,)), "Republican")
    looked_up = Figure("d", "presidential.md", "Table 1", "the party where name is Nixon", None, "SELECT 1", (5,),
                       text="republican")
    assert right(asked, looked_up, "Republican")

"""Figures docchat computes from real tables, kept as documents of every kind it reads tables from
(docs/perf/tables.md).

    docchat bench tables [--tables N] [--max-rows N] [--json] [--prompts FILE] [--answers FILE]

The tables are real ones (tables_data/, their sources and terms in tables_data/SOURCES.md), each
made into the kind of document people keep such a table in: a CSV, a workbook (numbers as
numbers, dates as dates), a PDF (fpdf2's table writer, a rule under the header), a Markdown pipe
table, an HTML table or a Word document's table. All are ingested into one library by the real
services; each question (table_questions.py, written for this bench) is asked of its own
document, as docchat's reader computes a figure for it (no model). A question is right when the
figure docchat states is the one pandas computes from the same data; "stated" counts the
questions docchat gave a figure for at all, so "right of stated" is how far a confident figure
can be trusted. Figures are printed; nothing about time is asserted. Where the reader states no
figure, a capable model's recorded query can answer (table_model.py): `--answers` measures it.
"""

from __future__ import annotations

import csv
import datetime
import io
import json
import math
import statistics
import tempfile
import time
from pathlib import Path

import pandas as pd

from docchat_bench.table_model import prompt, recorded, replayed
from docchat_bench.table_questions import QUESTIONS, Question

DATA = Path(__file__).with_name("tables_data")
# The kind each table is kept as, and its file's name.
KINDS = {"mtcars": "pdf", "usarrests": "pdf", "orange": "pdf", "women": "md", "plantgrowth": "md",
         "trees": "html", "insectsprays": "html", "barley": "html", "toothgrowth": "xlsx", "esoph": "xlsx",
         "iowa-electricity": "xlsx", "warpbreaks": "csv", "airquality": "csv", "seattle-weather": "csv",
         "penguins": "csv", "chickwts": "docx",
         # The third set's tables.
         "hills": "pdf", "wheat": "pdf", "crimea": "pdf", "lifecyclesavings": "pdf", "longley": "pdf",
         "titanic": "md", "worldphones": "md", "euro": "md", "arbuthnot": "md", "presidential": "md",
         "ucbadmissions": "html", "uspersonalexpenditure": "html", "animals": "html", "prestige": "html",
         "burtin": "html", "co2": "html", "state-x77": "xlsx", "painters": "xlsx", "msleep": "xlsx",
         "florida": "xlsx", "stocks": "xlsx", "airpassengers": "xlsx", "economics": "csv", "mpg": "csv",
         "salaries": "csv", "us-employment": "csv", "cars": "csv", "islands": "docx", "vadeaths": "docx",
         "poliotrials": "docx",
         # The fourth set's tables, held out.
         "murders": "pdf", "swiss": "pdf", "leinhardt": "pdf", "stars": "md", "election-2016": "md",
         "brexit-polls": "html", "gtcars": "html", "cholera": "html", "cars93": "xlsx", "un": "xlsx",
         "hurricanes": "xlsx", "gapminder": "csv", "titanic-survival": "csv", "starwars": "csv", "armada": "docx",
         # The fifth set's tables, held out.
         "mcu-films": "pdf", "boston-marathon": "pdf", "thatcher-approval": "md", "us-mortality": "md",
         "sacramento": "html", "cia-factbook": "html", "bakeoff-ratings": "xlsx", "births-2015": "xlsx",
         "forbes2000": "csv", "vehicle-production": "csv", "oscars": "docx", "water": "docx",
         # The sixth set's tables, held out.
         "donner": "pdf", "high-peaks": "pdf", "us-rent-income": "md", "lifeboats": "md", "air-crashes": "html",
         "drag-race": "html", "journals": "xlsx", "health-breaches": "xlsx", "presidential-elections": "csv",
         "nfl-2016": "docx",
         # The seventh set's tables, held out.
         "nyc-marathon": "pdf", "us-house": "pdf", "world-records": "md", "steves-clothes": "md",
         "earthquakes": "html", "cms-patient-care": "html", "commodity-prices": "xlsx", "student-survey": "xlsx",
         "grand-rapids-snow": "csv", "starbucks": "docx",
         # The eighth set's tables, held out.
         "temp-carbon": "pdf", "parade-2005": "pdf", "heart-transplant": "md", "london-murders": "md",
         "mlb-salaries": "html", "guerry": "html", "australian-polls": "xlsx", "cpus": "xlsx", "airports": "csv",
         "midterms-house": "docx",
         # The ninth set's tables, held out.
         "aviation-safety": "pdf", "polls-2008": "pdf", "sopa-pipa": "md", "aus-accommodation": "md",
         "paris-metro": "html", "nba-players": "html", "duke-forest": "xlsx", "exxon-stock": "xlsx", "dunn-run": "csv",
         "ucla-textbooks": "docx"}


def _rows(table: str) -> list[list[str]]:
    with open(DATA / f"{table}.csv", newline="", encoding="utf-8") as file:
        return [row for row in csv.reader(file)]


def _typed(cell: str) -> object:
    if cell in ("", "NA"):
        return None
    for kind in (int, float):
        try:
            return kind(cell)
        except ValueError:
            pass
    try:
        return datetime.date.fromisoformat(cell)
    except ValueError:
        return cell


def document(table: str) -> tuple[str, bytes]:
    """The table as the kind of document it is kept as: (file name, bytes)."""
    kind, rows = KINDS[table], _rows(table)
    name = f"{table}.{kind}"
    if kind == "csv":
        return name, (DATA / f"{table}.csv").read_bytes()
    if kind == "md":
        lines = [f"# {table}", "", "| " + " | ".join(rows[0]) + " |", "| " + " | ".join("---" for _ in rows[0]) + " |"]
        lines += ["| " + " | ".join(row) + " |" for row in rows[1:]]
        return name, "\n".join(lines).encode()
    if kind == "html":
        head = "".join(f"<th>{cell}</th>" for cell in rows[0])
        body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>" for row in rows[1:])
        return name, (f"<html><body><h1>{table}</h1><table><tr>{head}</tr>{body}</table></body></html>").encode()
    if kind == "xlsx":
        from openpyxl import Workbook

        book = Workbook()
        sheet = book.active
        sheet.title = table[:31]
        sheet.append(rows[0])
        for row in rows[1:]:
            sheet.append([_typed(cell) for cell in row])
        kept = io.BytesIO()
        book.save(kept)
        return name, kept.getvalue()
    if kind == "docx":
        import docx

        made = docx.Document()
        made.add_heading(table, level=1)
        grid = made.add_table(rows=len(rows), cols=len(rows[0]))
        # A row's own cells: python-docx's table.cell(r, c) lays out the whole grid on each call,
        # which made writing the bench's Word tables take half of the bench's time.
        for made_row, row in zip(grid.rows, rows):
            for made_cell, cell in zip(made_row.cells, row):
                made_cell.text = cell
        kept = io.BytesIO()
        made.save(kept)
        return name, kept.getvalue()
    return name, _pdf(table, rows)


def _pdf(title: str, rows: list[list[str]]) -> bytes:
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_font("Helvetica", size=12)
    pdf.add_page()
    pdf.cell(0, 8, title, new_x="LMARGIN", new_y="NEXT")
    pdf.set_font_size(7 if len(rows[0]) > 8 else 9)
    aligned = tuple("LEFT" if _typed(cell) is None or isinstance(_typed(cell), str) else "RIGHT" for cell in rows[1])
    with pdf.table(borders_layout="SINGLE_TOP_LINE", text_align=aligned, first_row_as_headings=True) as grid:
        for cells in rows:
            row = grid.row()
            for cell in cells:
                row.cell(cell)
    return bytes(pdf.output())


def _frame(table: str) -> pd.DataFrame:
    return pd.read_csv(DATA / f"{table}.csv", keep_default_na=True, dtype={"year": str} if table == "iowa-electricity"
                       else None)


def _same(number: object, expected: object) -> bool:
    if number is None or expected is None:
        return False
    got, want = float(number), float(expected)  # type: ignore[arg-type]
    return math.isclose(got, want, rel_tol=1e-6, abs_tol=1e-6)


def right(question: Question, figure, expected: object) -> bool:
    """Whether the figure docchat computed is the answer pandas computed."""
    if figure is None:
        return False
    if question.shape == "ranked" and figure.written_by:  # the model's query: the one label with its figure
        return len(figure.groups) == 1 and str(figure.groups[0][0]) == str(expected)
    if question.shape == "ranked":
        return bool(figure.ranked) and bool(figure.groups) and str(figure.groups[0][0]) == str(expected)
    if question.shape == "top":
        return [str(group) for group, _ in figure.groups] == expected
    if isinstance(expected, str):  # a text cell looked up: the same text, whatever its case
        said = _text(figure)
        return said is not None and said.strip().casefold() == expected.strip().casefold()
    if isinstance(expected, dict):
        groups = {str(group): value for group, value in figure.groups}
        return set(groups) == set(expected) and all(_same(groups[k], v) for k, v in expected.items())
    return figure.by is None and _same(figure.value, expected)


def run_tables_bench(*, tables: int | None = None, max_rows: int | None = None, as_json: bool = False,
                     prompts_to: Path | None = None, answers: Path | None = None) -> dict:
    from docchat.bootstrap import build_services
    from docchat.config import Settings

    chosen = list(KINDS)[:tables] if tables else list(KINDS)
    if max_rows:  # the bench at a small size: most of its time is embedding the longest tables' passages
        chosen = [table for table in chosen if len(_rows(table)) - 1 <= max_rows]
    asked = [q for q in QUESTIONS if q.table in chosen]
    results = []
    prompts: dict[str, list[dict]] = {}
    model, completions = recorded(answers) if answers else ("", {})
    with tempfile.TemporaryDirectory(prefix="docchat-bench-tables-") as folder:
        services = build_services(Settings(data_dir=Path(folder) / "data"), contact_llm=False)
        try:
            ids = {}
            for table in chosen:
                name, data = document(table)
                ids[table] = (services.ingestion.ingest(name, data).id, name)
            for question in asked:
                expected = question.truth(_frame(question.table))
                started = time.perf_counter()
                figure = services.figures.figure(question.text, [ids[question.table]])
                took = (time.perf_counter() - started) * 1000
                # A figure said as unsure (words of the question its reading did not use) is not
                # stated: the user is told to check it. It is right only when stated and right.
                unsure = figure is not None and bool(figure.unread)
                stated = figure is not None and not unsure
                got_right = right(question, figure, expected)
                results.append({"set": question.set, "table": question.table, "kind": KINDS[question.table],
                                "shape": question.shape,
                                "question": question.text, "stated": stated, "unsure": unsure,
                                "right": stated and got_right, "unsure_right": unsure and got_right,
                                "ms": round(took, 2), "expected": _plain(expected), "got": _got(figure),
                                **({"unread": list(figure.unread)} if unsure else {})})
                in_scope = [ids[question.table]]
                if prompts_to and not stated:
                    prompts[question.text] = prompt(services, in_scope, question.text)
                if answers and not stated:
                    written = replayed(services, in_scope, completions.get(question.text), model)
                    results[-1]["model"] = {"answered": question.text in completions, "stated": written is not None,
                                            "right": right(question, written, expected), "got": _got(written)}
        finally:
            services.close()
    if prompts_to:
        prompts_to.write_text(json.dumps(prompts, indent=1, ensure_ascii=False), encoding="utf-8")
    report = _report(results, chosen)
    if answers:
        report["with_model"] = _with_model(results, model)
    if as_json:
        print(json.dumps(report, indent=2))
    else:
        _print(report)
    return report


def _plain(value: object) -> object:
    if isinstance(value, dict):
        return {k: round(float(v), 6) for k, v in value.items()}
    if isinstance(value, (list, str)):
        return value
    return round(float(value), 6)  # type: ignore[arg-type]


def _text(figure) -> str | None:
    """The text a figure answers with: its value when that is text, else the label of its one group."""
    if figure.text:
        return str(figure.text)
    if len(figure.groups) == 1:
        return str(figure.groups[0][0])
    return None


def _got(figure) -> object:
    if figure is None:
        return None
    if figure.by is not None:
        return {str(group): value for group, value in figure.groups}
    return figure.text or figure.value


def _share(part: int, whole: int) -> float:
    return round(part / whole, 3) if whole else 0.0


def _split(results: list[dict], key: str) -> dict:
    groups: dict[str, list[dict]] = {}
    for r in results:
        groups.setdefault(r[key], []).append(r)
    return {name: {"questions": len(rows), "right": sum(r["right"] for r in rows),
                   "stated": sum(r["stated"] for r in rows)} for name, rows in sorted(groups.items())}


def _by_set(results: list[dict]) -> dict:
    """Each set of questions on its own (table_questions.py): its shares, and its counts per shape and kind."""
    sets: dict[str, list[dict]] = {}
    for r in results:
        sets.setdefault(r["set"], []).append(r)
    made = {}
    for name, rows in sets.items():
        stated = [r for r in rows if r["stated"]]
        made[name] = {"questions": len(rows), "tables": len({r["table"] for r in rows}),
                      "right": _share(sum(r["right"] for r in rows), len(rows)),
                      "stated": _share(len(stated), len(rows)),
                      "right_of_stated": _share(sum(r["right"] for r in stated), len(stated)),
                      "unsure": _share(sum(r["unsure"] for r in rows), len(rows)),
                      "unsure_right": sum(r["unsure_right"] for r in rows),
                      "by_shape": _split(rows, "shape"), "by_kind": _split(rows, "kind")}
    return made


def _report(results: list[dict], tables: list[str]) -> dict:
    stated = [r for r in results if r["stated"]]
    times = sorted(r["ms"] for r in results)
    return {"tables": len(tables), "questions": len(results),
            "right": _share(sum(r["right"] for r in results), len(results)),
            "stated": _share(len(stated), len(results)),
            "right_of_stated": _share(sum(r["right"] for r in stated), len(stated)),
            "unsure": _share(sum(r["unsure"] for r in results), len(results)),
            "unsure_right": sum(r["unsure_right"] for r in results),
            "ms_p50": round(statistics.median(times), 2) if times else 0.0,
            "ms_p95": round(times[min(len(times) - 1, int(0.95 * len(times)))], 2) if times else 0.0,
            "by_shape": _split(results, "shape"), "by_kind": _split(results, "kind"),
            "wrong": [r for r in results if r["stated"] and not r["right"]],
            "unstated": [r["question"] for r in results if not r["stated"] and not r["unsure"]],
            "unsure_readings": [r for r in results if r["unsure"]],
            "by_set": _by_set(results), "results": results}


def _with_model(results: list[dict], model: str) -> dict:
    """The recorded model's queries, asked only where the reader stated no figure."""
    asked = [r["model"] for r in results if "model" in r]
    stated = [m for m in asked if m["stated"]]
    right_after = sum(r["right"] for r in results) + sum(m["right"] for m in asked)
    stated_after = sum(r["stated"] for r in results) + len(stated)
    return {"model": model, "asked": len(asked), "recorded": sum(m["answered"] for m in asked),
            "stated": len(stated), "right": sum(m["right"] for m in asked),
            "right_of_stated": _share(sum(m["right"] for m in stated), len(stated)),
            "right_with_reader": _share(right_after, len(results)),
            "right_of_stated_with_reader": _share(right_after, stated_after)}


def _print(report: dict) -> None:
    print(f"{report['questions']} questions over {report['tables']} real tables; docchat's reader, no model")
    print(f"right figures {report['right']:.3f}; stated {report['stated']:.3f}; right of stated "
          f"{report['right_of_stated']:.3f}; said as unsure {report['unsure']:.3f} ({report['unsure_right']} of them "
          f"right); {report['ms_p50']:.1f} ms p50, {report['ms_p95']:.1f} ms p95 a question")
    for title, key in (("shape", "by_shape"), ("kind", "by_kind")):
        print(f"{title:<12}{'questions':>10}{'stated':>8}{'right':>7}")
        for name, row in report[key].items():
            print(f"{name:<12}{row['questions']:>10}{row['stated']:>8}{row['right']:>7}")
    for name, row in report["by_set"].items():
        print(f"{name} set: {row['questions']} questions, right {row['right']:.3f}; stated {row['stated']:.3f}; "
              f"right of stated {row['right_of_stated']:.3f}")
    if "with_model" in report:
        m = report["with_model"]
        print(f"with {m['model']}'s recorded queries where the reader stated none: {m['asked']} asked "
              f"({m['recorded']} recorded), {m['stated']} stated, {m['right']} right; reader and model together "
              f"right {m['right_with_reader']:.3f}, right of stated {m['right_of_stated_with_reader']:.3f}")
    for wrong in report["wrong"]:
        print(f"wrong: {wrong['question']} ({wrong['table']}): {wrong['got']}, not {wrong['expected']}")

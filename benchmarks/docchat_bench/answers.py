"""`docchat bench answers`: what the answer the user reads says, docchat's way against today's, in
the same run (issue 54).

A library written for this bench (not the one the thresholds were tuned on) goes through the real
services in a temporary folder: a workbook of a haulier's fuel and repairs, with subtotal and
total rows, and two policies full of numbers (travel expenses, workshop safety). Each question is
asked twice, stateless:

- today's path: the model writes the whole answer in its own words (`form=free`), given the
  figure docchat computed first among its passages, as every answer was before docchat stated
  its figures;
- docchat's path: as docchat chooses (a computed figure stated in docchat's words; otherwise the
  form the citation gate chooses for the served model).

Figures, per path:
- table questions: the share of answers whose text states the computed figure (as a number, any
  separators), the share whose model-written words state a number that contradicts it (any
  number but the figure and the question's own: "The Skien depot used 12775 litres", the
  sheet's grand total, over a computed 3,904), and the share stating a number the number check
  finds in no passage, figure or question (docchat.grounding.numbers);
- fresh questions on the policies: the share of answers with a sentence the check flags (a
  citation not borne out, or a number not in the sources), on a fresh install, where the
  citation gate learns the model unseen from answers it writes beside those the user reads;
- the fresh questions asked again once the citation gate of the run's new data dir has learned
  the model from its first answers: the share flagged then;
- the number check's time per answer, p95.

`--model scripted` answers at once with numbers no source holds ("It comes to 41,017 in all."), a
stand-in for a model that gets figures wrong: what docchat's path keeps from it. `--model served`
asks the LLM server docchat is set up for (`make run`'s).
"""

from __future__ import annotations

import io
import json
import re
import statistics
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

# (depot, vehicle, litres) of the fuel sheet; each depot's rows are followed by its subtotal.
FUEL = [("Drammen", "Truck 14", 2_410), ("Drammen", "Truck 22", 1_985), ("Drammen", "Van 3", 612),
        ("Hamar", "Truck 9", 3_120), ("Hamar", "Van 8", 744), ("Skien", "Truck 31", 2_876),
        ("Skien", "Van 11", 530), ("Skien", "Van 12", 498)]
# (vehicle, part, cost in NOK) of the repairs sheet.
REPAIRS = [("Truck 14", "Brake pads", 4_350.0), ("Truck 22", "Clutch", 18_900.0), ("Van 3", "Tyres", 6_240.0),
           ("Truck 9", "Brake pads", 4_120.0), ("Truck 31", "Gearbox", 31_500.0), ("Van 11", "Tyres", 5_980.0)]
TRAVEL = """# Travel expenses policy

## Meals
Staff on a trip of more than 12 hours may claim a meal allowance of NOK 420 a day.
Breakfast included in a hotel rate reduces the allowance by NOK 85.

## Mileage
A private car used for work is paid at NOK 4.90 a kilometre, up to 9,000 kilometres a year.

## Claims
Claims are made within 30 days of the trip's end, with receipts for anything over NOK 250.
Claims approved by the 20th of a month are paid with that month's salary.
"""
SAFETY = """# Workshop safety rules

## Lifting
No one lifts more than 25 kg alone; a load over 25 kg takes two people or the hoist.
The hoist is inspected every 6 months and carries at most 2,000 kg.

## Hearing
Ear defenders are worn wherever the noise passes 85 dB, which includes the tyre bay.

## First aid
Each shift has at least 2 trained first aiders, and the first-aid kit is checked every Monday.
"""


@dataclass(frozen=True)
class Question:
    text: str
    figure: float | None = None  # the figure a table question asks, None for a question on the policies


def _litres(where) -> float:
    return float(sum(litres for depot, vehicle, litres in FUEL if where(depot, vehicle)))


QUESTIONS = [
    Question("How many litres of fuel did the Skien depot use in total?", _litres(lambda d, v: d == "Skien")),
    Question("What is the total of litres used by Drammen?", _litres(lambda d, v: d == "Drammen")),
    Question("How many litres of fuel were used in total?", _litres(lambda d, v: True)),
    Question("What is the highest number of litres used by one vehicle?", max(float(row[2]) for row in FUEL)),
    Question("What is the average cost of a repair?", statistics.mean(row[2] for row in REPAIRS)),
    Question("What is the total cost of repairs for brake pads?",
             sum(row[2] for row in REPAIRS if row[1] == "Brake pads")),
    Question("How many repairs cost more than 6000?", float(sum(1 for row in REPAIRS if row[2] > 6_000))),
    Question("What is the lowest cost of a repair?", min(row[2] for row in REPAIRS)),
    Question("How much is the meal allowance per day?"),
    Question("How far can I drive my own car for work before the mileage rate stops?"),
    Question("By when must I send in a travel claim?"),
    Question("Which claims need receipts?"),
    Question("How much weight may one person lift alone?"),
    Question("How often is the hoist inspected?"),
    Question("Where must ear defenders be worn?"),
    Question("How many first aiders must a shift have?"),
    Question("When is the first-aid kit checked?"),
    Question("How much does breakfast at the hotel take off the meal allowance?"),
]
PATHS = {"today (the model's words)": "free", "docchat": None}
SCRIPTED_ANSWER = "It comes to 41,017 in all, as of 2019 [1]."


def workbook() -> bytes:
    from openpyxl import Workbook

    book = Workbook()
    fuel = book.active
    fuel.title = "Fuel"
    fuel.append(["Depot", "Vehicle", "Litres"])
    for depot in dict.fromkeys(row[0] for row in FUEL):
        rows = [row for row in FUEL if row[0] == depot]
        for row in rows:
            fuel.append(list(row))
        fuel.append([f"{depot} subtotal", "", sum(row[2] for row in rows)])
    fuel.append(["Total", "", sum(row[2] for row in FUEL)])
    repairs = book.create_sheet("Repairs")
    repairs.append(["Vehicle", "Part", "Cost"])
    for row in REPAIRS:
        repairs.append(list(row))
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def library() -> dict[str, bytes]:
    return {"fleet-ledger.xlsx": workbook(), "travel-expenses.md": TRAVEL.encode(),
            "workshop-safety.md": SAFETY.encode()}


@dataclass(frozen=True)
class Asked:
    question: Question
    path: str
    answer: str
    form: str | None
    computed: float | None  # the figure docchat computed (None: no table plan)
    flagged: bool  # a sentence the citation check flags, or a number not in the sources
    not_found: tuple[str, ...]  # the numbers not in the sources
    seconds: float
    check_ms: float  # the number check's own time on this answer
    # Numbers the model's words state that are neither the computed figure nor the question's.
    other_numbers: tuple[str, ...] = ()


class _WrongNumbers:
    """An LLM that answers at once with numbers no source holds (the scripted stand-in)."""

    def __init__(self) -> None:
        from docchat_bench.api import InstantGateway

        self._instant = InstantGateway()

    def __getattr__(self, name: str):
        return getattr(self._instant, name)

    def stream(self, messages, **how):
        from docchat.services.documents_only import Reply

        return Reply(SCRIPTED_ANSWER, model="scripted")


@contextmanager
def _services(served: bool) -> Iterator:
    from docchat.bootstrap import build_services
    from docchat.config import Settings

    with tempfile.TemporaryDirectory(prefix="docchat-bench-answers-") as folder:
        settings = Settings(data_dir=Path(folder) / "data", context_programs=False)
        if served:
            from docchat.llm.server_key import llm_key

            # The server's key is in the data dir it was started for, not in this temporary one.
            services = build_services(settings.model_copy(update={"llm_api_key": llm_key(Settings())()}))
        else:
            services = build_services(settings, gateway=_WrongNumbers(), contact_llm=False)
        try:
            for name, data in library().items():
                services.ingestion.ingest(name, data)
            yield services
        finally:
            services.close()


def _ask(services, question: Question, path: str, form: str | None) -> Asked:
    from docchat.domain import AnswerForm
    from docchat.domain.stated import figures_of, stated_text
    from docchat.grounding.numbers import check_numbers

    started = time.perf_counter()
    turn = services.stateless.answer([], question.text, form=AnswerForm(form) if form else None)
    text = turn.text()
    seconds = time.perf_counter() - started
    # What the citation gate has the model write unseen beside a quoted answer, to learn it, is
    # done before the next question, as it is while a user reads the answer.
    services.chat.wait_for_background(300)
    facts = turn.answer.facts
    grounding = facts.grounding
    models = text.removeprefix(stated_text(facts.table)).lstrip("\n") if facts.table is not None else text
    if form is not None:
        # Today's answer is the model's words alone: docchat's statement above them is new. The
        # model is sent the same prompt as before (the figure first among its passages).
        text = models
    timed = time.perf_counter()
    numbers = check_numbers(text, sources=[c.text for c in facts.citations], figures=figures_of(facts.table),
                            question=question.text)
    check_ms = (time.perf_counter() - timed) * 1000
    if form is None and grounding is not None and grounding.numbers is not None:
        numbers = grounding.numbers  # as the user reads it: the model's words checked, not docchat's
    not_found = tuple(n.written for n in numbers.not_found)
    flagged = bool(not_found) or (grounding is not None and bool(grounding.flagged))
    computed = facts.table.value if facts.table is not None else None
    return Asked(question, path, text, facts.form.value if facts.form else None, computed, flagged, not_found,
                 seconds, check_ms, others(models, computed, question.text))


_NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?")


def states(text: str, figure: float | None) -> bool:
    """Whether the text states the figure, written with or without separators, rounded to the
    decimals it gives (5,479.57 for 5479.5714; 9492 or 9,492)."""
    return figure is not None and any(_is(written, figure) for written in _NUMBER.findall(text))


def others(text: str, figure: float | None, question: str) -> tuple[str, ...]:
    """The numbers `text` states that are not `figure` and not in the question: what contradicts
    a computed figure ("The Skien depot used 12775 litres" over a computed 3,904)."""
    if figure is None:
        return ()
    asked = {float(n.replace(",", "")) for n in _NUMBER.findall(question)}
    return tuple(written for written in _NUMBER.findall(text)
                 if not _is(written, figure) and float(written.replace(",", "")) not in asked)


def _is(written: str, figure: float) -> bool:
    plain = written.replace(",", "")
    decimals = len(plain.split(".")[1]) if "." in plain else 0
    return round(figure, decimals) == float(plain)


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def _figures(asked: list[Asked]) -> dict:
    by_path: dict[str, dict] = {}
    for path in PATHS:
        mine = [a for a in asked if a.path == path]
        tables = [a for a in mine if a.question.figure is not None]
        computed = [a for a in tables if a.computed is not None]
        fresh = [a for a in mine if a.question.figure is None]
        by_path[path] = {
            "table_questions": len(tables),
            "computed_right": _mean([float(a.computed is not None and abs(a.computed - a.question.figure) < 0.005)
                                     for a in tables]),
            "figure_in_text": _mean([float(states(a.answer, a.computed)) for a in computed]),
            "contradicting_number": _mean([float(bool(a.other_numbers)) for a in computed]),
            "number_not_in_sources": _mean([float(bool(a.not_found)) for a in computed]),
            "fresh_questions": len(fresh),
            "flagged": _mean([float(a.flagged) for a in fresh]),
            "forms": {form: sum(1 for a in mine if a.form == form) for form in dict.fromkeys(a.form for a in mine)},
            "seconds_p50": round(statistics.median(a.seconds for a in mine), 2),
        }
    checks = sorted(a.check_ms for a in asked)
    return {"paths": by_path, "number_check_ms_p95": round(checks[int(0.95 * (len(checks) - 1))], 2)}


def run_answers_bench(*, served: bool = False, as_json: bool = False, questions: int | None = None) -> dict:
    asked_of = QUESTIONS if questions is None else QUESTIONS[:questions // 2] + QUESTIONS[-(questions - questions // 2):]
    with _services(served) as services:
        asked = [_ask(services, question, path, form) for path, form in PATHS.items() for question in asked_of]
        # The fresh questions again: the citation gate of this new data dir has learned the model
        # from its first answers (issue 39), and answers keep the form it chose from then on.
        again = [_ask(services, question, "docchat", None) for question in asked_of if question.figure is None]
    report = {"model": "served" if served else "scripted", "questions": len(asked_of), **_figures(asked),
              "flagged_once_learned": _mean([float(a.flagged) for a in again]),
              "forms_once_learned": {form: sum(1 for a in again if a.form == form)
                                     for form in dict.fromkeys(a.form for a in again)},
              "answers": [{"question": a.question.text, "path": a.path, "form": a.form, "answer": a.answer,
                           "computed": a.computed, "not_found": list(a.not_found), "flagged": a.flagged,
                           "other_numbers": list(a.other_numbers)}
                          for a in asked]}
    print(json.dumps(report, indent=2, ensure_ascii=False) if as_json else _table(report))
    return report


def _table(report: dict) -> str:
    rows = [("table: docchat computed the right figure", "computed_right"),
            ("table: the computed figure in the answer's text", "figure_in_text"),
            ("table: a number contradicting it (another number stated)", "contradicting_number"),
            ("table: a number not in the sources", "number_not_in_sources"),
            ("fresh questions: an answer with a flagged sentence", "flagged"),
            ("seconds per answer, p50", "seconds_p50")]
    paths = list(report["paths"])
    lines = [f"Answers over the {report['model']} model, {report['questions']} questions",
             "| | " + " | ".join(paths) + " |", "|---" * (len(paths) + 1) + "|"]
    for name, key in rows:
        lines.append(f"| {name} | " + " | ".join(str(report["paths"][p][key]) for p in paths) + " |")
    lines.append(f"fresh questions asked again, once the gate has learned the model: flagged "
                 f"{report['flagged_once_learned']} ({report['forms_once_learned']})")
    lines.append(f"number check per answer, p95: {report['number_check_ms_p95']} ms")
    return "\n".join(lines)

"""`docchat bench questions`: questions one passage cannot answer, docchat's plan against today's
lookup, in the same run.

A generated library goes through the real services (SQLite, MiniLM, Qdrant Edge, Tantivy, in a
temporary folder): twelve short supplier contracts, two versions of a lease, and a stock sheet
with subtotal and total rows, too much to go into the prompt whole on an 8,192-token window.
Each question is asked twice, stateless: as a lookup (`plan=lookup`, the path every question took
before plans) and as docchat chooses.

- The collection ("Which of my supplier contracts carry a penalty?"): the share of the documents
  holding the answer whose passages the model was given, and (a served model) those it cited.
- Comparisons ("Compare the rent in the 2024 lease and the 2025 lease"): the share of questions
  with passages of every side given, the share of the passages given that come from the sides
  compared, and (a served model) the share of answers citing every side.
- Tables ("How many pallets are stored in Oslo in total?"): the share of questions whose exact
  figure the model was given (stated in a passage), and (a served model) that its answer states.
- Lookups near a sheet ("How many days' notice does the Acme supplier contract ask for?", where a
  sheet has a `Days` column and an Acme row): the share whose contract the model was given.
- For every question, whether docchat chose the plan its kind calls for.

`--model scripted` (default) answers at once with the same words whatever it is given, so the
figures are the machinery's: what reached the model. `--model served` asks the LLM server docchat
is set up for (`make run`'s), whose answers say what a model does with what it was given. A
served run ends by asking the collection questions again: the citation gate of the run's fresh
data dir learns the model from its first answers, and the second asking shows the form the
answers keep from then on.
"""

from __future__ import annotations

import io
import json
import re
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from docchat.domain.approach import Way

COLLECTION, COMPARE, TABLE, LOOKUP = Way.COLLECTION, Way.COMPARE, Way.TABLE, Way.LOOKUP
KINDS = (COLLECTION, COMPARE, TABLE, LOOKUP)

# (name, city, renewal date, notice days, penalty or None)
SUPPLIERS = [
    ("acme", "Oslo", "1 March 2026", 30, "a penalty of 2% of the monthly invoice for each late delivery"),
    ("borealis", "Bergen", "15 April 2026", 60, None),
    ("cobalt", "Trondheim", "30 June 2026", 90, "a penalty of EUR 500 for each day a delivery is late"),
    ("dunmore", "Oslo", "1 September 2026", 30, None),
    ("elvira", "Stavanger", "31 December 2026", 45, "a penalty of 5% of the order value for a missed delivery"),
    ("fjordline", "Tromsø", "1 January 2027", 60, None),
    ("granite", "Oslo", "28 February 2027", 90, None),
    ("halden", "Drammen", "1 May 2027", 30, "a penalty of NOK 10,000 for each week of delay"),
    ("isberg", "Bodø", "15 July 2027", 60, None),
    ("jarl", "Kristiansand", "1 October 2027", 45, None),
    ("kvikk", "Ålesund", "30 November 2027", 30, "a penalty of 1% of the year's fees for each late month"),
    ("lindholm", "Molde", "31 March 2028", 90, None),
]
# The clauses every contract shares. A contract is two long sections, as the pages of a PDF are:
# chunks of a couple of hundred tokens, so that the twelve do not fit the prompt whole.
DELIVERY = ("The Supplier delivers the goods to the Buyer's warehouse in sound packaging, with a delivery note "
            "naming each item, its quantity and the order it belongs to. Goods that arrive damaged are returned at "
            "the Supplier's cost and replaced within ten working days. The Buyer inspects each delivery within five "
            "working days and reports any shortfall or defect in writing; goods not reported within that time are "
            "taken as accepted.")
GENERAL = ("The Supplier invoices each delivery once it is accepted, and the Buyer pays within thirty days of the "
           "invoice; late payments carry interest at the statutory rate. The goods meet the specification agreed "
           "for each order and the standards of the trade, and the Supplier keeps records of its quality checks for "
           "two years. The Supplier insures the goods until they are delivered and holds product liability "
           "insurance of at least NOK 10 million.")
CLOSING = ("Each party keeps the other's prices, volumes and plans confidential during the agreement and for three "
           "years after it ends, except as the law requires. The parties first try to settle a dispute between "
           "their managers within thirty days; failing that, the courts of Oslo decide it under Norwegian law.")


# Long schedules some contracts add: they speak of renewal, notice and late delivery at length
# without the facts asked for, and crowd a lookup's passages as a verbose document does.
PRICE_REVIEW = ("Before each renewal of this supply contract the parties review the prices of the Supplier for "
                "the coming year. The Supplier sends its proposed prices at least two months before the renewal, "
                "with the changes in its costs of materials, energy and transport that justify them. The Buyer "
                "may accept them, propose other prices, or give notice that it will not renew.\n\n"
                "If the parties have not agreed the prices of the renewed contract by the renewal, the prices of "
                "the year before apply until they agree, and any difference is settled on the next invoice. "
                "Neither party may use the review to change other terms of the supply contract: a change to the "
                "notice period, the renewal or the term needs a written amendment signed by both.\n\n"
                "The Supplier may ask for an extra review in the year when the price of a material it uses "
                "rises by more than fifteen per cent, and the Buyer answers such a request within a month. A "
                "price agreed in an extra review applies from the first delivery after it is agreed.")
SERVICE_LEVELS = ("The Supplier delivers at least ninety-eight per cent of the order lines on the agreed day. A "
                  "delivery later than agreed is a late delivery, and a delivery of fewer goods than ordered is a "
                  "short delivery. The Supplier tells the Buyer of an expected late delivery as soon as it knows "
                  "of it, and proposes a new date.\n\n"
                  "The parties review late and short deliveries each quarter from the delivery notes. Where late "
                  "deliveries pass two per cent of the order lines in a quarter, the Supplier writes a plan to "
                  "improve its deliveries, and the parties follow it at their next meetings; a late delivery "
                  "caused by the Buyer's own late order does not count.\n\n"
                  "A late delivery of goods the Buyer needs at once may be bought elsewhere, and the Supplier then "
                  "pays the difference in price, if any. Repeated late deliveries over three quarters allow the "
                  "Buyer to end the supply contract on a month's notice.")


def contract(name: str, city: str, renewal: str, notice: int, penalty: str | None, *, reviews: bool) -> str:
    late = (f"If the Supplier delivers late, the Buyer may charge {penalty}." if penalty else
            "Late deliveries are discussed at the next quarterly review; no sum is charged for them.")
    text = (f"# Supply agreement with {name.title()} AS\n\n## Agreement\n\n{name.title()} AS of {city} (the "
            f"Supplier) supplies packaging materials to Nordhavn Logistics (the Buyer). This agreement renews on "
            f"{renewal} for a further year unless either party gives {notice} days' written notice before that "
            f"date.\n\n{DELIVERY}\n\n## General terms\n\n{GENERAL}\n\n{late}\n\n{CLOSING}\n")
    if reviews:
        text += f"\n## Schedule 1: price review\n\n{PRICE_REVIEW}\n"
    if penalty is None:
        text += f"\n## Schedule 2: service levels\n\n{SERVICE_LEVELS}\n"
    return text


LEASE = ("# Lease of 4 Quay Street, {year}\n\n## Terms\n\nThe tenant pays a rent of {rent}. {pets} Either party may "
         "end this lease by giving {notice} written notice.\n\nThe tenant keeps the inside of the flat clean and in "
         "good repair and reports any damp or leak to the landlord within a week; the landlord repairs the roof, "
         "the windows, the boiler and the wiring. The tenant returns every key at the end of the lease; a lost key "
         "is replaced at the tenant's cost, and the locks are changed if a key to the front door is lost. The "
         "tenant may not sublet the flat or any room in it without the landlord's written consent.\n\n## House "
         "rules\n\nRubbish goes in the bins in the yard on the evening before collection. Bicycles are kept in "
         "the shed, not in the hall. Quiet hours are from eleven at night to seven in the morning. The landlord "
         "may enter the flat to inspect or repair it on twenty-four hours' notice, or at once in an emergency.\n")
LEASES = {
    "lease-2024.md": LEASE.format(year=2024, rent="GBP 1,200 every month, on the first day of the month",
                                  pets="The tenant may keep one cat.", notice="two months'"),
    "lease-2025.md": LEASE.format(year=2025, rent="GBP 3,900 every quarter, on the first day of the quarter",
                                  pets="No pets may be kept in the flat.", notice="three months'"),
}
# The stock sheet: (location, item, pallets), a subtotal after each location, a grand total at the end.
STOCK = [("Oslo", "Cardboard boxes", 120), ("Oslo", "Bubble wrap", 45), ("Oslo", "Pallet wrap", 80),
         ("Bergen", "Cardboard boxes", 60), ("Bergen", "Tape", 25),
         ("Tromsø", "Cardboard boxes", 40), ("Tromsø", "Bubble wrap", 15), ("Tromsø", "Tape", 10)]
# A second sheet, (supplier, item, days): its `Days` and its suppliers' names are words that
# questions about the contracts use too, which no figure of it answers.
LEAD_TIMES = [("Acme", "Cardboard boxes", 5), ("Acme", "Tape", 3), ("Cobalt", "Bubble wrap", 12),
              ("Halden", "Pallet wrap", 8), ("Elvira", "Cardboard boxes", 6)]


def inventory() -> bytes:
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.title = "Stock"
    sheet.append(["Location", "Item", "Pallets"])
    for location in dict.fromkeys(row[0] for row in STOCK):
        rows = [row for row in STOCK if row[0] == location]
        for row in rows:
            sheet.append(list(row))
        sheet.append([f"{location} subtotal", "", sum(row[2] for row in rows)])
    sheet.append(["Grand total", "", sum(row[2] for row in STOCK)])
    leads = book.create_sheet("Lead times")
    leads.append(["Supplier", "Item", "Days"])
    for row in LEAD_TIMES:
        leads.append(list(row))
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def library() -> dict[str, bytes]:
    files = {f"supplier-contract-{name}.md": contract(name, *rest, reviews=n % 3 == 0).encode()
             for n, (name, *rest) in enumerate(SUPPLIERS)}
    files.update({name: text.encode() for name, text in LEASES.items()})
    files["harbour-inventory.xlsx"] = inventory()
    return files


CONTRACTS = tuple(f"supplier-contract-{name}.md" for name, *_ in SUPPLIERS)
WITH_PENALTY = tuple(f"supplier-contract-{name}.md" for name, *_, penalty in SUPPLIERS if penalty)
IN_OSLO = tuple(f"supplier-contract-{name}.md" for name, city, *_ in SUPPLIERS if city == "Oslo")
BOTH_LEASES = ("lease-2024.md", "lease-2025.md")


@dataclass(frozen=True)
class Question:
    text: str
    kind: Way
    # The documents that hold the answer: all of them for the collection; each side for a comparison.
    documents: tuple[str, ...] = ()
    figure: str | None = None  # a table's exact answer, as an answer would write it (several: space-separated)


QUESTIONS = [
    Question("List the renewal date of every supplier contract.", COLLECTION, CONTRACTS),
    Question("Which of my supplier contracts carry a penalty for late delivery?", COLLECTION, WITH_PENALTY),
    Question("What notice period does each supplier contract ask for?", COLLECTION, CONTRACTS),
    Question("Which of these contracts are with suppliers in Oslo?", COLLECTION, IN_OSLO),
    Question("Summarise all the supplier contracts.", COLLECTION, CONTRACTS),
    Question("Compare the rent in the 2024 lease and the 2025 lease.", COMPARE, BOTH_LEASES),
    Question("What changed about pets between lease 2024 and lease 2025?", COMPARE, BOTH_LEASES),
    Question("How does the notice period differ in the 2025 lease from the 2024 lease?", COMPARE, BOTH_LEASES),
    Question("Compare the late delivery terms of the Acme supplier contract and the Borealis supplier contract.",
             COMPARE, ("supplier-contract-acme.md", "supplier-contract-borealis.md")),
    Question("How does the Cobalt supplier contract differ from the Halden supplier contract on renewal?",
             COMPARE, ("supplier-contract-cobalt.md", "supplier-contract-halden.md")),
    Question("How many pallets are stored in Oslo in total?", TABLE, ("harbour-inventory.xlsx",),
             str(sum(row[2] for row in STOCK if row[0] == "Oslo"))),
    Question("How many pallets of cardboard boxes are there across all locations?", TABLE,
             ("harbour-inventory.xlsx",), str(sum(row[2] for row in STOCK if row[1] == "Cardboard boxes"))),
    Question("What is the total number of pallets in stock?", TABLE, ("harbour-inventory.xlsx",),
             str(sum(row[2] for row in STOCK))),
    Question("How many pallets are stored per location?", TABLE, ("harbour-inventory.xlsx",),
             " ".join(str(sum(row[2] for row in STOCK if row[0] == place)) for place in dict.fromkeys(r[0] for r in STOCK))),
    Question("What is the total of pallets over the items stocked with fewer than 50 pallets?", TABLE,
             ("harbour-inventory.xlsx",), str(sum(row[2] for row in STOCK if row[2] < 50))),
    Question("What is the average lead time in days for cardboard boxes?", TABLE, ("harbour-inventory.xlsx",),
             str(sum(days := [row[2] for row in LEAD_TIMES if row[1] == "Cardboard boxes"]) / len(days))),
    # Figures a sheet could compute, asked of a contract: "Days" where Supplier is Acme adds up lead times.
    Question("How many days' notice does the Acme supplier contract ask for before it renews?", LOOKUP,
             ("supplier-contract-acme.md",)),
    Question("How many days does the Buyer have to report a damaged delivery from Cobalt?", LOOKUP,
             ("supplier-contract-cobalt.md",)),
]
PATHS = {"lookup (today)": Way.LOOKUP, "docchat": None}
# The collection is asked again in a window this small (llama.cpp's and Ollama's usual default):
# the scripted model's only, as a served model's window is its server's.
SMALL_WINDOW = 4_096


@dataclass(frozen=True)
class Asked:
    question: Question
    path: str
    plan: str | None
    given: frozenset[str]
    cited: frozenset[str]
    passages: tuple[str, ...]  # the document of each passage given, in order
    given_text: str  # what those passages say
    answer: str
    seconds: float
    model: str | None
    mode: str | None  # how the documents reached the model: "documents" (whole) or "passages"
    coverage: dict | None
    form: str | None = None  # how the answer was written: free, constrained (the citation pattern) or quoted


@contextmanager
def _services(served: bool) -> Iterator:
    from docchat.bootstrap import build_services
    from docchat.config import Settings

    with tempfile.TemporaryDirectory(prefix="docchat-bench-questions-") as folder:
        settings = Settings(data_dir=Path(folder) / "data", context_programs=False)
        if served:
            from docchat.llm.server_key import llm_key

            # The server's key is in the data dir it was started for, not in this temporary one.
            gateway = None
            services = build_services(settings.model_copy(update={"llm_api_key": llm_key(Settings())()}))
        else:
            from docchat_bench.api import InstantGateway

            gateway = InstantGateway()
            services = build_services(settings, gateway=gateway, contact_llm=False)
        try:
            for name, data in library().items():
                services.ingestion.ingest(name, data)
            yield services, gateway
        finally:
            services.close()


def _ask(services, question: Question, path: str, plan: Way | None) -> Asked:
    started = time.perf_counter()
    turn = services.stateless.answer([], question.text, plan=plan)
    text = turn.text()
    facts = turn.answer.facts
    return Asked(question, path, facts.approach.way.value if facts.approach else None,
                 frozenset(c.document for c in facts.citations), frozenset(c.document for c in turn.answer.cited),
                 tuple(c.document for c in facts.citations), "\n".join(c.text for c in facts.citations),
                 text, time.perf_counter() - started, facts.model, turn.budget.mode if turn.budget else None,
                 facts.coverage.as_dict() if facts.coverage else None, facts.form.value if facts.form else None)


def _share(found: frozenset[str], wanted: tuple[str, ...]) -> float:
    return len(found & set(wanted)) / len(wanted)


def _holds_figure(text: str, figure: str | None) -> bool:
    """Whether the text states the figure (each of its figures, space-separated, for one per value
    of a column) as a number of its own ("165", "1,650"; not "1650" for 165)."""
    plain = text.replace(",", "")
    return figure is not None and all(re.search(rf"(?<![\d.,]){re.escape(part)}(?![\d,]|\.\d)", plain)
                                      for part in figure.split())


def _on_sides(asked: Asked) -> float:
    """The share of the passages given that come from the documents compared."""
    return sum(document in asked.question.documents for document in asked.passages) / max(1, len(asked.passages))


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def _figures(asked: list[Asked], served: bool) -> dict:
    """Per path, per kind: what reached the model, what it cited, whether docchat chose the plan."""
    report = {}
    for path in PATHS:
        mine = [a for a in asked if a.path == path]
        of = {kind: [a for a in mine if a.question.kind is kind] for kind in KINDS}
        report[path] = {
            "collection_documents_given": _mean([_share(a.given, a.question.documents) for a in of[COLLECTION]]),
            "collection_documents_cited": _mean([_share(a.cited, a.question.documents) for a in of[COLLECTION]])
            if served else None,
            "compare_every_side_given": _mean([float(_share(a.given, a.question.documents) == 1) for a in of[COMPARE]]),
            "compare_passages_on_its_sides": _mean([_on_sides(a) for a in of[COMPARE]]),
            "compare_every_side_cited": _mean([float(_share(a.cited, a.question.documents) == 1) for a in of[COMPARE]])
            if served else None,
            "table_figure_given": _mean([float(_holds_figure(a.given_text, a.question.figure)) for a in of[TABLE]]),
            "table_exact_figure": _mean([float(_holds_figure(a.answer, a.question.figure)) for a in of[TABLE]])
            if served else None,
            "lookup_document_given": _mean([_share(a.given, a.question.documents) for a in of[LOOKUP]]),
            "plan_as_its_kind": _mean([float(a.plan == a.question.kind.value) for a in mine]),
            "documents_whole": _mean([float(a.mode == "documents") for a in mine]),
            "seconds_per_answer": _mean([a.seconds for a in mine]),
        }
    return report


def run_questions_bench(*, served: bool = False, as_json: bool = False) -> dict:
    with _services(served) as (services, gateway):
        asked = [_ask(services, question, path, plan) for question in QUESTIONS for path, plan in PATHS.items()]
        small = _in_a_small_window(services, gateway) if gateway is not None else None
        learned = _once_learned(services) if served else None
    report = {"model": asked[0].model if served else "scripted", "questions": {kind.value: sum(q.kind is kind for q in QUESTIONS)
                                            for kind in KINDS},
              "documents": len(library()), **_figures(asked, served), "small_window": small, "once_learned": learned,
              "answers": [{"question": a.question.text, "path": a.path, "plan": a.plan,
                           "given": sorted(a.given), "cited": sorted(a.cited), "coverage": a.coverage,
                           "form": a.form, "seconds": round(a.seconds, 2)}
                          for a in asked]}
    print(json.dumps(report, indent=2) if as_json else _table(report))
    return report


def _collection_asked(services) -> list[Asked]:
    return [_ask(services, question, path, plan) for question in QUESTIONS if question.kind is COLLECTION
            for path, plan in PATHS.items()]


def _once_learned(services) -> dict:
    """The collection questions again at the end of the run. A fresh install's citation gate
    learns the served model from its first answers (the run's first questions); by now it has,
    and each path's answers take the form they keep from then on."""
    asked = _collection_asked(services)
    return {path: {
        "collection_documents_cited": _mean([_share(a.cited, a.question.documents) for a in asked if a.path == path]),
        "forms": sorted({a.form or "none" for a in asked if a.path == path}),
        "seconds_per_answer": _mean([a.seconds for a in asked if a.path == path])} for path in PATHS}


def _in_a_small_window(services, gateway) -> dict:
    """The collection questions again, the model's window SMALL_WINDOW tokens: too small for every
    contract's passages in one prompt, so docchat reads them in rounds."""
    gateway.window = SMALL_WINDOW
    try:
        asked = _collection_asked(services)
    finally:
        gateway.window = type(gateway).window
    return {"window": SMALL_WINDOW, **{path: {
        "collection_documents_given": _mean([_share(a.given, a.question.documents) for a in asked if a.path == path]),
        "rounds": _mean([float((a.coverage or {}).get("rounds", 1)) for a in asked if a.path == path]),
        "seconds_per_answer": _mean([a.seconds for a in asked if a.path == path])} for path in PATHS}}


ROWS = [("collection: share of its documents given", "collection_documents_given"),
        ("collection: share of its documents cited", "collection_documents_cited"),
        ("comparison: every side given", "compare_every_side_given"),
        ("comparison: passages from its sides", "compare_passages_on_its_sides"),
        ("comparison: every side cited", "compare_every_side_cited"),
        ("table: the exact figure given to the model", "table_figure_given"),
        ("table: the exact figure in the answer", "table_exact_figure"),
        ("lookup: the document holding it given", "lookup_document_given"),
        ("plan chosen as the question's kind", "plan_as_its_kind"),
        ("answers given the documents whole", "documents_whole"),
        ("seconds per answer", "seconds_per_answer")]


def _table(report: dict) -> str:
    counts = report["questions"]
    lines = [f"docchat bench questions: {counts['collection']} about the collection, {counts['compare']} comparisons, "
             f"{counts['table']} over a table, {counts['lookup']} lookups near a sheet, on {report['documents']} "
             f"documents; model: {report['model']}",
             f"{'':<44}{'lookup (today)':>16}{'docchat':>10}"]
    for label, key in ROWS:
        cells = [report[path][key] for path in PATHS]
        lines.append(f"{label:<44}" + "".join(f"{'n/a' if cell is None else f'{cell:.3f}':>{width}}"
                                              for cell, width in zip(cells, (16, 10))))
    if small := report.get("small_window"):
        lines.append(f"in a {small['window']:,}-token window:")
        for label, key in (("collection: share of its documents given", "collection_documents_given"),
                           ("rounds a collection question was read in", "rounds")):
            lines.append(f"  {label:<42}" + "".join(f"{small[path][key]:>{width}.3f}"
                                                     for path, width in zip(PATHS, (16, 10))))
    if learned := report.get("once_learned"):
        lines.append(f"{'collection asked again: documents cited':<44}" + "".join(
            f"{learned[path]['collection_documents_cited']:>{width}.3f}" for path, width in zip(PATHS, (16, 10))))
    lines.append("n/a: the scripted model writes the same words whatever it is given (--model served for a real "
                 "model's).")
    return "\n".join(lines)

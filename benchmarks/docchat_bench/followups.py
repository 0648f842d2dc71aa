"""`docchat bench followups`: does a follow-up question find the passage that answers it?

Five generated Markdown documents (a trust agreement, a lease, a loan facility, an employee
handbook, a cookery notebook; one chunk per section) are ingested through the real services
(SQLite, MiniLM, Qdrant local mode, in a temporary folder; no LLM). Scripted dialogs then ask
follow-ups of three kinds: elliptical ("What happens if it falls on a weekend?", "And the
landlord?"), after a comparison of two sections, and self-contained topic switches. Each
follow-up names the sections that answer it.

Three ways to retrieve, each dialog run once per way: the question alone; the question enriched
as the pipeline's fallback did before (`enrich` with the earlier questions, when
`needs_rewrite` fires); and `followup.retrieve_follow_up`, given the earlier questions and as
"cited" passages those its own previous turn retrieved (what the model was given). Recall@k:
a gold section is among the top k passages.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from docchat.context.followup import retrieve_follow_up
from docchat.context.rewrite import needs_rewrite
from docchat.context.terms import salient_terms

TOP_K = 4
RECENT_QUESTIONS = 3  # the pipeline's six recent messages hold three questions

DOCUMENTS = {
    "harbour-trust-agreement.md": {
        "Business Day": "Business Day means a day, other than a Saturday or a Sunday, on which commercial "
        "banks are open for general business in London and in New York.",
        "Determination Date": "The Determination Date is the fifteenth day of March, June, September and "
        "December. On each Determination Date the Calculation Agent fixes the rate of interest for the next "
        "Interest Period from the screen rate published at 11 a.m.",
        "Determination Date adjustment": "If a Determination Date would fall on a day that is not a Business "
        "Day, such as a Saturday, a Sunday or a public holiday, it is brought forward to the preceding Business "
        "Day; the Interest Period it fixes is not shortened.",
        "Payment Date": "Interest on the Notes is paid to the Noteholders on each Payment Date, the "
        "twenty-fifth day of the month after each Determination Date, out of the collections of the Trust.",
        "Payment Date adjustment": "If a Payment Date would fall on a Saturday, a Sunday or a public holiday, "
        "payment is made on the next Business Day, unless that day is in the next month, in which case it is "
        "made on the preceding Business Day. No extra interest accrues for the delay.",
        "Reserve Account": "The Trustee keeps a Reserve Account with the Account Bank, drawn on only when "
        "collections are not enough to pay interest on the Notes in full.",
        "Required Reserve Amount": "The balance of the Reserve Account must be at least the Required Reserve "
        "Amount, two per cent of the principal outstanding on the Notes; any shortfall is topped up first.",
        "Trustee fees": "The Trustee is paid an annual fee of GBP 40,000, in four equal instalments on the "
        "Payment Dates, ahead of any interest on the Notes.",
        "Removal of the Trustee": "The Noteholders may remove the Trustee by an extraordinary resolution, and "
        "the Trustee may retire on three months' written notice once a successor has been appointed.",
        "Governing law": "This Agreement and the Notes are governed by English law, and the courts of England "
        "have exclusive jurisdiction over any dispute.",
    },
    "riverside-lease.md": {
        "Rent": "The annual rent is GBP 62,000, exclusive of VAT, payable quarterly in advance on the usual "
        "quarter days: 25 March, 24 June, 29 September and 25 December.",
        "Rent due on a weekend or holiday": "When a quarter day falls on a Saturday, a Sunday or a bank "
        "holiday, the rent is paid on the next working day and no interest is charged for the delay.",
        "Rent review": "On the fifth anniversary of the term the rent is reviewed upwards only to the open "
        "market rent, agreed between the parties or fixed by an independent surveyor.",
        "Tenant's break option": "The Tenant may end this Lease on the fifth anniversary by giving the "
        "Landlord at least six months' written notice, if the rent has been paid in full.",
        "Landlord's redevelopment break": "The Landlord may end this Lease at any time after the third year "
        "on twelve months' notice if it intends to redevelop the building.",
        "Deposit": "The Tenant pays a rent deposit of six months' rent, held in a separate account and "
        "returned within two months after the end of the term.",
        "Repairs": "The Tenant keeps the inside of the premises in good repair; the Landlord repairs the "
        "roof, the structure and the common parts.",
        "Service charge": "The Tenant pays a fair share of the costs of running the building, estimated each "
        "year and reconciled against audited accounts.",
    },
    "northbank-loan-facility.md": {
        "Repayment Date": "The Borrower repays the Loan in full on the Final Repayment Date, the seventh "
        "anniversary of the first drawdown.",
        "Repayment on a non-Business Day": "A repayment due on a day that is not a Business Day is made on "
        "the next Business Day in the same calendar month, or if none, the preceding Business Day.",
        "Loan Business Day": "In this Facility, a Business Day is a day, other than a Saturday or a Sunday, "
        "when banks are open in London and Frankfurt and the TARGET2 system is running.",
        "Voluntary prepayment": "The Borrower may prepay the whole or part of the Loan on five Business "
        "Days' notice, in amounts of at least EUR 1,000,000.",
        "Prepayment fee": "A prepayment made in the first two years carries a fee of one per cent of the "
        "amount prepaid; later prepayments carry none.",
        "Events of Default": "Non-payment, breach of the financial covenants, insolvency or a material "
        "adverse change is an Event of Default, and the Lender may then demand immediate repayment.",
        "Commitment fee": "A commitment fee of 0.35 per cent a year accrues on the undrawn commitment and is "
        "paid quarterly in arrears.",
    },
    "staff-handbook.md": {
        "Annual leave": "Employees get 25 days of annual leave a year plus public holidays, booked through "
        "the HR portal at least two weeks ahead.",
        "Carrying over leave": "Up to five unused days of annual leave may be carried over to the next year; "
        "they must be taken by the end of March or they are lost.",
        "Sick leave": "Tell your manager by 10 a.m. on the first day of sickness. Sick pay is full pay for "
        "ten days a year; after seven days in a row a fit note from a doctor is needed.",
        "Parental leave": "Parents with a year's service may take up to 18 weeks of unpaid parental leave for "
        "each child, in blocks of a week, before the child turns eighteen.",
        "Compassionate leave": "Up to five days of paid compassionate leave are given on the death of a close "
        "relative, and more by agreement with your manager.",
        "Public holidays": "The office closes on the eight public holidays of England and Wales, and between "
        "Christmas and New Year.",
        "Public holidays on a weekend": "When a public holiday falls on a Saturday or a Sunday, employees get "
        "a substitute day off on the next working day.",
        "Working hours": "Normal hours are 9 a.m. to 5.30 p.m., Monday to Friday, with an hour for lunch; "
        "flexible hours can be agreed with your manager.",
        "Expenses": "Claim travel and subsistence expenses within a month through the HR portal, with "
        "receipts; first-class travel is not refunded.",
    },
    "kitchen-notebook.md": {
        "Roast chicken": "Roast a chicken at 200 degrees for twenty minutes per pound plus twenty minutes, "
        "basting it halfway through.",
        "Resting meat": "Rest roast meat under foil before carving: fifteen minutes for a chicken, twenty "
        "for a joint of lamb or beef, so the juices settle.",
        "Roast lamb": "Stud a leg of lamb with garlic and rosemary and roast it at 180 degrees for an hour "
        "and a quarter for pink meat.",
        "Gravy": "Pour off the fat from the roasting tin, stir in a spoonful of flour, add hot stock and boil "
        "until it thickens. Gravy freezes well for three months.",
        "Bread": "Mix strong flour, yeast, salt and warm water, knead for ten minutes and leave the dough to "
        "rise until doubled.",
        "Storing leftovers": "Cool cooked food within two hours, keep it covered in the fridge and eat it "
        "within three days.",
    },
}

TRUST, LEASE, LOAN, HANDBOOK, KITCHEN = DOCUMENTS


@dataclass(frozen=True)
class FollowUp:
    question: str
    answers: tuple[tuple[str, str], ...]  # (document, section) pairs, any of which answers it
    kind: str  # "elliptical", "after a comparison" or "topic switch"


def _ask(question: str, kind: str, *answers: tuple[str, str]) -> FollowUp:
    return FollowUp(question, answers, kind)


ELLIPTICAL, COMPARISON, SWITCH = "elliptical", "after a comparison", "topic switch"

# (opening question, follow-ups)
DIALOGS: list[tuple[str, list[FollowUp]]] = [
    ("When is the Determination Date?", [
        _ask("What happens if it falls on a weekend?", ELLIPTICAL, (TRUST, "Determination Date adjustment")),
        _ask("Who fixes the rate on that day?", ELLIPTICAL, (TRUST, "Determination Date")),
        _ask("What is the Payment Date?", SWITCH, (TRUST, "Payment Date")),
        _ask("And if it is a public holiday?", ELLIPTICAL, (TRUST, "Payment Date adjustment")),
    ]),
    ("How do the Determination Date and the Payment Date differ?", [
        _ask("What happens if one of them falls on a weekend?", COMPARISON,
             (TRUST, "Determination Date adjustment"), (TRUST, "Payment Date adjustment")),
        _ask("Which one is moved to the preceding Business Day?", COMPARISON,
             (TRUST, "Determination Date adjustment")),
        _ask("How is a Business Day defined?", SWITCH, (TRUST, "Business Day")),
    ]),
    ("When is the rent due under the lease?", [
        _ask("What if that day is a Sunday?", ELLIPTICAL, (LEASE, "Rent due on a weekend or holiday")),
        _ask("Can it go up?", ELLIPTICAL, (LEASE, "Rent review")),
        _ask("How much notice does the tenant need to give to break the lease?", SWITCH,
             (LEASE, "Tenant's break option")),
        _ask("And the landlord?", ELLIPTICAL, (LEASE, "Landlord's redevelopment break")),
    ]),
    ("How many days of annual leave do I get?", [
        _ask("Can I carry them over to next year?", ELLIPTICAL, (HANDBOOK, "Carrying over leave")),
        _ask("What about sick leave?", ELLIPTICAL, (HANDBOOK, "Sick leave")),
        _ask("Do I need a note from a doctor?", ELLIPTICAL, (HANDBOOK, "Sick leave")),
        _ask("What about parental leave?", ELLIPTICAL, (HANDBOOK, "Parental leave")),
        _ask("Is it paid?", ELLIPTICAL, (HANDBOOK, "Parental leave")),
    ]),
    ("What is the difference between compassionate leave and sick leave?", [
        _ask("How many days do I get for each?", COMPARISON,
             (HANDBOOK, "Compassionate leave"), (HANDBOOK, "Sick leave")),
        _ask("And what happens when a public holiday falls on a Sunday?", SWITCH,
             (HANDBOOK, "Public holidays on a weekend")),
        _ask("What are the normal working hours?", SWITCH, (HANDBOOK, "Working hours")),
    ]),
    ("When must the loan be repaid?", [
        _ask("What if it is not a business day?", ELLIPTICAL, (LOAN, "Repayment on a non-Business Day")),
        _ask("Can I repay early?", ELLIPTICAL, (LOAN, "Voluntary prepayment")),
        _ask("Is there a fee for that?", ELLIPTICAL, (LOAN, "Prepayment fee")),
        _ask("What counts as an Event of Default under the facility?", SWITCH, (LOAN, "Events of Default")),
    ]),
    ("When is rent due under the lease, and when is interest paid on the Notes?", [
        _ask("What if those days fall on a weekend?", COMPARISON,
             (LEASE, "Rent due on a weekend or holiday"), (TRUST, "Payment Date adjustment")),
        _ask("What is a Business Day under the trust agreement?", SWITCH, (TRUST, "Business Day")),
        _ask("And under the loan facility?", ELLIPTICAL, (LOAN, "Loan Business Day")),
    ]),
    ("How long does a chicken roast for?", [
        _ask("How long should it rest?", ELLIPTICAL, (KITCHEN, "Resting meat")),
        _ask("What about a leg of lamb?", ELLIPTICAL, (KITCHEN, "Roast lamb")),
        _ask("At what temperature?", ELLIPTICAL, (KITCHEN, "Roast lamb")),
        _ask("How do I make gravy?", SWITCH, (KITCHEN, "Gravy")),
        _ask("Can it be frozen?", ELLIPTICAL, (KITCHEN, "Gravy")),
    ]),
    ("What fees does the Trustee charge?", [
        _ask("When are they paid?", ELLIPTICAL, (TRUST, "Trustee fees")),
        _ask("What is the Reserve Account for?", SWITCH, (TRUST, "Reserve Account")),
        _ask("How much must be kept in it?", ELLIPTICAL, (TRUST, "Required Reserve Amount")),
        _ask("Who can remove the Trustee?", SWITCH, (TRUST, "Removal of the Trustee")),
    ]),
    ("Compare the tenant's break option with the landlord's redevelopment break.", [
        _ask("How much notice does each need?", COMPARISON,
             (LEASE, "Tenant's break option"), (LEASE, "Landlord's redevelopment break")),
        _ask("Who pays for repairs to the roof?", SWITCH, (LEASE, "Repairs")),
        _ask("And the deposit, when is it returned?", SWITCH, (LEASE, "Deposit")),
    ]),
]


def markdown(sections: dict[str, str]) -> bytes:
    return "\n\n".join(f"## {label}\n\n{text}" for label, text in sections.items()).encode()


def _question_alone(retrieve, question: str, recent: list[str], cited: list[str]):
    return retrieve(question)


def enrich(question: str, *, topics: list[str], recent: list[str], limit: int = 6) -> str:
    """The question with the summary's topics and the recent turns' salient terms it does not
    already name appended, at most `limit` of them: the pipeline's fallback before
    history-aware retrieval, kept here as the baseline it is measured against."""
    extra = [t for t in topics if t.lower() not in question.lower()]
    extra += salient_terms(recent, limit=limit, exclude=question + " " + " ".join(extra))
    extra = extra[:limit]
    return f"{question} {' '.join(extra)}".strip() if extra else question


def _enriched(retrieve, question: str, recent: list[str], cited: list[str]):
    return retrieve(enrich(question, topics=[], recent=recent) if needs_rewrite(question) else question)


METHODS = {"question alone": _question_alone, "enriched (fallback)": _enriched,
           "history-aware (RRF)": retrieve_follow_up}


def _run_dialogs(retrieve, method) -> list[tuple[FollowUp, list[tuple[str, str]]]]:
    """Every follow-up with the (document, section) of the passages `method` ranked for it."""
    found = []
    for opening, follow_ups in DIALOGS:
        asked, cited = [opening], [hit.chunk.id for hit in retrieve(opening)]
        for follow_up in follow_ups:
            ranked = method(retrieve, follow_up.question, asked[-RECENT_QUESTIONS:], cited)
            found.append((follow_up, [(hit.document, hit.chunk.label) for hit in ranked]))
            asked.append(follow_up.question)
            cited = [hit.chunk.id for hit in ranked]
    return found


def _recall(found, k: int, kinds: set[str]) -> float:
    scored = [bool(set(follow_up.answers) & set(ranked[:k])) for follow_up, ranked in found if follow_up.kind in kinds]
    return sum(scored) / len(scored)


KINDS = {"all": {ELLIPTICAL, COMPARISON, SWITCH}, "elliptical": {ELLIPTICAL, COMPARISON}, "switch": {SWITCH}}


@contextmanager
def bench_services(prefix: str, documents: dict[str, dict[str, str]] | None = None) -> Iterator:
    """The real services over `documents` (name -> sections; the five documents by default) in a
    temporary folder; no LLM is asked (port 9 refuses at once), and none is needed."""
    from docchat.bootstrap import build_services
    from docchat.config import Settings

    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        settings = Settings(data_dir=Path(tmp), llm_url="http://127.0.0.1:9/v1", context_programs=False)
        services = build_services(settings)
        for name, sections in (DOCUMENTS if documents is None else documents).items():
            services.ingestion.ingest(name, markdown(sections))
        try:
            yield services
        finally:
            services.index.close()


@contextmanager
def bench_library(prefix: str) -> Iterator:
    """The five documents as `retrieve(query)` giving the top TOP_K passages (bench_services)."""
    with bench_services(prefix) as services:
        yield lambda query: services.retrieval.retrieve(query, top_k=TOP_K)


def run_followups_bench(*, as_json: bool = False) -> dict:
    with bench_library("docchat-bench-followups-") as retrieve:
        runs = {name: _run_dialogs(retrieve, method) for name, method in METHODS.items()}
    asked = [follow_up for _, follow_ups in DIALOGS for follow_up in follow_ups]
    counts = {kind: sum(follow_up.kind in kinds for follow_up in asked) for kind, kinds in KINDS.items()}
    result = {method: {f"{kind}_recall_at_{k}": round(_recall(found, k, kinds), 3)
                       for kind, kinds in KINDS.items() for k in (1, 3)}
              for method, found in runs.items()}
    result["follow_ups"] = counts
    if as_json:
        print(json.dumps(result))
        return result
    print(f"{len(DIALOGS)} dialogs, {counts['all']} follow-ups ({counts['elliptical']} elliptical or after a "
          f"comparison, {counts['switch']} topic switches) over {len(DOCUMENTS)} documents; top {TOP_K} passages")
    print(f"{'method':<22}{'recall@1':>10}{'recall@3':>10}{'n':>5}   {'elliptical @1/@3':>17}{'switch @1/@3':>15}")
    for method in METHODS:
        row = result[method]
        print(f"{method:<22}{row['all_recall_at_1']:>10.3f}{row['all_recall_at_3']:>10.3f}{counts['all']:>5}   "
              f"{row['elliptical_recall_at_1']:>8.3f} / {row['elliptical_recall_at_3']:.3f}"
              f"{row['switch_recall_at_1']:>7.3f} / {row['switch_recall_at_3']:.3f}")
    return result

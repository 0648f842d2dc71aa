"""`docchat bench citations`: does the served model cite the passages it was given, in its own
words and under the citation pattern (docchat.context.citing), in the same run.

The follow-up bench's five documents (a trust agreement, a lease, a loan facility, a staff handbook
and a kitchen notebook) go through the real services in a temporary folder. Each of its dialogs is
asked in a stored conversation once per form, the order of the forms turning from one dialog to
the next, and once more with the form chosen by the citation gate ("gate"), as `make run` answers:
its tally starts empty, as on a fresh install, and only the gate's own answers add to it. Every
question has its gold sections (`followups.DIALOGS`, and `OPENINGS` here for the dialogs' first
questions).

Per form, over the answers given passages:
- own marks: the share whose [n] marks name a passage they were given (not attributed by docchat);
- on the gold: of those, the share citing a gold section;
- marks on the gold: of those, the mean share of the passages each cites that are gold sections;
- flagged: the share with a sentence the citation check flagged;
- refusals, time to first token and tokens per second (p50);
- how many answers were written in each form.
"""

from __future__ import annotations

import json
import statistics
from collections import Counter
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from docchat.domain import AnswerForm
from docchat.domain.grounding import REFUSAL

from docchat_bench.followups import DIALOGS, DOCUMENTS, HANDBOOK, KITCHEN, LEASE, LOAN, TRUST, markdown

FORMS = (AnswerForm.FREE, AnswerForm.CONSTRAINED, AnswerForm.QUOTED)
# Each form forced, and None: as the gate chooses.
ASKED: tuple[AnswerForm | None, ...] = (*FORMS, None)
GATE = "gate"
# The gold sections of each dialog's opening question (the follow-ups carry theirs).
OPENINGS: dict[str, tuple[tuple[str, str], ...]] = {
    "When is the Determination Date?": ((TRUST, "Determination Date"),),
    "How do the Determination Date and the Payment Date differ?": ((TRUST, "Determination Date"),
                                                                   (TRUST, "Payment Date")),
    "When is the rent due under the lease?": ((LEASE, "Rent"),),
    "How many days of annual leave do I get?": ((HANDBOOK, "Annual leave"),),
    "What is the difference between compassionate leave and sick leave?": ((HANDBOOK, "Compassionate leave"),
                                                                            (HANDBOOK, "Sick leave")),
    "When must the loan be repaid?": ((LOAN, "Repayment Date"),),
    "When is rent due under the lease, and when is interest paid on the Notes?": ((LEASE, "Rent"),
                                                                                  (TRUST, "Payment Date")),
    "How long does a chicken roast for?": ((KITCHEN, "Roast chicken"),),
    "What fees does the Trustee charge?": ((TRUST, "Trustee fees"),),
    "Compare the tenant's break option with the landlord's redevelopment break.": (
        (LEASE, "Tenant's break option"), (LEASE, "Landlord's redevelopment break")),
}
TARGETS = {"own_marks": 0.90, "on_gold": 0.80, "flagged_at_most": 0.20}


@dataclass(frozen=True)
class Answered:
    form: str  # as asked
    written: str  # as written: a server that takes no pattern answers in the model's own words
    model: str
    question: str
    given: bool  # passages were given (a question the documents do not hold gets none to cite)
    own_marks: bool
    on_gold: bool
    marks_on_gold: float | None  # the share of the passages it cites that are gold sections
    flagged: bool
    refused: bool
    ttft_s: float | None
    tokens_per_s: float | None
    text: str


def run_citations_bench(*, dialogs: int | None = None, served: bool = True, as_json: bool = False) -> dict:
    """`served`: ask the LLM server docchat is set up for; else a stand-in that answers at once
    with the same words (one [1] mark), which times and checks only docchat's own work."""
    asked: list[Answered] = []
    with _services(served) as services:
        for place, (opening, follow_ups) in enumerate(DIALOGS[:dialogs]):
            questions = [(opening, OPENINGS[opening])] + [(f.question, f.answers) for f in follow_ups]
            turned = ASKED[place % len(ASKED):] + ASKED[:place % len(ASKED)]
            for form in turned:
                asked += _dialog(services, questions, form)
    result = {"model": next((a.model for a in asked if a.model and a.written != "quoted"), ""),
              "forms": {_label(form): _figures([a for a in asked if a.form == _label(form)]) for form in ASKED},
              "targets": TARGETS, "answers": [a.__dict__ for a in asked]}
    print(json.dumps(result, indent=1) if as_json else _table(result))
    return result


def _label(form: AnswerForm | None) -> str:
    return form.value if form is not None else GATE


def _dialog(services, questions, form: AnswerForm | None) -> list[Answered]:
    conversation_id, answered = None, []
    for question, gold in questions:
        started = time.perf_counter()
        turn = services.chat.answer(conversation_id, question, form=form)
        first = last = None
        pieces = 0
        for _ in turn:
            last = time.perf_counter()
            first = first or last
            pieces += 1
        conversation_id = turn.conversation_id
        # The answer the gate has the model write unseen, to learn it, is done before the next
        # question, as it is while a user reads the answer.
        services.chat.wait_for_background(300)
        answer = turn.answer
        facts = answer.facts
        grounding = facts.grounding
        given = {c.number for c in facts.citations}
        own = grounding is not None and not grounding.attributed and bool(given & set(grounding.cited))
        cited = [c for c in answer.cited] if own else []
        tokens = (turn.usage or {}).get("completion_tokens") or pieces
        answered.append(Answered(
            form=_label(form), written=(facts.form or AnswerForm.FREE).value, model=facts.model or "",
            question=question, given=bool(given), own_marks=own,
            on_gold=any(_gold(c, gold) for c in cited),
            marks_on_gold=sum(_gold(c, gold) for c in cited) / len(cited) if cited else None,
            flagged=bool(grounding and grounding.flagged), refused=answer.content.strip() == REFUSAL,
            ttft_s=round(first - started, 3) if first else None,
            tokens_per_s=round((tokens - 1) / (last - first), 1) if first and last and last > first else None,
            text=answer.content[:300]))
    return answered


def _gold(cited, gold) -> bool:
    return (cited.document, cited.section or cited.where) in gold or (cited.document, cited.where) in gold


def _figures(rows: list[Answered]) -> dict:
    given = [r for r in rows if r.given]
    own = [r for r in given if r.own_marks]
    ttfts = [r.ttft_s for r in rows if r.ttft_s is not None]
    rates = [r.tokens_per_s for r in rows if r.tokens_per_s is not None]
    return {"answers": len(rows), "written_so": sum(r.written == r.form for r in rows), "given_passages": len(given),
            "own_marks": round(len(own) / len(given), 3) if given else None,
            "on_gold": round(sum(r.on_gold for r in own) / len(own), 3) if own else None,
            "marks_on_gold": round(statistics.mean(r.marks_on_gold for r in own if r.marks_on_gold is not None), 3)
            if own else None,
            "flagged": round(sum(r.flagged for r in given) / len(given), 3) if given else None,
            "refusals": sum(r.refused for r in rows),
            "ttft_p50_s": round(statistics.median(ttfts), 2) if ttfts else None,
            "tokens_per_s_p50": round(statistics.median(rates), 1) if rates else None,
            "written": dict(Counter(r.written for r in rows))}


def _table(result: dict) -> str:
    lines = [f"citations of {result['model']}: {sum(f['answers'] for f in result['forms'].values())} answers",
             f"{'form':<12} {'own marks':>9} {'on gold':>8} {'marks on gold':>14} {'flagged':>8} {'refused':>8} "
             f"{'TTFT p50':>9} {'tok/s':>6}"]
    for form, f in result["forms"].items():
        lines.append(f"{form:<12} {_share(f['own_marks']):>9} {_share(f['on_gold']):>8} {_share(f['marks_on_gold']):>14} "
                     f"{_share(f['flagged']):>8} "
                     f"{f['refusals']:>8} {f['ttft_p50_s'] or 0:>8.2f}s {f['tokens_per_s_p50'] or 0:>6.1f}")
    lines.append("targets: own marks >= 90%, of them on a gold section >= 80%, flagged <= 20% of answers")
    return "\n".join(lines)


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


@contextmanager
def _services(served: bool) -> Iterator:
    from docchat.bootstrap import build_services
    from docchat.config import Settings
    from docchat.llm.server_key import llm_key

    from docchat_bench.api import InstantGateway

    with tempfile.TemporaryDirectory(prefix="docchat-bench-citations-") as folder:
        settings = Settings(data_dir=Path(folder) / "data", context_programs=False)
        if served:
            # The server's key is in the data dir it was started for, not in this temporary one.
            services = build_services(settings.model_copy(update={"llm_api_key": llm_key(Settings())()}))
        else:
            services = build_services(settings, gateway=InstantGateway(), contact_llm=False)
        try:
            for name, sections in DOCUMENTS.items():
                services.ingestion.ingest(name, markdown(sections))
            yield services
        finally:
            services.close()

"""The citation half of `docchat bench grounding`: does the check find planted unsupported sentences?

Answers are built from the follow-ups bench's five documents (docchat_bench.followups): each
document's sections are the passages given, numbered [1]..[k] as a prompt numbers them. Each
answer holds two supported sentences (a sentence of a section, cited by its number) and one
planted unsupported one, of three kinds:
- wrong passage: a sentence of section j cited as [i], another section of the same document
  (the hardest case: same vocabulary, same names);
- changed number: a supported sentence with one number altered ("GBP 62,000" -> "GBP 62,007");
- other document: a sentence of another document cited as [i];
- invented claim: a claim section i does not make, in its own words and names ("The Tenant must
  repair the roof" cited to the repairs clause that gives the roof to the Landlord).
Positive = a planted sentence; the check is right when it marks it. The baseline accepts every
citation (marks nothing): recall 0. "Words only" is the check without the embedder. A sweep of
SUPPORTED_AT shows how precision and recall move with the threshold. The same answers with
their marks removed measure attribution: a supported sentence attributed to its own section,
a planted sentence from another document marked unsupported.

The sentences are PARAPHRASES of the sections' first sentences, written for this bench as an
answer would put them (shorter, other words), not copied from the passages. The passages are
the chunks as the library holds them (heading included), each with its vector in the real
index, and the check runs as the app runs it (`CitationChecker`). A held-out set of other
documents and sentences (grounding_heldout) is scored with the same fixed threshold.

Cost: the check of one answer, embedding call included (one batched call, MiniLM ONNX, as the
app does), p50/p95 over all answers, and the texts embedded per answer: with the passages'
vectors read from the index (the app's way), and, as the baseline in the same run, the way
before (the passages embedded again, a wider band of sentences embedded); and without any
embedding (vectors cached) to show what the rest costs.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass

from collections.abc import Callable, Mapping, Sequence

from docchat.grounding import citation_check
from docchat.domain import Citation
from docchat.grounding.claim_categories import said, swapped
from docchat.domain.grounding import MARK, marks_in
from docchat.services.grounding import CitationChecker

from docchat_bench.figures import p50_p95
from docchat_bench.followups import DOCUMENTS

KINDS = ("wrong passage", "changed number", "other document", "invented claim")
# Claims a passage does not make, written in its own words and names (the hardest kind: a check
# by words sees the passage's vocabulary; only what is said differs).
# Chunk ids -> their vectors in the index (IndexService.passage_vectors).
Vectors = Callable[[Sequence[str]], Mapping[str, Sequence[float]]]
INVENTED = {
    "Business Day": "A Business Day also includes Saturdays whenever banks in London are open.",
    "Determination Date": "The Calculation Agent may move the Determination Date to any day it chooses.",
    "Payment Date": "Noteholders may ask for interest to be paid before the Payment Date.",
    "Reserve Account": "The Trustee may use the Reserve Account to pay its own fees.",
    "Trustee fees": "The Trustee's fee is paid after all interest on the Notes.",
    "Governing law": "Disputes under the Agreement go to arbitration in New York.",
    "Rent": "The rent is paid monthly in arrears, including VAT.",
    "Rent review": "The rent review can lower the rent when the market falls.",
    "Tenant's break option": "The Tenant may end the Lease at any time with one month's notice.",
    "Deposit": "The rent deposit is paid to the Landlord and never returned.",
    "Repairs": "The Tenant must repair the roof and the structure of the building.",
    "Repayment Date": "The Borrower repays the Loan in equal monthly instalments.",
    "Voluntary prepayment": "The Borrower may not prepay any part of the Loan.",
    "Events of Default": "An Event of Default lets the Borrower cancel the Facility.",
    "Annual leave": "Annual leave is booked by telephone with the HR portal team on the day.",
    "Sick leave": "Sick pay is half pay from the first day of sickness.",
    "Working hours": "Flexible hours are not allowed under any circumstances.",
    "Expenses": "First-class travel is refunded for journeys over two hours.",
    "Roast chicken": "Roast the chicken covered in foil for the whole time, without basting.",
    "Storing leftovers": "Cooked food keeps for two weeks in the fridge if covered.",
}
# How an answer would say each section's first sentence in its own words (written for this bench):
# the supported sentences, so that the check is not measured on text copied from its passage.
PARAPHRASES = {
    "Business Day": "A Business Day excludes weekends and requires banks to be open in London and New York.",
    "Determination Date": "The Determination Date falls on the fifteenth of March, June, September and December.",
    "Determination Date adjustment": "When a Determination Date is not a Business Day it moves back to the "
    "Business Day before it.",
    "Payment Date": "Noteholders receive interest on each Payment Date, the twenty-fifth of the month following "
    "a Determination Date.",
    "Payment Date adjustment": "A Payment Date on a weekend or public holiday moves to the next Business Day, "
    "or the one before if that crosses into the next month.",
    "Reserve Account": "The Reserve Account held with the Account Bank is only used when collections fall short "
    "of the interest due on the Notes.",
    "Required Reserve Amount": "The Reserve Account has to hold at least two per cent of the principal still "
    "outstanding on the Notes.",
    "Trustee fees": "The Trustee earns GBP 40,000 a year, paid in four instalments on the Payment Dates.",
    "Removal of the Trustee": "An extraordinary resolution of the Noteholders can remove the Trustee.",
    "Governing law": "English law governs the Agreement, and English courts decide any dispute.",
    "Rent": "Rent is GBP 62,000 a year plus VAT, paid every quarter in advance.",
    "Rent due on a weekend or holiday": "If a quarter day is a weekend or bank holiday the rent is due on the "
    "next working day without interest.",
    "Rent review": "At the fifth anniversary the rent can only go up, to the open market rent.",
    "Tenant's break option": "The Tenant can terminate the Lease at the fifth anniversary with six months' "
    "written notice to the Landlord.",
    "Landlord's redevelopment break": "After year three the Landlord can end the Lease on twelve months' notice "
    "to redevelop the building.",
    "Deposit": "A deposit equal to six months' rent is kept in a separate account.",
    "Repairs": "The Tenant repairs the inside of the premises while the Landlord looks after the roof and structure.",
    "Service charge": "The Tenant contributes a fair share of the building's running costs.",
    "Repayment Date": "The Loan must be repaid in full on the seventh anniversary of the first drawdown.",
    "Repayment on a non-Business Day": "A repayment falling on a non-Business Day moves to the next Business Day "
    "in the same month.",
    "Loan Business Day": "For the Facility, Business Days are weekdays when London and Frankfurt banks and "
    "TARGET2 are open.",
    "Voluntary prepayment": "The Borrower can prepay the Loan on five Business Days' notice, at least "
    "EUR 1,000,000 at a time.",
    "Prepayment fee": "Prepaying within the first two years costs a fee of one per cent of the amount.",
    "Events of Default": "Insolvency, non-payment or a breach of the financial covenants counts as an Event of "
    "Default.",
    "Commitment fee": "A yearly commitment fee of 0.35 per cent is charged on the undrawn commitment, paid "
    "quarterly.",
    "Annual leave": "Staff have 25 days of annual leave on top of public holidays.",
    "Carrying over leave": "You can carry up to five unused leave days into the next year if you use them by "
    "the end of March.",
    "Sick leave": "You must tell your manager by 10 a.m. on your first day off sick.",
    "Parental leave": "With a year's service, parents can take up to 18 weeks of unpaid parental leave per child.",
    "Compassionate leave": "Employees get up to five days of paid compassionate leave when a close relative dies.",
    "Public holidays": "The office is shut on England and Wales's eight public holidays and between Christmas "
    "and New Year.",
    "Public holidays on a weekend": "A public holiday on a weekend gives employees a substitute day off on the "
    "next working day.",
    "Working hours": "The normal working day runs from 9 a.m. to 5.30 p.m., Monday to Friday.",
    "Expenses": "Travel and subsistence expenses are claimed within a month through the HR portal, with receipts.",
    "Roast chicken": "Roast the chicken at 200 degrees, twenty minutes per pound and twenty minutes more.",
    "Resting meat": "Let a roast chicken rest under foil for fifteen minutes before carving.",
    "Roast lamb": "For pink lamb, roast the leg with garlic and rosemary at 180 degrees for an hour and a quarter.",
    "Gravy": "For gravy, pour off the fat, stir in flour, add hot stock and boil until thick.",
    "Bread": "Knead strong flour, yeast, salt and warm water for ten minutes, then let the dough double.",
    "Storing leftovers": "Cooked food should be cooled within two hours and eaten within three days.",
}
SWEEP = (0.40, 0.45, 0.50, 0.55, 0.60, 0.65, 0.70)
BEFORE_CEILING = 0.9
_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?![\w])")


@dataclass(frozen=True)
class PlantedSet:
    """Documents (name -> section label -> text) with each section's paraphrase and, for some, a
    claim it does not make."""

    documents: dict[str, dict[str, str]]
    paraphrases: dict[str, str]
    invented: dict[str, str]


CALIBRATION = PlantedSet(DOCUMENTS, PARAPHRASES, INVENTED)


@dataclass(frozen=True)
class PlantedAnswer:
    text: str
    given: tuple[Citation, ...]  # the passages given, numbered as a prompt numbers them
    planted: str  # the planted sentence, as written
    kind: str
    supported: tuple[tuple[str, int], ...]  # (sentence, its section's number)

    @property
    def passages(self) -> dict[int, str]:
        return {c.number: c.text for c in self.given}


def _changed(sentence: str) -> str | None:
    match = _NUMBER.search(sentence)
    if match is None:
        return None
    digits = match.group().rstrip(",")
    altered = digits[:-1] + str((int(digits[-1]) + 7) % 10)
    return sentence[:match.start()] + altered + sentence[match.start() + len(digits):]


def _cite(sentence: str, number: int) -> str:
    return f"{sentence[:-1]} [{number}]{sentence[-1]}"


def planted_answers(planted_set: PlantedSet = CALIBRATION,
                    chunk_ids: Mapping[tuple[str, str], str] | None = None) -> list[PlantedAnswer]:
    """Every planted answer of the set; `chunk_ids` ((document, section) -> chunk id) names the
    passages' chunks in a library, whose index then gives their vectors."""
    documents, paraphrases = planted_set.documents, planted_set.paraphrases
    names = list(documents)
    answers = []
    for at, name in enumerate(names):
        labels = list(documents[name])
        given = tuple(Citation(n, name, label, f"## {label}\n\n{documents[name][label]}",
                               chunk_id=(chunk_ids or {}).get((name, label), ""))
                      for n, label in enumerate(labels, start=1))  # the chunk's text, as ingested
        other = list(documents[names[(at + 1) % len(names)]])
        for i in range(1, len(labels) + 1):
            j, k = i % len(labels) + 1, (i + 1) % len(labels) + 1
            said = {n: paraphrases[labels[n - 1]] for n in (i, j, k)}
            supported = ((_cite(said[i], i), i), (_cite(said[j], j), j))
            planted = {"wrong passage": _cite(said[k], i),
                       "other document": _cite(paraphrases[other[(i - 1) % len(other)]], i)}
            changed = _changed(said[i])
            if changed is not None:
                planted["changed number"] = _cite(changed, i)
            if labels[i - 1] in planted_set.invented:
                planted["invented claim"] = _cite(planted_set.invented[labels[i - 1]], i)
            for kind, sentence in planted.items():
                text = " ".join([s for s, _ in supported] + [sentence])
                answers.append(PlantedAnswer(text, given, sentence, kind, supported))
    return answers


class _CachedEmbedder:
    """The real embedder, remembering each text's vector: the sweep re-scores without re-embedding."""

    def __init__(self, inner):
        self._inner, self._vectors = inner, {}

    def embed(self, texts: list[str]) -> list[list[float]]:
        missing = [t for t in texts if t not in self._vectors]
        if missing:
            self._vectors.update(zip(missing, self._inner.embed(missing)))
        return [self._vectors[t] for t in texts]


def _by_number(answer: PlantedAnswer, vectors: Vectors | None) -> dict[int, Sequence[float]]:
    if vectors is None:
        return {}
    found = vectors([c.chunk_id for c in answer.given if c.chunk_id])
    return {c.number: found[c.chunk_id] for c in answer.given if c.chunk_id in found}


def score_answers(answers: list[PlantedAnswer], embed, vectors: Vectors | None) -> dict:
    """Precision and recall of the check's marks over the planted sentences."""
    true_pos = false_pos = false_neg = 0
    by_kind = {kind: [0, 0] for kind in KINDS}
    for answer in answers:
        grounding = citation_check.check(answer.text, answer.passages, embed, _by_number(answer, vectors))
        flagged, planted = {s.text for s in grounding.flagged}, answer.planted
        caught = planted in flagged
        true_pos += caught
        false_neg += not caught
        false_pos += len(flagged - {planted})
        by_kind[answer.kind][0] += caught
        by_kind[answer.kind][1] += 1
    precision = true_pos / (true_pos + false_pos) if true_pos + false_pos else 0.0
    return {"precision": round(precision, 3), "recall": round(true_pos / (true_pos + false_neg), 3),
            "false_marks": false_pos,
            "recall_by_kind": {kind: round(c / n, 3) if n else 0.0 for kind, (c, n) in by_kind.items()}}


def _unmarked(text: str) -> str:
    """The text as a model that cites nothing writes it."""
    return MARK.sub("", text).replace(" .", ".")


def _attribution(answers: list[PlantedAnswer], embed, vectors: Vectors | None) -> dict:
    """Marks removed: supported sentences attributed to their own section; other documents' marked."""
    right = total = caught = planted = 0
    for answer in answers:
        grounding = citation_check.check(_unmarked(answer.text), answer.passages, embed, _by_number(answer, vectors))
        by_text = {s.text: s for s in grounding.sentences}
        for sentence, number in answer.supported:
            sentence, total = _unmarked(sentence), total + 1
            right += by_text.get(sentence, None) is not None and by_text[sentence].cited == (number,)
        if answer.kind == "other document":
            planted += 1
            checked = by_text.get(_unmarked(answer.planted))
            caught += checked is not None and not checked.supported
    return {"supported_attributed_to_their_section": round(right / total, 3),
            "other_document_marked_unsupported": round(caught / planted, 3) if planted else 0.0}


class _CountingEmbedder:
    """The real embedder, counting the texts it is given: the cost that does not depend on load."""

    def __init__(self, inner):
        self._inner, self.texts = inner, 0

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.texts += len(texts)
        return self._inner.embed(texts)


class _AsBefore:
    """The check as it was before it read the passages' vectors from the index: each compared
    passage's closest sentence embedded with the answer's, and words settling a pair only from an
    overlap of BEFORE_CEILING (citation_check.EMBED_BETWEEN's ceiling then)."""

    def __init__(self, embedder):
        self._checker = CitationChecker(embedder)

    def __call__(self, answer: str, given):
        kept = citation_check.EMBED_BETWEEN
        citation_check.EMBED_BETWEEN = (kept[0], BEFORE_CEILING)
        try:
            return self._checker(answer, given)
        finally:
            citation_check.EMBED_BETWEEN = kept


def _timings(answers: list[PlantedAnswer], checkers: dict) -> dict[str, list[float]]:
    """Each checker's time per answer, taken in turn answer by answer: a busy machine slows both alike."""
    times: dict[str, list[float]] = {name: [] for name in checkers}
    for answer in answers:
        for name, checker in checkers.items():
            said.cache_clear()  # each answer reads its passages afresh, as the app's next answer would
            began = time.perf_counter()
            checker(answer.text, answer.given)
            times[name].append((time.perf_counter() - began) * 1000)
    return times


def _percentiles(times: list[float]) -> dict:
    p50, p95 = p50_p95(times)
    return {"p50_ms": round(p50, 2), "p95_ms": round(p95, 2)}


def citation_figures(answers: list[PlantedAnswer], embedder, vectors: Vectors | None) -> dict:
    """The check's figures over `answers` at the fixed threshold, its sweep, words only and
    attribution; `vectors` None: the passages are embedded, as without an index."""
    cached = _CachedEmbedder(embedder)
    sweep = {}
    kept = citation_check.SUPPORTED_AT
    try:
        for threshold in SWEEP:
            citation_check.SUPPORTED_AT = threshold
            sweep[f"{threshold:.2f}"] = {k: v for k, v in score_answers(answers, cached.embed, vectors).items()
                                          if k in ("precision", "recall")}
    finally:
        citation_check.SUPPORTED_AT = kept
    return {
        "answers": len(answers), "planted": len(answers), "supported": 2 * len(answers),
        "planted_by_kind": {kind: sum(a.kind == kind for a in answers) for kind in KINDS},
        "check": score_answers(answers, cached.embed, vectors), "words_only": score_answers(answers, None, None),
        "baseline_every_citation_accepted": {"precision": 0.0, "recall": 0.0, "false_marks": 0},
        "threshold": kept, "sweep": sweep,
        "attribution": _attribution(answers, cached.embed, vectors),
    }


def _category_comparisons(answer: PlantedAnswer) -> None:
    """What claim_categories adds to the check of one answer: each cited sentence against its passages."""
    passages = answer.passages
    for sentence in citation_check.split_sentences(answer.text):
        bare = MARK.sub(" ", sentence)
        for number in marks_in(sentence):
            if number in passages:
                swapped(bare, passages[number])


def citation_cost(answers: list[PlantedAnswer], embedder, vectors: Vectors | None) -> dict:
    """p50/p95 per answer: the app's way (passages' vectors from the index), the way before
    (passages embedded again, `_AsBefore`) as its baseline, and the check without any embedding."""
    embedder.embed(["warm up"])
    cached = CitationChecker(_CachedEmbedder(embedder), vectors)
    for answer in answers:  # every text embedded once: what the cached checker then costs is the rest
        cached(answer.text, answer.given)
    index, embedded = _CountingEmbedder(embedder), _CountingEmbedder(embedder)
    times = _timings(answers, {"index": CitationChecker(index, vectors), "embedded": _AsBefore(embedded),
                               "cached": cached})
    categories = []
    for answer in answers:
        said.cache_clear()
        began = time.perf_counter()
        _category_comparisons(answer)
        categories.append((time.perf_counter() - began) * 1000)
    return {"cost_per_answer": {**_percentiles(times["index"]), "texts_embedded": round(index.texts / len(answers), 2)},
            "cost_of_category_comparisons": _percentiles(categories),
            "cost_passages_embedded": {**_percentiles(times["embedded"]),
                                       "texts_embedded": round(embedded.texts / len(answers), 2)},
            "cost_without_embedding": _percentiles(times["cached"])}


def run_citation_bench(as_json: bool = False, *, embedder=None) -> dict:
    """The calibration set's figures without an index (every passage embedded), printed (or, `as_json`,
    as one JSON line) beside the baseline's; `docchat bench grounding` runs it over the library."""
    if embedder is None:
        from docchat.documents.index.onnx_embeddings import OnnxMiniLMEmbedder

        embedder = OnnxMiniLMEmbedder()
    answers = planted_answers()
    result = {**citation_figures(answers, embedder, None), **citation_cost(answers, embedder, None)}
    if as_json:
        print(json.dumps(result))
        return result
    print_citations(result)
    return result


def print_citations(result: dict, *, documents: int = len(DOCUMENTS)) -> None:
    print(f"Citation check: {result['answers']} answers over {documents} documents, each with 2 supported "
          f"sentences and 1 planted ({', '.join(f'{n} {k}' for k, n in result['planted_by_kind'].items())})")
    print(f"{'method':<34}{'precision':>10}{'recall':>8}{'false marks':>13}   recall by kind")
    for label, key in (("baseline: every citation accepted", "baseline_every_citation_accepted"),
                       ("words and numbers only", "words_only"), (f"check (at {result['threshold']})", "check")):
        row = result[key]
        kinds = "  ".join(f"{k} {v:.2f}" for k, v in row.get("recall_by_kind", {}).items()) or "-"
        print(f"{label:<34}{row['precision']:>10.3f}{row['recall']:>8.3f}{row['false_marks']:>13}   {kinds}")
    print("threshold sweep (precision / recall): " +
          "  ".join(f"{t}: {v['precision']:.2f}/{v['recall']:.2f}" for t, v in result["sweep"].items()))
    if "fresh" in result:
        fresh = result["fresh"]
        print(f"fresh set, not used for design: {fresh['invented']} invented claims, recall {fresh['recall']:.3f}, "
              f"precision {fresh['precision']:.3f} ({fresh['false_marks']} supported sentences marked)")
    attribution = result["attribution"]
    print(f"attribution (marks removed): supported sentences to their own section "
          f"{attribution['supported_attributed_to_their_section']:.3f}, other document's sentences marked unsupported "
          f"{attribution['other_document_marked_unsupported']:.3f}")
    if "cost_per_answer" in result:
        cost, before, bare = result["cost_per_answer"], result["cost_passages_embedded"], result["cost_without_embedding"]
        print(f"cost per answer: p50 {cost['p50_ms']} ms, p95 {cost['p95_ms']} ms with the passages' vectors from "
              f"the index ({cost['texts_embedded']} texts embedded an answer); p50 {before['p50_ms']} ms, "
              f"p95 {before['p95_ms']} ms as before, the passages embedded again ({before['texts_embedded']} texts; "
              f"baseline); p50 {bare['p50_ms']} ms, p95 {bare['p95_ms']} ms without any embedding")
        categories = result["cost_of_category_comparisons"]
        print(f"of which the closed-category comparisons (claim_categories): p50 {categories['p50_ms']} ms, "
              f"p95 {categories['p95_ms']} ms")

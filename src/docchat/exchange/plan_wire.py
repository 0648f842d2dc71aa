"""An answer's plan facts as JSON, every way they leave (issue 54): the one mapping between how an
answer was planned and written (its `Approach`, the `Coverage` of the collection or a comparison,
the `Figure` docchat computed, its `AnswerForm`) and the dicts they are kept and sent as, as
`citation_wire` is for citations.

Three forms, byte for byte what docchat has always written:
- ROW: beside the budget in a message's `figures` column: the approach under "approach";
- EXPORT: a message record of a JSON export: the approach under "plan". In both, each of
  "coverage", "table" and "answer_form" is there only when the answer has it, so an answer from
  before plans (or forms) were kept is written as it was;
- api (`to_api`): `ask --json`, the HTTP API and the OpenAI-compatible extension: the plan by its
  name, "plan_documents" (the documents compared, by name), "coverage", "table" and
  "answer_form", always there, null when the answer has none.

Reading forgives: a field missing, or of a shape or a form this version cannot read (an export
of a later version), is left out (None). Only the domain is imported: the terminal client reads
the API's form without loading FastAPI.
"""

from __future__ import annotations

from typing import Any

from docchat.domain import AnswerFacts
from docchat.domain.approach import Approach, Coverage, Figure, Way
from docchat.domain.grounding import answer_form

ROW, EXPORT = "approach", "plan"
_WAYS = {way.value for way in Way}


def to_kept(facts: AnswerFacts, *, plan_key: str) -> dict[str, Any]:
    """The plan facts an answer keeps, in the ROW or the EXPORT form (`plan_key`)."""
    kept: dict[str, Any] = {}
    if facts.approach is not None:
        kept[plan_key] = facts.approach.as_dict()
    if facts.coverage is not None:
        kept["coverage"] = facts.coverage.as_dict()
    if facts.table is not None:
        kept["table"] = facts.table.as_dict()
    if facts.form is not None:
        kept["answer_form"] = facts.form.value
    return kept


def from_kept(kept: dict[str, Any], *, plan_key: str) -> dict[str, Any]:
    """What `to_kept` wrote, as AnswerFacts' fields: approach, coverage, table, form."""
    # Most answers are lookups with no coverage or table: no call for what is not there.
    plan, coverage, table = kept.get(plan_key), kept.get("coverage"), kept.get("table")
    return {"approach": Approach.from_dict(plan) if plan is not None else None,
            "coverage": Coverage.from_dict(coverage) if coverage is not None else None,
            "table": Figure.from_dict(table) if table is not None else None,
            "form": answer_form(kept.get("answer_form"))}


def to_api(facts: AnswerFacts | None) -> dict[str, Any]:
    """An answer's plan as the API carries it: the plan (null for an answer from before plans were
    kept), the documents compared by name, for a comparison or the collection what it covered, for
    a table the figure docchat computed, and how the answer was written."""
    approach, coverage, table = (facts.approach, facts.coverage, facts.table) if facts else (None, None, None)
    form = facts.form if facts else None
    return {"plan": approach.way.value if approach else None,
            "plan_documents": list(approach.names) if approach else [],
            "coverage": coverage.as_dict() if coverage else None,
            "table": table.as_dict() if table else None,
            "answer_form": form.value if form else None}


def from_api(data: dict[str, Any]) -> dict[str, Any]:
    """What `to_api` wrote (the terminal client reads it from the API), as AnswerFacts' fields."""
    plan, names = data.get("plan"), data.get("plan_documents")
    form = answer_form(data.get("answer_form"))
    if plan not in _WAYS:
        return {"approach": None, "coverage": None, "table": None, "form": form}
    names = tuple(str(name) for name in names) if isinstance(names, list) else ()
    return {"approach": Approach(Way(plan), names=names), "coverage": Coverage.from_dict(data.get("coverage")),
            "table": Figure.from_dict(data.get("table")), "form": form}

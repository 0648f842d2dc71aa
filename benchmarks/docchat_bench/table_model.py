"""The query a served model writes where docchat's reader has no figure it is sure of (issue
55, part 7), measured on recorded answers of a capable model: no model runs in the bench.

    docchat bench tables --prompts FILE   the prompt docchat would send, for each question the
                                          reader states no figure for (JSON: question -> messages)
    docchat bench tables --answers FILE   those questions answered by the recorded completions
                                          (JSON: {"model": ..., "answers": {question: completion}})

A completion is read as docchat reads the model's (dspy's ChatAdapter, the query signature of
docchat.context.programs) and run as docchat runs it (FigureService.written_figure: behind the
sheets' names bound to their data rows, read-only, with a time and a row limit). The recorded
answers in tables_data/model-answers.json were written by a large general model that was given
each prompt alone: not the table beyond its first rows, nor the answer.
"""

from __future__ import annotations

import json
from pathlib import Path

MODEL_ANSWERS = Path(__file__).with_name("tables_data") / "model-answers.json"


class Stop(Exception):
    """The tables described, caught before anything is run (a prompt is all that was wanted)."""


def prompt(services, in_scope: list[tuple[str, str]], question: str) -> list[dict]:
    """The messages docchat sends the served model for this question's query."""
    import dspy

    from docchat.context.programs import query_signature

    shown: list[str] = []

    def write(tables: str) -> str:
        shown.append(tables)
        raise Stop

    try:
        services.figures.written_figure(services.figures.sheets(in_scope), dict(in_scope), write, model="")
    except Stop:
        pass
    return dspy.ChatAdapter().format(query_signature(), demos=[], inputs={"tables": shown[0], "question": question})


def replayed(services, in_scope: list[tuple[str, str]], completion: str | None, model: str):
    """The figure of the recorded completion's query, as docchat reads and runs it; None when
    there is none or it is unusable (docchat would answer from the passages)."""
    import dspy

    from docchat.context.programs import query_signature
    from docchat.errors import UnusableOutput

    if not completion:
        return None
    try:
        sql = str(dspy.ChatAdapter().parse(query_signature(), completion)["sql"])
    except Exception:  # not in the fields asked for: unusable, as Programs.query has it
        return None
    try:
        return services.figures.written_figure(services.figures.sheets(in_scope), dict(in_scope),
                                               lambda tables: sql, model=model)
    except UnusableOutput:
        return None


def recorded(path: Path) -> tuple[str, dict[str, str]]:
    kept = json.loads(path.read_text(encoding="utf-8"))
    return str(kept["model"]), dict(kept["answers"])

"""The served model asked for a figure's query (docchat.tables.model_query writes what it is
shown and reads what it wrote), where docchat's own reader wrote none and the model has shown it
can (issue 38)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from docchat.context.skill_gate import SkillGate
from docchat.domain.approach import Figure
from docchat.domain.documents import TableShape
from docchat.errors import UnusableOutput
from docchat.ports import Figures
from docchat.tables.query import asks_a_figure

log = logging.getLogger(__name__)

SKILL = "sheet query"
# Sheets shown to the model at most (its prompt stays short).
SHEETS_SHOWN = 8
QUERY_TOKENS = 200


class ModelQueries:
    """Asks the served model for a query when docchat writes none, while the model has shown it
    can (`gate`); what it wrote is judged by what it gives, and the judgement kept."""

    def __init__(self, programs, gate: SkillGate):
        self._programs = programs
        self._gate = gate

    def due(self, question: str) -> bool:
        return asks_a_figure(question) and self._gate.worth_asking()

    def figure(self, figures: Figures, question: str, shapes: Sequence[TableShape],
               names: dict[str, str]) -> Figure | None:
        """The figure from the model's query over `shapes`; None when it wrote none that gives
        one, or could not be asked."""
        model = self._gate.model or "the model"

        def write(tables: str) -> str:
            return self._programs.query(tables, question, max_tokens=QUERY_TOKENS)

        try:
            figure = figures.written_figure(shapes[:SHEETS_SHOWN], names, write, model=model)
        except UnusableOutput as error:
            log.info("the served model's query over the sheets was unusable: %s", error)
            self._gate.note(usable=False)
            return None
        except Exception as error:  # the server down, say: nothing of the model, and never the answer's cost
            log.info("no query asked of the served model: %s", error)
            return None
        self._gate.note(usable=True)
        return figure

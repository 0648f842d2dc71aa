"""How a new answer is written, for stored and stateless answers alike: the one place that
chooses its form and builds its turn (issue 54).

- A figure docchat computed (a table plan) is stated by docchat (docchat.domain.stated); the
  model adds its words after it only where it has shown it cites well (the citation gate's
  `writes_leads`), or where the user asked for the model's own words.
- The collection and a comparison are built by docchat from each document's quote (a list, a
  table), unless the user asked for the model's own words.
- A question the documents do not answer gets docchat's reply saying so (docchat.services.
  documents_only), unless the user asked for the model's own words (a documents-only
  conversation never has them).
- Otherwise the form asked for, where it can be had, else the citation gate's choice: quoted
  by docchat (with a lead sentence by a model that cites well), written under the citation
  pattern, or free.
"""

from __future__ import annotations

import logging
from typing import Callable

from docchat.context.citing import Checker, CitationGate, citable, citing
from docchat.context.citing_rest import rest
from docchat.context.pipeline import Prepared
from docchat.domain import AnswerFacts, AnswerForm, Message, Role, Status, utcnow
from docchat.domain.approach import Way
from docchat.domain.grounding import Constraint
from docchat.errors import DocchatError
from docchat.ports import Gateway, ServerInfo
from docchat.services.documents_only import not_found, refuses
from docchat.services.lead import LeadWriter
from docchat.services.turn import Saver, Turn, quoted, replied, stated, streamed


log = logging.getLogger(__name__)
Background = Callable[[Callable[[], object]], None]


def _at_once(work: Callable[[], object]) -> None:
    work()


def _tried(turn: Turn) -> None:
    """Writes a trial answer out; one the server fails leaves the tally as it was."""
    try:
        turn.text()
    except DocchatError as error:
        log.info("an answer the citation gate learns from failed: %s", error)


class _Unkept:
    """Keeps nothing of an answer the gate learns from: only its check is noted."""

    def checkpoint(self, answer: Message) -> None:
        pass

    def settle(self, answer: Message, *, completing: Turn | None) -> tuple[Message, None]:
        return answer, None


# The plans whose answer docchat builds from each document's quote, whatever the model: a
# collection as a list, a comparison as a table, a row each (issue 54). On the bundled model a
# collection answer the model wrote cited 0.42-0.55 of its documents, docchat's quotes all.
BUILT = (Way.COLLECTION, Way.COMPARE)
# The forms a user chooses to have the model's own words: only so does the model answer a
# question the documents do not hold, its answer then labelled as its own (issue 54). Left to
# itself, the bundled model answered one with "Based on the provided data, the CEO's salary is…".
OWN_WORDS = (AnswerForm.FREE, AnswerForm.CONSTRAINED)


class AnswerWriter:
    def __init__(self, gateway: Gateway, *, checker: Checker | None = None,
                 citation_gate: CitationGate | None = None, background: Background = _at_once) -> None:
        self._gateway = gateway
        # Checks each finished answer's citations (none: answers are kept unchecked).
        self.checker = checker
        # Chooses whether a new answer is written under the citation pattern (none: always free).
        self._citation_gate = citation_gate
        # Runs the answers the gate learns the model from, unseen, beside the one the user reads.
        self._background = background

    def write(self, prepared: Prepared, draft: Message, saver: Saver, info: ServerInfo, *,
              chosen: AnswerForm | None, conversation_id: str | None, max_tokens: int, varied: bool = False,
              served: bool = True, documents_only: bool = False) -> Turn:
        """The turn of a new answer to `prepared`, in the form `chosen` (None: docchat chooses);
        `served`: an LLM server answers (else only what asks no model can be written);
        `documents_only`: the conversation answers from its documents or not at all."""
        if self.replies(prepared, chosen, documents_only=documents_only):
            return replied(prepared, draft, saver, conversation_id=conversation_id)
        if prepared.figure is not None:
            adds = served and (chosen in OWN_WORDS or chosen is None and self._writes_well(info))
            return stated(prepared, draft, saver, self._gateway if adds else None, max_tokens=max_tokens,
                          conversation_id=conversation_id, checker=self.checker, varied=varied)
        form = self.form_for(info, prepared, chosen)
        turn = self._in_form(form, prepared, draft, saver, info, chosen=chosen, conversation_id=conversation_id,
                             max_tokens=max_tokens, varied=varied, served=served)
        if served and chosen is None:
            # Once the answer shown is settled on: what the model shows unseen is for the next ones.
            self._learn(prepared, info, max_tokens)
        return turn

    def _in_form(self, form: AnswerForm, prepared: Prepared, draft: Message, saver: Saver, info: ServerInfo, *,
                 chosen: AnswerForm | None, conversation_id: str | None, max_tokens: int, varied: bool,
                 served: bool) -> Turn:
        if form is AnswerForm.QUOTED:
            return quoted(prepared, draft, saver, conversation_id=conversation_id, checker=self.checker,
                          lead=self.lead_writer(info) if served else None)
        constraint, checker = self.written(info, prepared, form, judged=chosen is None)
        # A new version of an answer is sampled: greedily it would be the same words.
        return streamed(prepared, draft, saver, self._gateway, max_tokens=max_tokens,
                        conversation_id=conversation_id, varied=varied, checker=checker, constraint=constraint)

    def writable(self, prepared: Prepared, chosen: AnswerForm | None, *, documents_only: bool = False) -> bool:
        """Whether the answer can be written with no LLM server: docchat says the documents do
        not hold it, states a figure, or quotes passages (chosen, or the collection's or a
        comparison's)."""
        return self.replies(prepared, chosen, documents_only=documents_only) or prepared.figure is not None or \
            citable(prepared) and (chosen is AnswerForm.QUOTED or chosen is None and prepared.approach.way in BUILT)

    @staticmethod
    def replies(prepared: Prepared, chosen: AnswerForm | None, *, documents_only: bool = False) -> bool:
        """Whether docchat replies that the documents do not hold the answer, asking no model:
        they were judged not to, and the user did not ask for the model's own words (in a
        documents-only conversation: also when there was nothing in scope to search, whatever
        was asked)."""
        if documents_only:
            return refuses(prepared)
        return not_found(prepared) and chosen not in OWN_WORDS

    def form_for(self, info: ServerInfo, prepared: Prepared, chosen: AnswerForm | None = None) -> AnswerForm:
        """How a new answer is written: as chosen, where it can be (a pattern needs passages and a
        server that takes one; quotes need passages), else as the citation gate judges."""
        if chosen is not None:
            can = {AnswerForm.FREE: True, AnswerForm.QUOTED: citable(prepared),
                   AnswerForm.CONSTRAINED: citable(prepared) and info.constrains,
                   AnswerForm.STATED: False}[chosen]
            return chosen if can else AnswerForm.FREE
        if prepared.approach.way in BUILT and citable(prepared):
            return AnswerForm.QUOTED  # docchat's row for each document: what each one says, quoted
        gate = self._citation_gate
        return gate.form(info, prepared) if gate is not None else AnswerForm.FREE

    def quoting(self, chosen: AnswerForm | None) -> bool:
        """Whether a new answer about every document, with passages to cite, is to be quoted by
        docchat, so that no model need read the collection in rounds: unless the user asked for
        the model's own words, it is (`BUILT`). Known before the passages are gathered."""
        return chosen is None or chosen is AnswerForm.QUOTED

    def _learn(self, prepared: Prepared, info: ServerInfo, max_tokens: int) -> None:
        """Has the model write this answer unseen in the form the gate is learning, if it is:
        checked as any answer, and noted in the gate's tally; kept nowhere."""
        gate = self._citation_gate
        # docchat builds the collection's and a comparison's answers whatever the model shows.
        learns = gate is not None and self.checker is not None and prepared.approach.way not in BUILT
        trial = gate.trial(info, prepared) if learns and gate is not None else None
        if trial is None:
            return
        constraint, checker = self.written(info, prepared, trial)
        draft = Message(id="trial", conversation_id="", seq=prepared.question.seq + 1, role=Role.ASSISTANT,
                        content="", created_at=utcnow(), status=Status.STREAMING,
                        facts=AnswerFacts(model=info.model, citations=prepared.citations, evidence=prepared.evidence))
        turn = streamed(prepared, draft, _Unkept(), self._gateway, max_tokens=max_tokens, conversation_id=None,
                        checker=checker, constraint=constraint)
        self._background(lambda: _tried(turn))

    def lead_writer(self, info: ServerInfo) -> LeadWriter | None:
        """Who writes a quoted answer's lead sentence: the model, if the gate judges it cites well."""
        checker = self.checker
        if checker is None or not self._writes_well(info):
            return None
        return LeadWriter(self._gateway, checker, model=info.model, constrains=info.constrains)

    def _writes_well(self, info: ServerInfo) -> bool:
        gate = self._citation_gate
        return gate is not None and gate.writes_leads(info)

    def written(self, info: ServerInfo, prepared: Prepared, form: AnswerForm, *,
                judged: bool = True) -> tuple[Constraint | None, Checker | None]:
        """The pattern an answer the model writes in `form` is written under (None: its own
        words), and the check of its citations, which also tells the gate what the model did
        (`judged`: the gate chose the form)."""
        constraint = citing([c.number for c in prepared.citations]) if form is AnswerForm.CONSTRAINED else None
        gate = self._citation_gate
        if gate is None or not judged or self.checker is None:
            return constraint, self.checker
        return constraint, gate.judging(self.checker, info.model, form, prepared, constraint)

    @staticmethod
    def rest_of(info: ServerInfo, cut: Message, prepared: Prepared) -> Constraint | None:
        """The pattern the rest of a cut answer keeps to: the rest of the one it was begun under,
        on a server that takes one (else, or if the answer so far left it, it goes on freely)."""
        if cut.facts.form is not AnswerForm.CONSTRAINED or not info.constrains:
            return None
        return rest(cut.content, [c.number for c in cut.facts.citations or prepared.citations])

"""The terminal client says when an answer was given on weak or no evidence."""

from __future__ import annotations

from docchat.cli.terminal import Session
from docchat.cli.terminal_backends import Outcome
from docchat.domain import EvidenceStrength, Judgement
from docchat.domain.approach import Approach, Coverage, Way
from docchat.domain.grounding import DOCUMENTS_ONLY

from tests.unit.test_terminal_output import HostileBackend


class JudgedAnswer:
    def __init__(self, outcome: Outcome):
        self._outcome = outcome

    def __iter__(self):
        return iter(["Roast a turkey for about three hours."])

    def end(self) -> Outcome:
        return self._outcome


class JudgedBackend(HostileBackend):
    def __init__(self, outcome: Outcome):
        super().__init__()
        self.outcome = outcome

    def ask(self, question: str) -> JudgedAnswer:
        self.conversation_id = "c0ffee00-1111-2222-3333-444455556666"
        return JudgedAnswer(self.outcome)


def _said(outcome: Outcome, capsys) -> str:
    typed = iter(["How long does a turkey roast for?"])

    def read_line() -> str:
        try:
            return next(typed)
        except StopIteration:
            raise EOFError from None

    Session(JudgedBackend(outcome), read_line).run()
    return capsys.readouterr().out


def test_an_answer_the_documents_do_not_hold_is_said_to_be_the_model_s_own(capsys):
    out = _said(Outcome("complete", evidence=EvidenceStrength(Judgement.NOT_FOUND, 0.31), model="qwen"), capsys)
    assert "[Not found in your documents: this answer is the model's own.]" in out


def test_an_answer_on_weak_evidence_says_so(capsys):
    out = _said(Outcome("complete", evidence=EvidenceStrength(Judgement.WEAK, 0.6), model="qwen"), capsys)
    assert "Weak evidence in your documents" in out


def test_an_answer_found_in_the_documents_and_a_documents_only_reply_carry_no_note(capsys):
    found = _said(Outcome("complete", evidence=EvidenceStrength(Judgement.FOUND, 0.9), model="qwen"), capsys)
    refused = _said(Outcome("complete", evidence=EvidenceStrength(Judgement.NOT_FOUND, 0.2), model=DOCUMENTS_ONLY),
                    capsys)
    assert "in your documents" not in found and "model's own" not in refused


def test_a_comparison_says_what_it_compared_and_covered(capsys):
    compared = Approach(Way.COMPARE, ("a", "b"), ("lease-2024.md", "lease-2025.md"))

    out = _said(Outcome("complete", model="qwen", approach=compared, coverage=Coverage(2, 2)), capsys)

    assert "[Compared lease-2024.md and lease-2025.md: covered 2 of 2 documents.]" in out

"""A follow-up is rewritten by the model only where the served model has shown it can do it:
a model whose rewrites come back unusable is not asked again, and what was searched is said
as it was (the question, and the question with the earlier one), not as one glued string."""

from __future__ import annotations

from docchat.context.rewrite import RewriteGate
from docchat.context.skill_gate import GIVE_UP_AFTER
from docchat.errors import UnusableOutput
from docchat.llm.skill_record import JsonSkillRecord

from tests.unit.fakes import FakeLibrary, FakeServerInfo
from tests.unit.test_pipeline import TRUST, Setup

FIRST = "When is the Determination Date?"
FOLLOW_UPS = ["What if it falls on a weekend?", "And what about that in December?", "Does it move then?",
              "Is it the same for them?"]


class Rewriter:
    """The model's rewrites, as scripted: a query, or UnusableOutput (cut off, unparsable)."""

    def __init__(self, outcome):
        self.outcome = outcome
        self.asked: list[str] = []

    def rewrite(self, recent_turns: str, question: str, *, max_tokens: int) -> str:
        self.asked.append(question)
        if isinstance(self.outcome, Exception):
            raise self.outcome
        return self.outcome


def conversation(setup: Setup, questions: list[str]) -> tuple[str, list[list[str]]]:
    """Asks `questions` in one conversation; what each turn said it was doing."""
    conversation_id, said = None, []
    for question in questions:
        stages: list[str] = []
        turn = setup.chat.answer(conversation_id, question, progress=stages.append)
        turn.text()
        conversation_id, said = turn.conversation_id, said + [stages]
    return conversation_id, said


def gated(tmp_path, rewriter: Rewriter, model: str = "tiny") -> tuple[Setup, RewriteGate]:
    gate = RewriteGate(JsonSkillRecord(tmp_path))
    gate.follow(FakeServerInfo(model=model))
    return Setup(FakeLibrary(*TRUST), rewriter=rewriter, rewrite_gate=gate), gate


def test_a_model_whose_rewrites_are_unusable_is_not_asked_again_and_does_not_say_it_reads(tmp_path):
    rewriter = Rewriter(UnusableOutput("the rewrite is not in the fields asked for"))
    setup, _ = gated(tmp_path, rewriter)

    _, said = conversation(setup, [FIRST, *FOLLOW_UPS])

    assert len(rewriter.asked) == GIVE_UP_AFTER
    reading = "Reading the question with the conversation…"
    assert [reading in stages for stages in said] == [False] + [True] * GIVE_UP_AFTER + [False] * (
        len(FOLLOW_UPS) - GIVE_UP_AFTER)


def test_what_was_learned_of_a_model_outlives_a_restart_and_another_model_is_judged_afresh(tmp_path):
    unusable = Rewriter(UnusableOutput("cut off"))
    conversation(gated(tmp_path, unusable)[0], [FIRST, *FOLLOW_UPS])

    again = Rewriter(UnusableOutput("cut off"))
    setup, gate = gated(tmp_path, again)
    conversation(setup, [FIRST, FOLLOW_UPS[0]])
    assert again.asked == []

    gate.follow(FakeServerInfo(model="Qwen3-4B-Instruct-2507"))
    again.outcome = "What happens if the Determination Date falls on a weekend?"
    conversation(setup, [FIRST, *FOLLOW_UPS])
    assert len(again.asked) == len(FOLLOW_UPS)


def test_a_model_that_rewrote_well_once_is_kept_through_an_unusable_rewrite(tmp_path):
    rewriter = Rewriter("What happens if the Determination Date falls on a weekend?")
    setup, _ = gated(tmp_path, rewriter)
    conversation(setup, [FIRST, FOLLOW_UPS[0]])

    rewriter.outcome = UnusableOutput("cut off")
    conversation(setup, [FIRST, *FOLLOW_UPS])

    assert len(rewriter.asked) == 1 + len(FOLLOW_UPS)


def test_a_server_that_cannot_be_reached_says_nothing_of_the_model(tmp_path):
    rewriter = Rewriter(TimeoutError("connection refused"))
    setup, _ = gated(tmp_path, rewriter)

    conversation(setup, [FIRST, *FOLLOW_UPS])

    assert len(rewriter.asked) == len(FOLLOW_UPS)


def test_a_follow_up_read_with_the_earlier_question_is_stored_as_the_two_searches(tmp_path):
    setup, _ = gated(tmp_path, Rewriter(UnusableOutput("cut off")))

    conversation_id, _ = conversation(setup, [FIRST, FOLLOW_UPS[0]])

    question = setup.messages.history(conversation_id)[2]
    assert question.content == FOLLOW_UPS[0]
    assert question.read_with == FIRST

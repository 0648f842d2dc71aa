"""The questions the evidence judgement is calibrated on, over the follow-ups bench's documents.

Answerable: every question of `followups.DIALOGS` (openings and follow-ups: each names the
section that answers it). Unanswerable: questions the five documents do not answer, asked
alone and as follow-ups in dialogs of their own. Many are near misses on purpose: they share
words and topic with a section that does not answer them ("What is the interest margin on the
loan?" beside the commitment fee; "How long does a turkey roast for?" beside the chicken), so
the judgement is measured where it is hard, not only on "Who won the 1998 World Cup?".

A dialog is (opening, follow-ups), each question marked answerable or not; a follow-up is
retrieved with the questions before it, as the answer pipeline retrieves it.
"""

from __future__ import annotations

from dataclasses import dataclass

from docchat_bench.followups import DIALOGS as FOLLOW_UP_DIALOGS


@dataclass(frozen=True)
class Question:
    text: str
    answerable: bool


def _yes(text: str) -> Question:
    return Question(text, True)


def _no(text: str) -> Question:
    return Question(text, False)


# Questions of the followups bench, all answered by its documents.
ANSWERABLE_DIALOGS: list[list[Question]] = [
    [_yes(opening), *(_yes(follow_up.question) for follow_up in follow_ups)]
    for opening, follow_ups in FOLLOW_UP_DIALOGS
]

# Asked alone: near misses first, then questions about nothing in the library.
UNANSWERABLE_ALONE: list[Question] = [
    _no("What is the interest margin over the screen rate on the Notes?"),
    _no("Who is the Calculation Agent appointed under the trust agreement?"),
    _no("What rating must the Account Bank keep?"),
    _no("How many parking spaces come with the riverside lease?"),
    _no("Can the tenant sublet part of the premises?"),
    _no("What insurance must the landlord take out for the building?"),
    _no("What is the interest margin on the loan?"),
    _no("What financial covenant ratios must the Borrower meet?"),
    _no("Which bank is the agent under the loan facility?"),
    _no("Is there a bonus scheme for employees?"),
    _no("How much maternity pay do employees get?"),
    _no("What is the dress code in the office?"),
    _no("How long does a turkey roast for?"),
    _no("How do I make a sourdough starter?"),
    _no("What wine goes with roast lamb?"),
    _no("Who won the football World Cup in 1998?"),
    _no("What is the boiling point of ethanol?"),
    _no("How do I reset my router's password?"),
    _no("What is the capital of Australia?"),
    _no("Which planets have rings?"),
]

# Dialogs whose follow-ups the documents do not answer, after an opening that they do.
UNANSWERABLE_DIALOGS: list[list[Question]] = [
    [_yes("What fees does the Trustee charge?"),
     _no("And what does the Account Bank charge?"),
     _no("Is that fee subject to VAT?")],
    [_yes("When is the rent due under the lease?"),
     _no("Who insures the building?"),
     _no("And can I keep a dog in the premises?")],
    [_yes("Can I repay the loan early?"),
     _no("What is the interest rate on the loan?"),
     _no("Who guarantees it?")],
    [_yes("How many days of annual leave do I get?"),
     _no("Can I buy extra days?"),
     _no("What about paternity pay?")],
    [_yes("How long does a chicken roast for?"),
     _no("And a duck?"),
     _no("What should I serve with it?")],
]


def dialogs() -> list[list[Question]]:
    """Every dialog of the set: answerable ones, unanswerable ones, and each lone question as a
    dialog of one."""
    return ANSWERABLE_DIALOGS + UNANSWERABLE_DIALOGS + [[question] for question in UNANSWERABLE_ALONE]

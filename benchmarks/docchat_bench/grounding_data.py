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


def answerable(text: str) -> Question:
    return Question(text, True)


def unanswerable(text: str) -> Question:
    return Question(text, False)


# Questions of the followups bench, all answered by its documents.
ANSWERABLE_DIALOGS: list[list[Question]] = [
    [answerable(opening), *(answerable(follow_up.question) for follow_up in follow_ups)]
    for opening, follow_ups in FOLLOW_UP_DIALOGS
]

# Asked alone: near misses first, then questions about nothing in the library.
UNANSWERABLE_ALONE: list[Question] = [
    unanswerable("What is the interest margin over the screen rate on the Notes?"),
    unanswerable("Who is the Calculation Agent appointed under the trust agreement?"),
    unanswerable("What rating must the Account Bank keep?"),
    unanswerable("How many parking spaces come with the riverside lease?"),
    unanswerable("Can the tenant sublet part of the premises?"),
    unanswerable("What insurance must the landlord take out for the building?"),
    unanswerable("What is the interest margin on the loan?"),
    unanswerable("What financial covenant ratios must the Borrower meet?"),
    unanswerable("Which bank is the agent under the loan facility?"),
    unanswerable("Is there a bonus scheme for employees?"),
    unanswerable("How much maternity pay do employees get?"),
    unanswerable("What is the dress code in the office?"),
    unanswerable("How long does a turkey roast for?"),
    unanswerable("How do I make a sourdough starter?"),
    unanswerable("What wine goes with roast lamb?"),
    unanswerable("Who won the football World Cup in 1998?"),
    unanswerable("What is the boiling point of ethanol?"),
    unanswerable("How do I reset my router's password?"),
    unanswerable("What is the capital of Australia?"),
    unanswerable("Which planets have rings?"),
]

# Dialogs whose follow-ups the documents do not answer, after an opening that they do.
UNANSWERABLE_DIALOGS: list[list[Question]] = [
    [answerable("What fees does the Trustee charge?"),
     unanswerable("And what does the Account Bank charge?"),
     unanswerable("Is that fee subject to VAT?")],
    [answerable("When is the rent due under the lease?"),
     unanswerable("Who insures the building?"),
     unanswerable("And can I keep a dog in the premises?")],
    [answerable("Can I repay the loan early?"),
     unanswerable("What is the interest rate on the loan?"),
     unanswerable("Who guarantees it?")],
    [answerable("How many days of annual leave do I get?"),
     unanswerable("Can I buy extra days?"),
     unanswerable("What about paternity pay?")],
    [answerable("How long does a chicken roast for?"),
     unanswerable("And a duck?"),
     unanswerable("What should I serve with it?")],
]


def dialogs() -> list[list[Question]]:
    """Every dialog of the set: answerable ones, unanswerable ones, and each lone question as a
    dialog of one."""
    return ANSWERABLE_DIALOGS + UNANSWERABLE_DIALOGS + [[question] for question in UNANSWERABLE_ALONE]

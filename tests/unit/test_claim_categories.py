"""A cited sentence that swaps a word of a closed category (a month, a weekday, how often, before
or after, ...) for another its passage does not say is marked; the same claim in other words is
not. Each case is a contradiction and its paraphrase, checked by words (no embedder)."""

from __future__ import annotations

import pytest

from docchat.grounding.citation_check import check
from docchat.grounding.claim_categories import swapped

CASES = {
    "time of year": ("Prune roses in late February, cutting each stem back to an outward-facing bud.",
                     "Prune roses in midsummer, cutting each stem back to an outward-facing bud [1].",
                     "Roses are pruned in late February, each stem cut back to an outward-facing bud [1]."),
    "day of the week": ("Business Day means a day, other than a Saturday or a Sunday, on which banks are open in "
                        "London.",
                        "A Business Day includes Saturdays when banks are open in London [1].",
                        "A Business Day is a weekday when banks are open in London [1]."),
    "time of day": ("Water in the early morning or evening, soaking the soil deeply twice a week.",
                    "Water at midday, soaking the soil deeply twice a week [1].",
                    "Soak the soil deeply twice a week, in the morning or the evening [1]."),
    "frequency": ("The annual rent is GBP 62,000, exclusive of VAT, payable quarterly in advance.",
                  "The annual rent of GBP 62,000 is payable monthly [1].",
                  "The GBP 62,000 rent is payable every quarter, in advance [1]."),
    "order": ("The Trustee is paid an annual fee of GBP 40,000, ahead of any interest on the Notes.",
              "The Trustee's fee of GBP 40,000 is paid after the interest on the Notes [1].",
              "The Trustee's GBP 40,000 fee is paid before any interest on the Notes [1]."),
    "bound": ("Passwords must have at least 14 characters.",
              "Passwords must have at most 14 characters [1].",
              "Passwords must have 14 characters or more [1]."),
    "amount": ("Theft cover stops if the home is left unoccupied for more than 60 days.",
               "Theft cover stops if the home is left unoccupied for less than 60 days [1].",
               "Theft cover stops once the home is left unoccupied for more than 60 days in a row [1]."),
    "direction": ("On the fifth anniversary the rent is reviewed upwards only to the open market rent.",
                  "On the fifth anniversary the rent review can lower the rent to the open market rent [1].",
                  "On the fifth anniversary the rent review can only raise the rent to the open market rent [1]."),
    "place": ("Sow tomato seeds indoors in March.",
              "Sow tomato seeds outdoors in March [1].",
              "Tomato seeds are sown indoors in March [1]."),
    "extent": ("The policyholder may cancel within 14 days of the start date and receive a full refund.",
               "The policyholder may cancel at any time and receive a full refund [1].",
               "The policyholder may cancel within 14 days and receive a full refund [1]."),
    "permission": ("Company laptops are encrypted and are never left in a parked car.",
                   "Company laptops are encrypted and may be left in a parked car [1].",
                   "Company laptops are encrypted and must not be left in a parked car [1]."),
    "obligation": ("Two-factor authentication is required for email and the VPN.",
                   "Two-factor authentication is optional for email and the VPN [1].",
                   "Email and the VPN need two-factor authentication [1]."),
    "count of a unit": ("Cool cooked food within two hours and eat it within three days.",
                        "Cooked food keeps for two weeks if it is cooled [1].",
                        "Cooked food is cooled within two hours and eaten within three days [1]."),
    "whole": ("The Borrower repays the Loan in full on the Final Repayment Date.",
              "The Borrower repays the Loan in monthly instalments [1].",
              "The Borrower repays the whole Loan on the Final Repayment Date [1]."),
}


@pytest.mark.parametrize("category", CASES)
def test_a_claim_that_swaps_a_word_of_a_closed_category_is_marked(category):
    passage, contradiction, _ = CASES[category]

    [flagged] = check(contradiction, {1: passage}, None).flagged
    assert flagged.text == contradiction
    assert swapped(contradiction, passage) == category


@pytest.mark.parametrize("category", CASES)
def test_the_same_claim_in_other_words_is_not_marked(category):
    passage, _, paraphrase = CASES[category]

    assert check(paraphrase, {1: passage}, None).flagged == ()


def test_a_passage_silent_on_the_category_says_nothing_against_the_sentence():
    passage = "Roast a chicken at 200 degrees for twenty minutes per pound plus twenty minutes."

    assert check("Roast a chicken in the evening at 200 degrees, twenty minutes per pound plus twenty minutes [1].",
                 {1: passage}, None).flagged == ()


def test_on_the_day_is_marked_against_a_passage_that_asks_for_notice_ahead():
    passage = "Annual leave is booked through the HR portal at least two weeks ahead."

    assert swapped("Annual leave is booked through the HR portal on the day.", passage) == "order"
    assert swapped("Annual leave is booked through the HR portal two weeks in advance.", passage) is None


def test_no_more_than_is_a_bound_and_not_more_than():
    # "more than" against "no more than" is not caught: the two are in different categories.
    passage = "After the first year the price may rise by no more than the retail price index."

    assert swapped("After the first year the price may rise by at least the retail price index.", passage) == "bound"
    assert swapped("After the first year the price may rise by no more than the index.", passage) is None


@pytest.mark.parametrize("sentence, passage", [
    ("The tenant must always pay the rent on the 1st.", "Rent is payable in advance on the 1st day of each month."),
    ("The deposit is returned in full.", "The deposit, less any part used for repairs, is returned within 30 days."),
    ("You can find the break clause in section 5.",
     "The Tenant must not assign the lease. The break clause is in section 5."),
    ("The lawn is mown weekly in summer.", "From April to September the lawn is cut weekly."),
    ("Sow the seeds in February.", "Sow the seeds in winter, under glass."),
])
def test_a_word_of_a_category_said_in_passing_or_within_the_passage_s_range_is_not_marked(sentence, passage):
    assert swapped(sentence, passage) is None


@pytest.mark.parametrize("sentence", ["Prune the roses in midsummer.", "Prune the roses in January."])
def test_a_season_or_a_month_the_passage_s_months_do_not_give_is_marked(sentence):
    assert swapped(sentence, "Prune the roses in late February.") == "time of year"


def test_a_month_outside_the_passage_s_range_is_marked():
    assert swapped("The lawn is cut weekly in December.", "From April to September the lawn is cut weekly.") == \
        "time of year"

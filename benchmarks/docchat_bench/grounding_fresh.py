"""A fresh set of invented claims for `docchat bench grounding`, written before any signal that
catches them was designed (issue 27) and never used to design one: the invented-claim recall on
it is the figure nobody has tuned on.

One claim per section, for the calibration documents (the follow-ups bench's) and the held-out
ones (grounding_heldout), each contradicting its section in the section's own words, of varied
kinds: another month, season, weekday or time of day; another frequency; another party doing the
thing; permission for prohibition; "any time", "always", "unlimited" for a limit; more for less;
before for after. Few state a number (a changed number is the check's easy case, measured apart).
"""

from __future__ import annotations

from typing import Mapping

from docchat_bench.grounding_citations import PlantedSet, Vectors, planted_answers, score_answers

CALIBRATION: dict[str, str] = {
    "Business Day": "A Business Day is a Saturday or a Sunday on which commercial banks are open in London "
    "and New York.",
    "Determination Date": "The Determination Date is the fifteenth day of January, April, July and October.",
    "Determination Date adjustment": "A Determination Date that falls on a public holiday is moved to the "
    "following Business Day.",
    "Payment Date": "Interest on the Notes is paid to the Noteholders on the twenty-fifth day of the month before "
    "each Determination Date.",
    "Payment Date adjustment": "Extra interest accrues to the Noteholders for each day a payment is delayed by a "
    "public holiday.",
    "Reserve Account": "The Account Bank keeps the Reserve Account and draws on it whenever it chooses.",
    "Required Reserve Amount": "The balance of the Reserve Account may be at most two per cent of the principal "
    "outstanding on the Notes.",
    "Trustee fees": "The Trustee is paid a monthly fee, after the interest on the Notes.",
    "Removal of the Trustee": "The Trustee may retire at any time, without written notice or a successor.",
    "Governing law": "The Agreement and the Notes are governed by the law of New York.",
    "Rent": "The annual rent is payable monthly in arrears.",
    "Rent due on a weekend or holiday": "When a quarter day falls on a bank holiday, the rent is paid on the "
    "preceding working day.",
    "Rent review": "On the fifth anniversary of the term the rent is reviewed downwards to the open market rent.",
    "Tenant's break option": "The Landlord may end this Lease on the fifth anniversary by giving the Tenant six "
    "months' written notice.",
    "Landlord's redevelopment break": "The Landlord may end this Lease at any time before the third year if it "
    "intends to redevelop the building.",
    "Deposit": "The rent deposit is returned to the Tenant before the end of the term.",
    "Repairs": "The Landlord keeps the inside of the premises in good repair.",
    "Service charge": "The service charge is estimated every month and paid by the Landlord.",
    "Repayment Date": "The Borrower repays the Loan in quarterly instalments until the Final Repayment Date.",
    "Repayment on a non-Business Day": "A repayment due on a Sunday is made on the following Saturday.",
    "Loan Business Day": "In this Facility, a Business Day includes Saturdays when banks are open in Frankfurt.",
    "Voluntary prepayment": "The Borrower may prepay the Loan at any time without notice, in amounts of any size.",
    "Prepayment fee": "A prepayment made after the first two years carries a fee of one per cent of the amount "
    "prepaid.",
    "Events of Default": "After an Event of Default the Borrower may demand immediate repayment from the Lender.",
    "Commitment fee": "The commitment fee on the undrawn commitment is paid monthly in advance.",
    "Annual leave": "Annual leave is booked through the HR portal on the day itself.",
    "Carrying over leave": "Unused days of annual leave carried over may be taken at any time in the next year.",
    "Sick leave": "Tell your manager by the end of the week of sickness.",
    "Parental leave": "Parental leave is paid in full for each child.",
    "Compassionate leave": "Compassionate leave is unpaid and is always limited to five days.",
    "Public holidays": "The office stays open between Christmas and New Year.",
    "Public holidays on a weekend": "When a public holiday falls on a Saturday, employees get a substitute day off "
    "on the Friday before.",
    "Working hours": "Normal hours are 9 a.m. to 5.30 p.m., Monday to Saturday.",
    "Expenses": "Claim travel and subsistence expenses within a year through the HR portal.",
    "Roast chicken": "Roast a chicken at 200 degrees, basting it every five minutes.",
    "Resting meat": "Carve roast meat straight from the oven and rest it under foil afterwards.",
    "Roast lamb": "Roast a leg of lamb with garlic and rosemary overnight for pink meat.",
    "Gravy": "Add the hot stock before pouring off the fat from the roasting tin.",
    "Bread": "Knead the dough after it has risen until doubled.",
    "Storing leftovers": "Cooked food can be cooled overnight and kept for weeks in the fridge.",
}

HELD_OUT: dict[str, str] = {
    "Buildings cover": "The buildings of the home are covered against fire and flood, but never against storm "
    "or subsidence.",
    "Contents cover": "Any single valuable item is covered in full, whatever its value.",
    "Excess": "The insurer pays the first GBP 250 of every claim.",
    "Unoccupied home": "Cover for theft stops as soon as the home is left unoccupied over a weekend.",
    "Making a claim": "Claims may be reported to the insurer at any time after the loss.",
    "Cancellation": "The insurer may cancel within 14 days of the start date and keep the premium.",
    "Delivery": "The Buyer collects the Goods from the Supplier's warehouse in Leeds each month.",
    "Price": "After the first twelve months the price of the Goods may rise by more than the retail price index.",
    "Payment terms": "The Supplier pays each invoice within 45 days of receiving it.",
    "Defective goods": "The Buyer may reject defective Goods at any time after delivery.",
    "Liability cap": "The Supplier's total liability under the Agreement is unlimited.",
    "Termination": "Only the Supplier may end the Agreement on 90 days' written notice.",
    "Passwords": "Passwords must have at most 14 characters and may be reused for another account.",
    "Two-factor authentication": "Two-factor authentication is optional for email and the VPN.",
    "Laptops": "Company laptops lock after an hour without use and may be left in a parked car.",
    "Reporting incidents": "A lost device is reported to the IT service desk by the end of the following week.",
    "Software installation": "Any software may be installed on a company laptop without approval from IT security.",
    "Data retention": "Customer records are securely deleted before the end of the relationship.",
    "Tomatoes": "Sow tomato seeds outdoors in March, before the last frost.",
    "Roses": "Prune roses in early autumn, cutting each stem back to an outward-facing bud.",
    "Lawn": "Mow the lawn daily from April to September.",
    "Compost": "Turn the compost heap every week; it is ready in about nine months.",
    "Watering": "Water at midday, soaking the soil deeply twice a week.",
    "Potatoes": "Plant seed potatoes in October and earth them up when the shoots reach 20 centimetres.",
}


def fresh_figures(planted_set: PlantedSet, fresh: Mapping[str, str], chunk_ids: Mapping[tuple[str, str], str],
                  embedder, vectors: Vectors | None) -> dict:
    """Invented-claim recall on these claims (written before the signals that
    catch such claims, never used to design one), in the same answers as the set's own."""
    fresh_set = PlantedSet(planted_set.documents, planted_set.paraphrases, dict(fresh))
    answers = [a for a in planted_answers(fresh_set, chunk_ids) if a.kind == "invented claim"]
    scored = score_answers(answers, embedder.embed, vectors)
    return {"invented": len(answers), "recall": scored["recall"], "precision": scored["precision"],
            "false_marks": scored["false_marks"]}

"""The held-out half of `docchat bench grounding`: other documents, other questions, other
planted sentences, written in the same style as the calibration set (grounding_data and
grounding_citations over the follow-ups bench's documents) and never used to set a threshold.
Both checks are run here with the thresholds fixed on the calibration set, so a drop between
the two is what a user's own documents can expect.

Four documents, one chunk per section: a home insurance policy, a supply agreement, an IT
security policy and a gardening notebook. Each section has the sentence an answer would write
for it (a paraphrase, not a copy) and most have a claim it does not make, in its own words.
"""

from __future__ import annotations

from docchat_bench.grounding_data import Question, answerable, unanswerable

INSURANCE = "home-insurance-policy.md"
SUPPLY = "supply-agreement.md"
SECURITY = "it-security-policy.md"
GARDEN = "garden-notebook.md"

DOCUMENTS: dict[str, dict[str, str]] = {
    INSURANCE: {
        "Buildings cover": "The policy covers the buildings of the home against fire, flood, storm, subsidence "
        "and escape of water, up to a sum insured of GBP 450,000.",
        "Contents cover": "Contents are covered for up to GBP 60,000 in total, with a limit of GBP 2,500 for any "
        "single valuable item unless it is listed in the schedule.",
        "Excess": "The policyholder pays the first GBP 250 of every claim, and GBP 1,000 for claims for "
        "subsidence.",
        "Unoccupied home": "Cover for theft and escape of water stops if the home is left unoccupied for more "
        "than 60 consecutive days.",
        "Making a claim": "Claims must be reported to the insurer within 30 days of the loss, with receipts or "
        "photographs of the damaged items.",
        "Cancellation": "The policyholder may cancel within 14 days of the start date and receive a full refund "
        "of the premium.",
    },
    SUPPLY: {
        "Delivery": "The Supplier delivers the Goods to the Buyer's warehouse in Leeds within ten working days "
        "of each purchase order.",
        "Price": "The price of the Goods is fixed for the first twelve months and may then rise by no more than "
        "the retail price index.",
        "Payment terms": "The Buyer pays each invoice within 45 days of receiving it; late payments carry "
        "interest at 4 per cent above the base rate.",
        "Defective goods": "The Buyer may reject defective Goods within 21 days of delivery, and the Supplier "
        "replaces them at its own cost.",
        "Liability cap": "The Supplier's total liability under the Agreement is capped at EUR 2,000,000 in any "
        "contract year.",
        "Termination": "Either party may end the Agreement on 90 days' written notice after the first two years.",
    },
    SECURITY: {
        "Passwords": "Passwords must have at least 14 characters and are never shared, written down or reused "
        "for another account.",
        "Two-factor authentication": "Two-factor authentication is required for email, the VPN and every system "
        "holding customer data.",
        "Laptops": "Company laptops are encrypted, lock after five minutes without use, and are never left in a "
        "parked car.",
        "Reporting incidents": "A lost device or a suspected breach is reported to the IT service desk within "
        "one hour of being noticed.",
        "Software installation": "Only software from the company catalogue may be installed; anything else needs "
        "written approval from IT security.",
        "Data retention": "Customer records are kept for six years after the end of the relationship and then "
        "securely deleted.",
    },
    GARDEN: {
        "Tomatoes": "Sow tomato seeds indoors in March, plant them out after the last frost, and feed them weekly "
        "once the first flowers appear.",
        "Roses": "Prune roses in late February, cutting each stem back to an outward-facing bud about a third of "
        "the way down.",
        "Lawn": "Mow the lawn weekly from April to September, never taking off more than a third of the grass "
        "height at once.",
        "Compost": "Turn the compost heap every month; it is ready in about nine months, when it is dark and "
        "crumbly.",
        "Watering": "Water in the early morning or evening, soaking the soil deeply twice a week rather than a "
        "little every day.",
        "Potatoes": "Plant seed potatoes 30 centimetres apart in April and earth them up when the shoots reach "
        "20 centimetres.",
    },
}

PARAPHRASES: dict[str, str] = {
    "Buildings cover": "The buildings are insured for up to GBP 450,000 against fire, flood, storm, subsidence "
    "and water leaks.",
    "Contents cover": "Contents are insured up to GBP 60,000, but a single valuable item is limited to GBP 2,500 "
    "unless the schedule lists it.",
    "Excess": "Each claim carries an excess of GBP 250, rising to GBP 1,000 for subsidence.",
    "Unoccupied home": "Theft and water leak cover ends once the home has stood empty for over 60 days in a row.",
    "Making a claim": "A loss has to be reported within 30 days, together with receipts or photos of what was "
    "damaged.",
    "Cancellation": "Cancelling in the first 14 days brings a full refund of the premium.",
    "Delivery": "Goods reach the Buyer's Leeds warehouse within ten working days of a purchase order.",
    "Price": "Prices stay fixed for a year, after which increases are limited to the retail price index.",
    "Payment terms": "Invoices are due within 45 days, and late payment costs 4 per cent over base rate.",
    "Defective goods": "Faulty Goods can be rejected within 21 days of delivery and are replaced at the "
    "Supplier's expense.",
    "Liability cap": "The Supplier's liability is limited to EUR 2,000,000 per contract year.",
    "Termination": "After two years, either side can terminate with 90 days' written notice.",
    "Passwords": "A password needs 14 characters or more and must not be shared, noted down or used twice.",
    "Two-factor authentication": "Email, the VPN and systems with customer data all need two-factor "
    "authentication.",
    "Laptops": "Laptops are encrypted, lock after five idle minutes and must not be left in a parked car.",
    "Reporting incidents": "Lost devices and suspected breaches go to the IT service desk within an hour.",
    "Software installation": "Software outside the company catalogue needs IT security's written approval.",
    "Data retention": "Customer records are deleted securely six years after the relationship ends.",
    "Tomatoes": "Start tomatoes indoors in March, move them outside after the last frost and feed them weekly "
    "from the first flowers.",
    "Roses": "Roses are pruned in late February, each stem cut by about a third to a bud facing outwards.",
    "Lawn": "From April to September the lawn is cut weekly, removing at most a third of its height.",
    "Compost": "Compost turned monthly is ready after roughly nine months, once dark and crumbly.",
    "Watering": "Give the soil a deep soak twice a week, in the early morning or evening, not a daily sprinkle.",
    "Potatoes": "Seed potatoes go in 30 centimetres apart in April and are earthed up at 20 centimetres.",
}

# Claims a section does not make, in its own words and names.
INVENTED: dict[str, str] = {
    "Buildings cover": "The buildings cover excludes flood and storm damage to the home.",
    "Excess": "The policyholder pays no excess on claims for subsidence.",
    "Unoccupied home": "Theft cover continues however long the home is left unoccupied.",
    "Cancellation": "The policyholder may cancel at any time and receive a full refund of the premium.",
    "Price": "The Supplier may raise the price of the Goods at any time during the first twelve months.",
    "Defective goods": "The Buyer pays for the replacement of defective Goods.",
    "Termination": "Either party may end the Agreement without notice in the first two years.",
    "Passwords": "Passwords may be shared with colleagues in the same team.",
    "Laptops": "Company laptops may be left unencrypted when used only at home.",
    "Data retention": "Customer records are kept for ever and never deleted.",
    "Roses": "Roses are pruned in midsummer, cutting every stem down to the ground.",
    "Watering": "Water the garden a little every day at midday.",
}

# Asked as the calibration set asks (grounding_data): openings and follow-ups the documents answer.
ANSWERABLE_DIALOGS: list[list[Question]] = [
    [answerable("How much are the buildings insured for?"), answerable("And the contents?"),
     answerable("What excess do I pay on a claim?")],
    [answerable("How do I make a claim on the home insurance?"), answerable("How long do I have?"),
     answerable("Can I cancel the policy?")],
    [answerable("When does the supplier deliver the goods?"), answerable("When must the buyer pay the invoices?"),
     answerable("What if the goods are faulty?")],
    [answerable("Can the price of the goods go up?"), answerable("How is the supply agreement ended?"),
     answerable("What is the supplier's liability capped at?")],
    [answerable("How long must a password be?"), answerable("Which systems need two-factor authentication?"),
     answerable("What do I do if I lose my laptop?")],
    [answerable("Can I install my own software on a work laptop?"), answerable("How long are customer records kept?")],
    [answerable("When do I sow tomato seeds?"), answerable("How often should they be fed?"),
     answerable("When should roses be pruned?")],
    [answerable("How often should I mow the lawn?"), answerable("How often should I water the garden?"),
     answerable("How far apart are seed potatoes planted?")],
]

UNANSWERABLE_ALONE: list[Question] = [
    unanswerable("Does the home insurance cover accidental damage to a television?"),
    unanswerable("Is legal expenses cover included in the policy?"),
    unanswerable("Which courier does the supplier use for deliveries?"),
    unanswerable("What discount does the buyer get for large orders?"),
    unanswerable("How often must passwords be changed?"),
    unanswerable("Which antivirus software does the company use?"),
    unanswerable("When should I plant garlic?"),
    unanswerable("How do I get rid of greenfly on roses?"),
    unanswerable("What is the tallest mountain in Africa?"),
    unanswerable("How many players are in a rugby union team?"),
    unanswerable("Who painted the Mona Lisa?"),
    unanswerable("What is the speed of sound in air?"),
]

UNANSWERABLE_DIALOGS: list[list[Question]] = [
    [answerable("What excess do I pay on a claim?"), unanswerable("Does it cover my bicycle away from home?"),
     unanswerable("Is there a no-claims discount?")],
    [answerable("How long does the buyer have to pay an invoice?"), unanswerable("Which bank account is it paid into?"),
     unanswerable("And who signs the purchase orders?")],
    [answerable("How long must a password be?"), unanswerable("Can I use a password manager?"),
     unanswerable("What about on my phone?")],
    [answerable("When do I sow tomato seeds?"), unanswerable("And cucumbers?"), unanswerable("Which variety grows best in pots?")],
]


def dialogs() -> list[list[Question]]:
    """Every dialog of the held-out set, lone questions as dialogs of one."""
    return ANSWERABLE_DIALOGS + UNANSWERABLE_DIALOGS + [[question] for question in UNANSWERABLE_ALONE]

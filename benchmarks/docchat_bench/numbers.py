"""`docchat bench numbers`: does the number check mark the numbers no source holds, and only those?

Eight passages of about 1,500 characters (a depot's stock list, a supplier's invoice, a leave
policy, sales by region, a project's timeline, a weather station's report, a rent schedule and an
annual report's summary: a few hundred numbers in every form) are given to every answer, as an
answer is given its eight retrieved passages. Three sets of answers, written for the bench:

- planted: answers with wrong numbers planted among right ones (a changed or swapped digit, a
  wrong total, a made-up year or day, a wrong percentage, a wrong scale);
- other forms: right answers stating the passages' numbers as the model may write them ("9492",
  "9.5 thousand", "$1.2bn", "38.6 %", "twenty-seven", "2026-05-14", list numbering, citation marks);
- figures: right answers stating a figure docchat computed (a sum, a share, a difference), given
  as `figures`, or a number only the question holds.

A mark is right when it falls on a planted number. Precision: right marks / marks; recall:
planted numbers marked / planted. Two paths over the same answers: the number check
(docchat.grounding.numbers) and today's, the citation check's number test
(docchat.grounding.citation_check.check, no embedder: an answer without marks is attributed
and its numbers compared with every passage; one with marks, with the passages it cites), whose
`absent_numbers` are its marks (placed at the first place its sentence writes them). Time: each
answer's median of ROUNDS checks, its passages read again each time, as an answer's check does.
"""

from __future__ import annotations

import json
import re
import statistics
import time
from dataclasses import dataclass

from docchat.grounding.citation_check import check
from docchat.grounding.numbers import check_numbers

ROUNDS = 5

PASSAGES = {
    1: "Stock list, Harbour Street depot, counted on 14 March 2026. Oak dining chairs (SKU-4471): 318 in stock, "
    "reorder level 120, unit cost £42.50. Pine bookcases (SKU-2290): 76 in stock, reorder level 40, unit cost "
    "£118.00. Walnut side tables (SKU-3105): 1,204 in stock after the February delivery of 950; unit cost "
    "£64.75. Linen cushions (SKU-0087): 2,640 in stock, sold in packs of four. Steel bed frames (SKU-5530): 58 in "
    "stock, 17 on back order, lead time six weeks. Rattan lamps (SKU-6612): 433 in stock, 12 returned as damaged "
    "this quarter. The depot holds 9,492 items in all across 6 aisles, a value of £418,907 at cost. Shrinkage for "
    "the year to date is 0.8%, against a target of 0.5%. The next full count is due on 12 June 2026; spot checks "
    "run every second Tuesday. Deliveries arrive between 7 a.m. and 11 a.m., Monday to Friday; the loading bay "
    "takes vehicles up to 7.5 tonnes. Slow movers, items unsold for 180 days, are moved to aisle 6 and marked "
    "down by 30 per cent. Ordering is through the supplier portal, version 4.2.1, with a minimum order of £250 "
    "per supplier. Stock is insured for £650,000; a claim carries an excess of £2,500. The depot manager signs "
    "off any write-off above £1,000. Forklift hours this quarter: 1,326, against 1,190 last quarter; the two "
    "trucks are serviced every 250 hours. Picking accuracy was 99.2% over 31,480 order lines, with 252 lines "
    "picked wrong. The depot runs two shifts, 06:00 to 14:00 and 14:00 to 22:00, with 23 staff on the early shift "
    "and 19 on the late one.",
    2: "Invoice INV-2026-0314 from Castell Timber Supplies to Harbour Furnishings Ltd, issued 2 March 2026, "
    "payment due within 30 days, by 1 April 2026. Line 1: 40 oak boards, 2.4 m long, at £36.20 each, £1,448.00. "
    "Line 2: 120 pine battens at £4.85 each, £582.00. Line 3: 15 sheets of walnut veneer at £89.90, £1,348.50. "
    "Line 4: delivery to the Harbour Street depot, £95.00. Subtotal £3,473.50; VAT at 20% £694.70; total due "
    "£4,168.20. A discount of 2.5% applies if paid within 10 days. Late payments carry interest at 8% a year "
    "above base rate, and a fixed fee of £70 for invoices over £1,000. Account number 48213977, sort code "
    "20-45-77. Questions about this invoice go to the accounts team, quoting the invoice number. Goods remain the "
    "property of Castell Timber Supplies until paid in full. Previous balance brought forward: £0.00. Credit "
    "limit on the account: £15,000, of which £11,526.80 remains available after this invoice. Castell's "
    "standard terms, edition 2024, apply; a copy was sent with the first order on 9 September 2024. Prices are "
    "held until 30 June 2026, after which the timber surcharge of 4.5% may be reviewed. Delivery note DN-77812 "
    "lists 175 items in 3 crates, a gross weight of 1,860 kg. The boards are FSC certified, licence "
    "FSC-C104233, felled in 2023 and kiln-dried to 12% moisture. Remittance advice should reach the accounts "
    "team within 2 working days of payment; a copy invoice costs £12.50. Orders placed by 1 p.m. are dispatched "
    "the same day.",
    3: "Leave policy, effective 1 January 2026. Full-time staff receive 27 days of paid annual leave a year, plus "
    "the 8 public holidays; part-time staff receive the same pro rata. After five years of service the allowance "
    "rises to 30 days. Up to 5 unused days may be carried over into the next leave year and must be used by 31 "
    "March. Leave is booked at least two weeks ahead for absences of more than three days. Sick pay: full pay for "
    "the first 10 working days in any rolling 12 months, then half pay for a further 20 days. A fit note is "
    "needed after seven calendar days of absence. Parental leave: up to 18 weeks unpaid per child, taken before "
    "the child's 18th birthday, in blocks of at least one week, with 21 days' notice. Compassionate leave: up to "
    "5 paid days on the death of a close relative. Volunteering: 2 paid days a year. Staff may buy up to 5 extra "
    "days of leave, paid for over 12 monthly deductions. Unused leave is not paid out, except on leaving, when "
    "each untaken day is paid at 1/260 of annual salary. Jury service is paid in full for up to 15 days. The "
    "leave year runs from 1 January to 31 December. Requests are answered within 5 working days; a refusal "
    "gives the reason in writing. Questions go to the HR team on extension 4410. In 2025 staff took an average of "
    "24.6 days of annual leave and 4.1 days of sick leave; 37 parents took parental leave. The policy is "
    "reviewed every 3 years, next in autumn 2028, after consulting the staff forum of 9 elected members. "
    "Managers must approve or refuse a request within 48 hours in the busy season.",
    4: "Sales by region, financial year 2025 (in £ thousands unless stated). North: 5,479.57, up 12.5% on 2024. "
    "South: 3,912.40, down 3.1%. East: 2,086.05, up 0.4%. West: 4,730.00, up 7.9%. Total: 16,208.02, against a "
    "budget of 15,900. The best quarter was Q4, with 4,611.3 in sales; the weakest was Q2, with 3,702.8. Online "
    "orders made up 38.6% of sales, up from 31.2% a year earlier. The average order value was £86.40 (2024: "
    "£81.15). 41,806 orders were placed, 2,930 of them returned (7.0%). The North region opened 3 new stores, "
    "taking it to 19; the South closed 2, leaving 14. Staff costs were 22.4% of sales. The regional bonus pool "
    "is 1.5% of sales above budget, paid in April 2026. Forecast for 2026: 17.1 million in total, a rise of "
    "about 5.5%. Returns cost £212.6 thousand to process, £72.56 per order returned. Gift cards sold: 6,118, "
    "worth 305.9; of those, 87% were redeemed by the end of the year. Delivery charges brought in 1,032.75. "
    "Click-and-collect orders grew by 24% to 9,870. Market share in furniture rose to 6.3% from 5.9%, by the "
    "trade body's count of 412 retailers. The North's best store, Leeds, took 811.4 on its own; the smallest, "
    "Whitby, 97.35. Marketing spend was 1,118.7, or 6.9% of sales, of which 58% went online. Prices rose by an "
    "average of 3.8% on 1 February 2025. Stock days fell from 71 to 64. The East's figures include the "
    "Norwich outlet, which traded for only 7 months of the year before its refit, and the pop-up shop at "
    "Cambridge station, open from 1 October to 24 December.",
    5: "Project Kestrel: moving the Harbour Street depot to the Ferry Road site. The board approved the move on "
    "18 November 2025 with a budget of £2.75 million, including a contingency of £240,000. Phase 1, fitting out "
    "the new building, runs from 5 January 2026 to 27 March 2026. Phase 2, moving stock, is planned for 13-24 "
    "April 2026, with the old depot closed to customers for 9 working days. Phase 3, handing back the old lease, "
    "ends on 30 June 2026. The new site has 6,800 square metres of floor space against 4,350 today, and 48 "
    "loading bays. The project team is 14 people, 3 of them contractors. Spend to the end of February 2026 was "
    "£1,084,500, or 39% of budget. The racking contract went to Nordrack AS for £612,000 after 4 bids. The move "
    "is expected to save £310,000 a year in rent and running costs, paying back in about 8.9 years. Risks: a "
    "2-week delay in the electrical work, already reported on 3 March 2026, and the supply of 1,150 pallet racks, "
    "of which 860 have arrived. The fire certificate is due by 20 March 2026. Staff parking grows from 35 spaces "
    "to 90. A shuttle bus will run every 20 minutes from the station for the first 6 months. The old depot's "
    "lease ends on 29 September 2026; dilapidations are estimated at £145,000. Energy use at the new site is "
    "expected to fall by a third, with 520 solar panels on the roof giving 210 kW. Progress is reported to the board "
    "each month; the last report, on 10 March 2026, rated the project amber.",
    6: "Field report, Glen Arden weather station, spring 2026. Rainfall in March was 142.6 mm, against a 30-year "
    "average of 118.0 mm; April had 96.3 mm. The wettest day was 21 March, with 31.4 mm in 24 hours. The highest "
    "temperature was 17.8 °C on 29 April and the lowest −4.2 °C on 2 March. The river gauge at Arden Bridge "
    "peaked at 2.31 m on 22 March, 0.46 m below the flood warning level. Wind gusts reached 87 km/h during storm "
    "Nessa. Sunshine: 104 hours in March, 151 in April. The station sits at 312 m above sea level, 12.5 km "
    "north-west of the town. Readings are logged every 15 minutes and uploaded at 06:00 and 18:00 each day. Of "
    "the 5,856 readings due in the two months, 5,821 were received, 99.4%. The rain gauge was recalibrated on 8 "
    "April after reading 3% low. Snow lay on 4 mornings. Next service visit: 14 May 2026. Data from 1994 onwards "
    "is kept in the archive. The soil temperature at 30 cm averaged 6.1 °C in March and 9.4 °C in April. "
    "Relative humidity averaged 83%. The battery was replaced on 16 March; the solar panel gives 40 W. Frost "
    "was recorded on 11 nights in March and 3 in April, the last on 19 April. The mean air pressure was "
    "1,008.2 hPa, falling to 962.7 hPa as storm Nessa passed on 21 March. The station's records go back to 1958, "
    "when the first gauge was set up by the river board. Volunteers read the back-up manual gauge at 09:00; "
    "its March total, 139.9 mm, was within 2% of the automatic one. A new wind vane, costing £1,480, is due "
    "to be fitted at the next visit.",
    7: "Rent schedule for Unit 7, Ferry Road Trading Estate. Term: 15 years from 1 July 2026, with a tenant's "
    "break at the end of year 10 on 6 months' notice. Annual rent: £186,000 for the first 5 years, payable "
    "quarterly in advance (£46,500 a quarter) on 25 March, 24 June, 29 September and 25 December. Rent-free "
    "period: the first 9 months. Rent reviews: upward only, on the 5th and 10th anniversaries, to open market "
    "rent. Rent deposit: £93,000, half a year's rent, returned within 2 months of the end of the term. Service "
    "charge: estimated at £3.40 per square foot for 2026-27, capped at a 4% rise a year. The unit is 73,200 "
    "square feet, with 2 hectares of yard. Insurance rent: £11,860 a year. Late rent carries interest at 4% "
    "above base rate from the 14th day after the due date. The landlord, Ferry Road Estates plc, may re-enter "
    "if rent is 21 days unpaid. Business rates are the tenant's, estimated at £201,300 for 2026. The tenant may "
    "sublet up to 25% of the floor area with consent, not to be unreasonably withheld. Repairs: the tenant "
    "keeps the inside in good repair; the roof was renewed in 2019 under a 20-year guarantee. Electric vehicle "
    "chargers: 12, metered to the tenant. Alterations need the landlord's consent, except internal partitions "
    "under 3 metres high. The tenant's guarantor, Harbour Furnishings Group, stands behind the lease until the "
    "first review. Parking: 64 spaces, 6 of them for disabled drivers. The estate's gates open from 05:30 to "
    "23:00 every day, and the service road takes lorries of up to 44 tonnes.",
    8: "Harbour Furnishings Group, annual report 2025, at a glance. Revenue: $1.2 billion, up from $1.07 billion in "
    "2024. Operating profit: $96.4 million, a margin of 8.0%. Employees: 4,318 at year end, in 14 countries. "
    "Founded in 1987 in Bristol, listed in 2004. Stores: 212, of which 57 opened in the last five years. The "
    "group sold 2.3 million pieces of furniture, 61% of them made in its own workshops. Dividend: 14.2 pence a "
    "share, up 6%. Carbon emissions fell by 11% to 38,450 tonnes; the target is a 50% cut by 2030 against 2019. "
    "Net debt: $310 million, 1.4 times earnings before interest, tax, depreciation and amortisation. Capital "
    "spending: $58 million, mostly on the Ferry Road depot and 9 store refits. The board has 11 directors, 5 of "
    "them women. The chair, Ines Vaughan, joined the board on 1 September 2021. Annual general meeting: 21 May "
    "2026 at 11:00. Customer satisfaction: 4.6 out of 5 from 18,200 reviews. Staff turnover fell to 13.5% from "
    "16.2%. Online sales passed $400 million for the first time, 34% of revenue. The apprenticeship scheme took "
    "on 142 apprentices, 40 more than in 2024. Return on capital employed was 11.8%, against 10.9% in 2024. "
    "Earnings per share: 31.7 cents. The group's pension fund had a surplus of $27 million at the year end. "
    "Average delivery time fell to 4.2 days from 5.1. The share price closed the year at 428 pence, 17% higher. "
    "The group's 3 factories, in Bristol, Wrexham and Porto, ran at 82% of capacity.",
}


@dataclass(frozen=True)
class Answer:
    text: str
    planted: tuple[str, ...] = ()  # the wrong numbers, as the answer writes them
    figures: tuple[float, ...] = ()
    question: str = ""


PLANTED = [
    Answer("The Harbour Street depot holds 9,429 items in all, worth £418,907 at cost.", ("9,429",)),
    Answer("There are 1,204 walnut side tables in stock after the February delivery of 905 tables.", ("905",)),
    Answer("The invoice total is £4,186.20, including VAT of £694.70 at 20%.", ("£4,186.20",)),
    Answer("The subtotal is £3,473.50, and a discount of 3.5% applies if the invoice is paid within 10 days.",
           ("3.5%",)),
    Answer("Full-time staff get 28 days of paid annual leave a year, plus 8 public holidays.", ("28",)),
    Answer("Sick pay is full pay for the first 10 working days, then half pay for a further 25 days.", ("25",)),
    Answer("Parental leave is up to 16 weeks unpaid per child, taken in blocks of at least a week.", ("16",)),
    Answer("North sales were £5,497.57 thousand in 2025, up 12.5% on 2024.", ("5,497.57",)),
    Answer("North sales came to £5,470 thousand, the most of any region.", ("5,470",)),
    Answer("Total sales were £16,208.02 thousand against a budget of £15,090 thousand.", ("15,090",)),
    Answer("Online orders made up 36.8% of sales in 2025, up from 31.2% a year earlier.", ("36.8%",)),
    Answer("The board approved Project Kestrel on 18 November 2024, with a budget of £2.75 million.",
           ("18 November 2024",)),
    Answer("Phase 1 runs from 5 January 2026 to 27 March 2026, and Phase 3 ends on 30 July 2026.", ("30 July 2026",)),
    Answer("Spend to the end of February 2026 was £1,084,500, or 42% of the budget.", ("42%",)),
    Answer("Rainfall in March was 142.6 mm, against a 30-year average of 128.0 mm.", ("128.0",)),
    Answer("The river gauge at Arden Bridge peaked at 2.31 m on 23 March.", ("23 March",)),
    Answer("The lease runs for 15 years from 1 July 2026, at a rent of £168,000 a year for the first 5 years.",
           ("£168,000",)),
    Answer("The group's revenue was $1.2 billion in 2025, up from $1.04 billion in 2024.", ("$1.04 billion",)),
    Answer("Harbour Furnishings was founded in 1978 in Bristol and listed in 2004.", ("1978",)),
    Answer("Carbon emissions fell by 11% to 38,540 tonnes, and the target is a 50% cut by 2030.", ("38,540",)),
    Answer("The annual general meeting is on 12 May 2026 at 11:00.", ("12 May 2026",)),
    Answer("Shrinkage for the year to date is 0.9%, against a target of 0.5%.", ("0.9%",)),
    Answer("The average order value was £86.40, against £84.15 in 2024; 41,806 orders were placed and 2,390 of "
           "them were returned.", ("£84.15", "2,390")),
    Answer("Net debt was $310 million, or 1.6 times earnings before interest, tax, depreciation and amortisation.",
           ("1.6",)),
    Answer("The operating profit was $96.4 million, a margin of 8.4%.", ("8.4%",)),
    Answer("Wind gusts reached 78 km/h during storm Nessa.", ("78",)),
    Answer("The racking contract went to Nordrack AS for £612,000 after 6 bids.", ("6",)),
    Answer("Revenue was $1.2 billion, and online sales passed $400 million, 43% of revenue.", ("43%",)),
    Answer("The group sold 2.3 million pieces of furniture and paid a dividend of 14.8 pence a share.", ("14.8",)),
    Answer("The unit is 72,300 square feet, with 2 hectares of yard.", ("72,300",)),
    Answer("The rent deposit is £39,000, half a year's rent.", ("£39,000",)),
    Answer("The rain gauge was recalibrated on 8 April 2025 after reading 3% low.", ("8 April 2025",)),
    Answer("Harbour Furnishings has 4,381 employees in 14 countries.", ("4,381",)),
    Answer("Gift cards worth £305.9 thousand were sold, and 78% of them were redeemed.", ("78%",)),
    Answer("Rainfall in April was 69.3 mm, well below March's 142.6 mm.", ("69.3",)),
    Answer("The fire certificate for the new site is due by 20 April 2026.", ("20 April 2026",)),
    Answer("Operating profit rose to $94.6 million in 2025.", ("$94.6 million",)),
    Answer("The depot's 9,492 items are worth £481,907 at cost.", ("£481,907",)),
]

OTHER_FORMS = [
    Answer("The depot holds 9492 items in all."),
    Answer("The depot holds about 9.5 thousand items, worth roughly £419 thousand at cost."),
    Answer("Revenue was $1.2bn in 2025, up from $1,070 million the year before."),
    Answer("The group sold 2.3 million pieces; sixty-one per cent were made in its own workshops."),
    Answer("Online orders were 38.6 % of sales (31.2 % a year earlier)."),
    Answer("North sales rose by 12.5 per cent to £5.48 million."),
    Answer("North's sales of £5,480k were the highest of any region."),
    Answer("Full-time staff receive twenty-seven days of annual leave, rising to thirty after five years of service."),
    Answer("Parental leave must be taken before the child's eighteenth birthday."),
    Answer("The river gauge peaked on the 22nd of March at 2.31 m."),
    Answer("The next service visit is on 2026-05-14."),
    Answer("The annual general meeting is on May 21, 2026 at 11 a.m."),
    Answer("The lowest temperature was −4.2 °C, on 02/03/2026."),
    Answer("Rent is £46,500 a quarter, £186k a year."),
    Answer("The unit has 73,200 sq ft, and the service charge is estimated at £3.40 per square foot, rising by no "
           "more than 4 % a year."),
    Answer("Shrinkage is 0.8 per cent, above the 0.5 per cent target."),
    Answer("VAT of £694.70 brings the invoice to £4,168.20, due by 1 April 2026."),
    Answer("The new site has 6,800 m² of floor space and 48 loading bays, against 4,350 m² today."),
    Answer("Project Kestrel's budget is £2,750,000, with a contingency of £240k."),
    Answer("Carbon emissions fell 11% to about 38.5 thousand tonnes."),
    Answer("Staff costs came to 22.4% of sales, and online orders to roughly 39%."),
    Answer("Two lines sell slowly:\n1. Steel bed frames: 58 in stock, 17 on back order.\n2. Rattan lamps: 433 in "
           "stock, 12 returned as damaged."),
    Answer("There are 1,204 walnut side tables[1], at a unit cost of £64.75 [1]. East sales rose 0.4% [4]."),
    Answer("The weather archive holds data from 1994 onwards, and the station is 312 m above sea level."),
    Answer("Invoice INV-2026-0314 is due by 1 April 2026, 30 days after it was issued."),
    Answer("The lowest temperature, minus 4.2 °C, was on the 2nd of March; the highest was 17.8 °C on 29 April."),
    Answer("The tenant's break is at the end of the tenth year, on six months' notice."),
    Answer("The 2025 forecast total for 2026 is £17.1 million, about 5.5% more."),
    Answer("Harbour Furnishings employs 4,318 people in 14 countries and runs 212 stores."),
    Answer("The invoice was issued on 2 March 2026 and must be paid by 1 April; paying within ten days earns a "
           "2.5 % discount."),
    Answer("Staff can carry over up to five unused days, which must be used by 31 March."),
    Answer("Online sales passed $0.4 billion, about a third of revenue."),
    Answer("The station logged 5,821 of the 5,856 readings due (99.4%)."),
    Answer("Phase 2 moves the stock between 13 and 24 April 2026."),
    Answer("The annual general meeting starts at 11am on 21 May."),
    Answer("The rent is £186,000 a year, that is £46.5k a quarter."),
]

FIGURES = [
    Answer("North and West together sold £10,209.57 thousand in 2025.", figures=(5479.57 + 4730.00,)),
    Answer("The North region made 33.8% of all sales.", figures=(5479.57 / 16208.02 * 100,)),
    Answer("The three lines of goods on the invoice come to £3,378.50 before delivery and VAT.",
           figures=(1448.00 + 582.00 + 1348.50,)),
    Answer("Sales were £308.02 thousand above the budget of £15,900 thousand.", figures=(16208.02 - 15900,)),
    Answer("The 2,640 cushions in stock make 660 packs of four.", figures=(2640 / 4,)),
    Answer("Rainfall over March and April totalled 238.9 mm.", figures=(142.6 + 96.3,)),
    Answer("The regional bonus pool comes to about £4.62 thousand.", figures=((16208.02 - 15900) * 0.015,)),
    Answer("Of the 1,150 pallet racks, 290 are still to arrive.", figures=(1150 - 860,)),
    Answer("Yes: 2,930 orders were returned in 2025, far more than 500.",
           question="Were more than 500 orders returned in 2025?"),
    Answer("A 10% rise on the 2025 total of £16,208.02 thousand would be £17,828.82 thousand.",
           figures=(16208.02 * 1.1,), question="What would a 10% rise on the 2025 total be?"),
    Answer("Yes: sixty days after 2 March 2026 is 1 May 2026.",
           question="Is 1 May 2026 sixty days after the invoice date?"),
]

SETS = {"planted": PLANTED, "other forms": OTHER_FORMS, "figures": FIGURES}


def _new_marks(answer: Answer) -> list[tuple[int, int]]:
    result = check_numbers(answer.text, sources=list(PASSAGES.values()), figures=answer.figures,
                           question=answer.question)
    return [(number.start, number.end) for number in result.not_found]


def _old_marks(answer: Answer) -> list[tuple[int, int]]:
    """Today's marks, placed where the answer writes them (the check keeps no offsets): each
    absent number of a sentence at its first place in that sentence."""
    grounding = check(answer.text, PASSAGES, embed=None)
    marks = []
    for sentence in grounding.sentences:
        at = max(answer.text.find(sentence.text), 0)
        for written in sentence.absent_numbers:
            start, end = _place(answer.text[at:], written)
            marks.append((at + start, at + end) if start >= 0 else (-1, -1))
    return marks


def _planted_places(answer: Answer) -> list[tuple[int, int]]:
    """Where the answer writes each planted number (as a whole number: the "6" of "6 bids", not of "£612,000")."""
    return [_place(answer.text, written) for written in answer.planted]


def _place(text: str, written: str) -> tuple[int, int]:
    found = re.search(r"(?<![\d.,])" + re.escape(written) + r"(?!\d)", text)
    return (found.start(), found.end()) if found else (-1, -1)


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _score(marks_of) -> dict:
    """Precision, recall and the marks on each set for one path (`marks_of(answer)`)."""
    right = marks = hit = planted = 0
    by_set: dict[str, int] = {}
    for name, answers in SETS.items():
        by_set[name] = 0
        for answer in answers:
            places, made = _planted_places(answer), marks_of(answer)
            marks += len(made)
            by_set[name] += len(made)
            right += sum(any(_overlaps(mark, place) for place in places) for mark in made)
            hit += sum(any(_overlaps(mark, place) for mark in made) for place in places)
            planted += len(places)
    return {"precision": round(right / marks, 3) if marks else 1.0, "recall": round(hit / planted, 3),
            "marks": marks, "right_marks": right, "planted_marked": hit, "marks_by_set": by_set}


def _timing(marks_of) -> dict:
    """p50 and p95 over the answers of each answer's median time of ROUNDS checks: the median
    leaves out a run another process on the machine's two cores took the time of. Wall-clock
    time, and the process's CPU time (which waiting for a core does not count)."""
    every = [answer for answers in SETS.values() for answer in answers]
    wall: list[list[float]] = [[] for _ in every]
    cpu: list[list[float]] = [[] for _ in every]
    for _ in range(ROUNDS):
        for answer, wall_times, cpu_times in zip(every, wall, cpu):
            started, cpu_started = time.perf_counter(), time.process_time()
            marks_of(answer)
            cpu_times.append((time.process_time() - cpu_started) * 1000)
            wall_times.append((time.perf_counter() - started) * 1000)
    return {**_percentiles("ms", wall), **_percentiles("cpu_ms", cpu)}


def _percentiles(name: str, runs: list[list[float]]) -> dict:
    medians = [statistics.median(times) for times in runs]
    return {f"{name}_p50": round(statistics.median(medians), 3),
            f"{name}_p95": round(statistics.quantiles(medians, n=20)[18], 3)}


PATHS = {"number check": _new_marks, "citation check (today)": _old_marks}


def run_numbers_bench(*, as_json: bool = False) -> dict:
    result: dict = {
        "answers": {name: len(answers) for name, answers in SETS.items()},
        "planted_numbers": sum(len(answer.planted) for answer in PLANTED),
        "passages": len(PASSAGES),
        "passage_characters_mean": round(statistics.mean(len(text) for text in PASSAGES.values())),
    }
    for path, marks_of in PATHS.items():
        result[path] = {**_score(marks_of), **_timing(marks_of)}
    if as_json:
        print(json.dumps(result))
        return result
    _print(result)
    return result


def _print(result: dict) -> None:
    answers = result["answers"]
    print(f"{sum(answers.values())} answers ({answers['planted']} with {result['planted_numbers']} planted wrong "
          f"numbers, {answers['other forms']} right in other forms, {answers['figures']} stating computed figures "
          f"or the question's numbers), each given {result['passages']} passages of "
          f"~{result['passage_characters_mean']:,} characters")
    print(f"{'path':<26}{'precision':>10}{'recall':>8}{'marks':>7}   {'false marks: other forms / figures':>34}"
          f"{'p50 ms':>9}{'p95 ms':>9}{'CPU p50 / p95 ms':>19}")
    for path in PATHS:
        row = result[path]
        false = row["marks_by_set"]
        print(f"{path:<26}{row['precision']:>10.3f}{row['recall']:>8.3f}{row['marks']:>7}   "
              f"{false['other forms']:>27} / {false['figures']:<4}{row['ms_p50']:>9.2f}{row['ms_p95']:>9.2f}"
              f"{row['cpu_ms_p50']:>12.2f} / {row['cpu_ms_p95']:.2f}")

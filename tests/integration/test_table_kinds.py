"""Tables of shares, of places and of many rows an entity (issue 55, stop 64), over real files (a
workbook written by openpyxl, a Word table by python-docx, a CSV) ingested by the real services:
"the Greens' average share" of a column of shares, "below 30 percent" a bound in it, "where did
she do best" as the state ranked first, "department" as the column Department beside its
number `dept`, a fleet by its name beside its code and a car by its Make beside its Model, "sleeps"
of sleep_total, "earn" of earnings, "of the men and of the women" a figure each, and "how many
hospices" of a table holding a row a hospice and measure; and the
readings that stay unsure ("what share of the polls…" asks a fraction of the rows)."""

from __future__ import annotations

import pytest

from tests.integration.libraries import library_of
from tests.integration.test_table_names import _book, _csv, _word

# Made up for this test; shaped as the public tables people keep are.
POLLS = [("ALP", "Lib", "Green", "sampleSize", "org"), (39.5, 44.5, 8.5, 1450, "Morgan"),
         (46.0, 40.0, 7.0, 1100, "Newspoll"), (52.0, 36.5, 6.5, 1200, "Newspoll"), (49.0, 38.0, 9.0, 1000, "Galaxy")]
VOTES = [("state", "clinton", "trump"), ("California", 61.7, 31.6), ("Texas", 43.2, 52.2),
         ("District of Columbia", 90.9, 4.1), ("Ohio", 43.5, 51.7)]
DEPARTMENTS = [("dept", "Region", "Department", "Literacy", "Area"), (1, "E", "Ain", 37, 5762),
               (55, "E", "Meuse", 74, 6233), (75, "C", "Seine", 67, 762), (29, "W", "Finistere", 23, 6733)]
# A row a hospice, measure and type, as CMS publishes its quality measures.
CARE = [("facility_name", "measure_abbr", "score", "type")] + [
    (hospice, measure, score, kind) for hospice in ("BAPTIST HOSPICE", "SAAD HOSPICE SERVICES", "HOSPICE FAMILY CARE")
    for measure in ("pain_screening", "visits_imminent") for score, kind in ((88.0, "observed"), (120, "denominator"))]
# A fleet's code beside its name; a car's Model beside its Make, which holds it.
FLEETS = [("code", "Armada", "ships", "soldiers"), ("A1", "Portugal", 12, 3330), ("A2", "Biscay", 14, 1937),
          ("A3", "Castilla", 16, 2458)]
CARS = [("Manufacturer", "Model", "Price", "Make"), ("Acura", "Integra", 15.9, "Acura Integra"),
        ("Audi", "100", 37.7, "Audi 100"), ("Mercedes-Benz", "300E", 61.9, "Mercedes-Benz 300E")]
SLEEP = [("name", "sleep_total", "sleep_rem"), ("Cheetah", 12.1, None), ("Little brown bat", 19.9, 2.0),
         ("Cow", 4.0, 0.7)]
EARNINGS = [("earnings", "gender", "state"), (40000, "male", "CA"), (25000, "female", "CA"), (90000, "male", "NY"),
            (61000, "female", "TX")]


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    yield from library_of(tmp_path_factory.mktemp("kinds"), {
        "polls.xlsx": _book(POLLS), "votes.docx": _word(VOTES), "departments.csv": _csv(DEPARTMENTS),
        "care.csv": _csv(CARE), "fleets.docx": _word(FLEETS), "cars.xlsx": _book(CARS), "sleep.csv": _csv(SLEEP),
        "earnings.csv": _csv(EARNINGS)})


def figure(library, question: str, document: str):
    in_scope = [(id_, name) for id_, name in library.retrieval.in_scope(None) if name == document]
    return library.figures.figure(question, in_scope)


@pytest.mark.parametrize(("question", "document", "value"), [
    ("What was the Greens' average share across all the polls?", "polls.xlsx", 7.75),
    ("What was the Liberals' highest share in a Newspoll poll?", "polls.xlsx", 40.0),
    ("What share of the vote did Trump get in Ohio?", "votes.docx", 51.7),
    ("How many departments had a literacy rate below 30 percent?", "departments.csv", 1),
    ("What is the area of the smallest department?", "departments.csv", 762),
    ("How many hospices are in the table?", "care.csv", 3),
    ("How many hours does the cheetah sleep?", "sleep.csv", 12.1),  # sleep_total, the word alone
    ("What did the people from California earn altogether?", "earnings.csv", 65000),
])
def test_a_figure_of_shares_places_and_entities_is_stated(library, question, document, value):
    found = figure(library, question, document)

    assert found is not None and found.unread == () and found.value == value


@pytest.mark.parametrize(("question", "document", "groups"), [
    ("Where did Clinton get her highest share of the vote?", "votes.docx", (("District of Columbia", 90.9),)),
    ("Which department had the highest literacy rate?", "departments.csv", (("Meuse", 74),)),  # not its number, 55
    ("Which fleet had the most soldiers?", "fleets.docx", (("Portugal", 3330),)),  # not its code, A1
    ("Which car is the most expensive?", "cars.xlsx", (("Mercedes-Benz 300E", 61.9),)),
    ("Which mammal sleeps the most?", "sleep.csv", (("Little brown bat", 19.9),)),
    ("What are the average earnings of the men and of the women?", "earnings.csv",
     (("male", 65000), ("female", 43000))),
])
def test_the_row_ranked_first_or_each_group_is_named(library, question, document, groups):
    found = figure(library, question, document)

    assert found.unread == () and found.groups == groups


@pytest.mark.parametrize(("question", "document"), [
    # a fraction of the rows: no query here computes it, so "share" stays unread
    ("What share of the polls had the Greens above 7?", "polls.xlsx"),
    ("What percentage of the departments had a literacy below 40 percent?", "departments.csv"),
    # a sample size is no share: "percent" of it is not read
    ("What was the average sample size in percent?", "polls.xlsx"),
])
def test_a_fraction_of_the_rows_is_not_given_as_a_count(library, question, document):
    found = figure(library, question, document)

    assert found is None or found.unread

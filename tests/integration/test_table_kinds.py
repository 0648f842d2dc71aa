"""Tables of shares, of places, of many rows an entity, and questions put in their own words
(issue 55, stop 64), over real files (a workbook written by openpyxl, a Word table by
python-docx, a CSV) ingested by the real services: "the Greens' average share" of a column of
shares, "below 30 percent" a bound in it, "where did she do best" as the state ranked first,
"department" as the column Department beside its number `dept`, a fleet by its name beside its
code and a car by its Make beside its Model, "sleeps" of sleep_total, "earn" of earnings, "of the
men and of the women" a figure each, "how many hospices" of a row a hospice and measure, "how
many players" of nba-players (its rows, not a jersey Number added up), a stock's closing, highest
and lowest price, "the first 2 months listed", "weren't women" of a sex written F beside a last
initial F, "not Democrats" of a party written D, "built in the 1950s" of year_built, "under 25
minutes" of run_time_minutes, "the fastest" its lowest time, "more than a million", "life expectancy" of life_exp_at_birth, "which month" of a row a month; and the readings that stay unsure ("what
share of the polls…" asks a fraction of the rows; "people killed" where no column counts deaths)."""

from __future__ import annotations

import pytest

from tests.integration.libraries import figure, library_of
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
# A row a player, with a jersey Number (no count of players); a row a poll, with its sample size n.
PLAYERS = [("first_name", "last_name", "team", "number", "height"), ("LeBron", "James", "Lakers", 23, 81),
           ("Anthony", "Davis", "Lakers", 3, 82), ("Steven", "Adams", "Thunder", 12, 84)]
POLLED = [("PollTaker", "n", "Obama", "McCain"), ("Gallup", 2700, 49, 43), ("Gallup", 2800, 47, 45),
          ("Zogby", 2020, 45, 47)]
HOUSES = [("address", "price", "bed"), ("1 Learned Pl", 1520000, 3), ("2 Oak St", 400000, 3), ("5 Elm Rd", 700000, 5)]
# Newest first, as a stock's monthly prices are often listed.
STOCK = [("date", "open", "high", "low", "close"), ("2014-02-03", 91.92, 95.77, 89.25, 95.03),
         ("2014-01-02", 100.6, 101.22, 91.7, 92.16), ("2013-12-02", 94.0, 101.74, 93.0, 101.2),
         ("2013-11-01", 88.0, 95.0, 86.5, 93.5)]
AVIATION = [("year", "airacc", "airfatal", "hijack"), (1969, 35, 1000, 86), (1985, 42, 2010, 12), (1972, 55, 2370, 41)]
# A last initial beside the sex: F of either; NA among states' codes is no state.
RUNNERS = [("race", "first_name", "last_initial", "sex", "state"), ("5k", "Jeff", "A", "M", "WI"),
           ("half", "Julie", "F", "F", "WI"), ("half", "Wren", "T", "F", "MN"), ("half", "Tom", "F", "M", "NA"),
           ("half", "Sam", "B", "M", "TX")]
LEGISLATORS = [("name", "party", "state", "years"), ("Ackerman, Gary", "D", "NY", 30), ("Adams, Sandra", "R", "FL", 2),
               ("Sanders, Bernie", "I", "VT", 21), ("Boxer, Barbara", "D", "CA", 30)]
HOMES = [("address", "price", "year_built"), ("1 Learned Pl", 1520000, 1972), ("2 Oak St", 400000, 1955),
         ("3 Pine Rd", 350000, 1951), ("5 Elm Rd", 700000, 1960)]
RUNS = [("race", "bib_num", "run_time_minutes"), ("5k", 1690, 24.5), ("5k", 1691, 31.0), ("5k", 1692, 22.1),
        ("half", 1693, 95.0)]
STATIONS = [("name", "passengers"), ("Argentine", 2079212), ("Bastille", 8069243), ("Cluny", 950000)]
COUNTRIES = [("country", "birth_rate", "life_exp_at_birth", "gdp", "gdp_per_capita"),
             ("Monaco", 6.65, 89.57, 7.7, 186000), ("Japan", 7.93, 84.74, 4900, 39000), ("Chad", 36.6, 49.81, 11, 700)]
# A row a month, dated the month's first day; a row a day beside its day_of_week.
MONTHLY = [("date", "wounds", "disease"), ("1854-11-01", 280, 1000), ("1854-12-01", 160, 1200),
           ("1855-01-01", 100, 1440)]
DAILY = [("date", "births", "day_of_week"), ("2015-09-08", 13000, 2), ("2015-09-09", 13949, 3),
         ("2015-09-10", 12800, 4)]
EARNINGS = [("earnings", "gender", "state"), (40000, "male", "CA"), (25000, "female", "CA"), (90000, "male", "NY"),
            (61000, "female", "TX")]


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    yield from library_of(tmp_path_factory.mktemp("kinds"), {
        "polls.xlsx": _book(POLLS), "votes.docx": _word(VOTES), "departments.csv": _csv(DEPARTMENTS),
        "care.csv": _csv(CARE), "fleets.docx": _word(FLEETS), "cars.xlsx": _book(CARS), "sleep.csv": _csv(SLEEP),
        "earnings.csv": _csv(EARNINGS), "nba-players.docx": _word(PLAYERS), "polls-2008.csv": _csv(POLLED),
        "houses.xlsx": _book(HOUSES), "stock.xlsx": _book(STOCK), "aviation.csv": _csv(AVIATION),
        "runners.csv": _csv(RUNNERS), "legislators.docx": _word(LEGISLATORS), "homes.xlsx": _book(HOMES),
        "runs.csv": _csv(RUNS), "stations.csv": _csv(STATIONS), "countries.csv": _csv(COUNTRIES),
        "monthly.xlsx": _book(MONTHLY), "daily.csv": _csv(DAILY)})


@pytest.mark.parametrize(("question", "document", "value"), [
    ("What was the Greens' average share across all the polls?", "polls.xlsx", 7.75),
    ("What was the Liberals' highest share in a Newspoll poll?", "polls.xlsx", 40.0),
    ("What share of the vote did Trump get in Ohio?", "votes.docx", 51.7),
    ("How many departments had a literacy rate below 30 percent?", "departments.csv", 1),
    ("What is the area of the smallest department?", "departments.csv", 762),
    ("How many hospices are in the table?", "care.csv", 3),
    ("How many hours does the cheetah sleep?", "sleep.csv", 12.1),  # sleep_total, the word alone
    ("What did the people from California earn altogether?", "earnings.csv", 65000),
    # what the document's name says its rows are: counted, not a Number or an n added up
    ("How many players are on the Lakers' roster?", "nba-players.docx", 2),
    ("How many of the polls were Gallup's?", "polls-2008.csv", 2),
    # a stock's "closing price" is its close, "the highest price" its high; "listed": in the table's order
    ("What was the average closing price in 2014?", "stock.xlsx", (95.03 + 92.16) / 2),
    ("What's the highest price the stock reached?", "stock.xlsx", 101.74),
    ("What was the stock's lowest trading price?", "stock.xlsx", 86.5),
    ("What was the average close over the first 2 months listed?", "stock.xlsx", (95.03 + 92.16) / 2),
    ("What was the average close over the first 2 months?", "stock.xlsx", (93.5 + 101.2) / 2),
    # "weren't" is "were not", and "women" the sex F, not the last initial F
    ("How many of the half runners weren't women?", "runners.csv", 2),
    ("How many different states did the runners come from?", "runners.csv", 3),  # NA is none of them
    # a party as US tables write it; a decade of a column of years; a bound by its column's unit; "a million"
    ("How many of the legislators are not Democrats?", "legislators.docx", 2),
    ("How many of the houses were built in the 1950s?", "homes.xlsx", 2),
    ("How many people ran the 5k in under 25 minutes?", "runs.csv", 2),
    ("How many stations had more than a million passengers?", "stations.csv", 2),
    # a time column: "fastest" its lowest, "slowest" its highest
    ("What was the fastest 5k time?", "runs.csv", 22.1),
    ("What was the slowest time in the 5k?", "runs.csv", 31.0),
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
    ("What was the average price by number of bedrooms?", "houses.xlsx", (("3", 960000), ("5", 700000))),
    ("Which year saw the most hijackings?", "aviation.csv", (("1969", 86),)),  # hijack, its acts counted
    # a name said without its qualifier, where no other name begins so (gdp beside gdp_per_capita does)
    ("Which country has the highest life expectancy?", "countries.csv", (("Monaco", 89.57),)),
    ("Which country has the highest gdp?", "countries.csv", (("Japan", 4900),)),
    # "which month", "which day" of a row a month or a day: its date ranked first
    ("Which month had the most deaths from disease?", "monthly.xlsx", (("1855-01-01", 1440),)),
    ("On which day were the most babies born?", "daily.csv", (("2015-09-09", 13949),)),
    ("What was the average finishing time in each race?", "runs.csv", (("5k", (24.5 + 31.0 + 22.1) / 3), ("half", 95.0))),
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
    # no column counts deaths: not the accidents of the year
    ("How many people were killed in airliner accidents in 1985?", "aviation.csv"),
    ("How many fewer people died in 1985 than in 1972?", "aviation.csv"),
])
def test_a_fraction_of_the_rows_is_not_given_as_a_count(library, question, document):
    found = figure(library, question, document)

    assert found is None or found.unread

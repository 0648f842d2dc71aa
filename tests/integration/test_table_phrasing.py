"""Questions put as people put them (issue 55, stop 63), over real files (a workbook written by
openpyxl, a Word table by python-docx, a CSV) ingested by the real services: "NA" written for no
country, "who won … in 1990", "the 2019 champion", "a Canadian" of Canada, "how many times",
"in the 1990s" of a column of dates, "where was the 10 km record set", "somewhere other than",
a column's name said apart ("dissatisfied with Thatcher" of thatcher_dis, "female life
expectancy" of lifeExpF) or run together ("GDP per person" of ppgdp), "worldwide" of
gross_world, "the largest" of an area, "the hardest water" of hardness, "on Christmas Day", "on
Saturdays" of Sat and "when was it highest"; and the readings that must give none."""

from __future__ import annotations

import pytest

from tests.integration.libraries import figure, library_of
from tests.integration.test_table_names import _book, _csv, _word

# Made up for this test; shaped as the public tables people keep are (R writes NA for none).
RACES = [("Event", "Year", "Champion", "Country"),
         ("Men's open", 1946, "Stylianos Kyriakides", "Greece"), ("Men's open", 1947, "Suh Yun-bok", "Korea"),
         ("Men's open", 1948, "Gérard Côté", "Canada"), ("Men's open", 1949, "Karl Leandersson", "Sweden"),
         ("Men's open", 1990, "Gelindo Bordin", "Italy"), ("Men's open", 2019, "Lawrence Cherono", "Kenya"),
         ("Women's open", 1990, "Rosa Mota", "Portugal"), ("Women's open", 2019, "Worknesh Degefa", "Ethiopia"),
         ("Men's wheelchair", 1990, "Mustapha Badid", "France"), ("Men's wheelchair", 1991, "Jim Knaub", "NA"),
         ("Men's wheelchair", 1992, "Jim Knaub", "United States"), ("Men's wheelchair", 1993, "Jim Knaub", "United States")]
RECORDS = [("Distance", "roadORtrack", "Place", "Date"), (5, "road", "Carlsbad", "1999-04-11"),
           (10, "road", "Doha", "2002-12-19"), (10, "track", "Brussels", "2005-08-26"),
           (21.1, "road", "London", "1996-09-15"), (42.2, "road", "London", "2003-04-13"),
           (3, "track", "Rieti", "1993-09-05"), (20, "track", "Ostrava", "1991-05-24")]
POLLS = [("date", "govt_sat", "govt_dis", "thatcher_sat", "thatcher_dis"),
         ("1980-01-01", 30, 59, 39, 50), ("1981-06-01", 22, 70, 32, 62), ("1982-06-01", 44, 48, 59, 35),
         ("1987-05-01", 40, 50, 44, 48), ("1990-03-15", 16, 78, 24, 76)]
NATIONS = [("country", "ppgdp", "lifeExpF", "lifeExpM", "area"), ("Norway", 84588.7, 84.1, 80.3, 385207),
           ("India", 1406.4, 66.9, 63.7, 3287263), ("Japan", 43140.9, 87.1, 80.9, 377975),
           ("Luxembourg", 105095.4, 83.4, 78.5, 2586)]
FILMS = [("movie", "gross_us", "gross_world"), ("Iron Man", 319034126, 585796247),
         ("Thor: The Dark World", 206362140, 644783140), ("Black Panther", 700059566, 1346913161),
         ("Avengers: Endgame", 858373000, 2797800564)]
# A count a row (as R's Titanic is kept): "the most passengers" adds up Freq, not the rows.
ABOARD = [("Class", "Sex", "Freq"), ("1st", "Male", 180), ("1st", "Female", 145), ("2nd", "Male", 179),
          ("2nd", "Female", 106), ("3rd", "Male", 510), ("3rd", "Female", 196), ("Crew", "Male", 862),
          ("Crew", "Female", 23)]
TOWNS = [("town", "mortality", "hardness", "interest"), ("Bath", 1247, 105, 3), ("Ipswich", 1236, 138, 2),
         ("Salford", 1981, 14, 9), ("Sheffield", 1486, 5, 4)]
BIRTHS = [("date", "births", "wday"), ("2015-12-24", 9000, "Thu"), ("2015-12-25", 6515, "Fri"),
          ("2015-12-26", 7100, "Sat"), ("2016-12-25", 6300, "Sun"), ("2016-12-31", 7300, "Sat")]
# A column `process` (nm) beside the rows' noun, processors; a Year numbering the rows.
CHIPS = [("name", "cores", "process", "tdp", "released"), ("Core i5-2500K", 4, 32, 95, "2011-01-09"),
         ("Core i7-4770K", 4, 22, 84, "2013-06-02"), ("Core m3-6Y30", 2, 14, 4.5, "2015-09-01"),
         ("Xeon E5-2699 v3", 18, 22, 145, "2014-09-08"), ("Core i5-6600", 4, 14, 65, "2015-09-01")]
CARBON = [("year", "temp_anomaly", "carbon_emissions"), (1900, -0.08, 534), (1960, -0.03, 2577),
          (2000, 0.39, 6735), (2010, 0.70, 9136), (2018, 0.82, 9855)]
AIRFIELDS = [("name", "alt"), ("Municipal Airport", 1200), ("Telluride", 9078), ("Municipal Airport", 600),
             ("Lake Tahoe", 6264)]
# "NA" beside other two-letter codes is North America, a value.
CONTINENTS = [("country", "continent"), ("Canada", "NA"), ("France", "EU"), ("Japan", "AS"), ("Mexico", "NA")]


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    yield from library_of(tmp_path_factory.mktemp("phrasing"), {
        "races.xlsx": _book(RACES), "records.docx": _word(RECORDS), "polls.csv": _csv(POLLS),
        "continents.csv": _csv(CONTINENTS), "nations.xlsx": _book(NATIONS), "films.csv": _csv(FILMS),
        "aboard.docx": _word(ABOARD), "towns.csv": _csv(TOWNS),
        "births.csv": _csv(BIRTHS), "chips.xlsx": _book(CHIPS), "carbon.csv": _csv(CARBON),
        "airfields.csv": _csv(AIRFIELDS)})


@pytest.mark.parametrize(("question", "document", "value", "what"), [
    # NA stands for no country: not a different country, nor one outside the United States.
    ("How many different countries have the winners come from?", "races.xlsx", 10,
     "the number of different Country"),
    ("How many of the winners were not from the United States?", "races.xlsx", 9,
     "the number of rows where Country is not United States"),
    ("How many times did a Canadian win before 1950?", "races.xlsx", 1,
     "the number of rows where Country is Canada and Year is before 1950"),
    ("How many different continents are there?", "continents.csv", 3, "the number of different continent"),
    ("How many of these records were set in the 1990s?", "records.docx", 4,
     "the number of rows where Date is in the 1990s"),
    ("How many of the records were set somewhere other than London?", "records.docx", 5,
     "the number of rows where Place is not London"),
    ("What was Thatcher's highest satisfaction rating?", "polls.csv", 59, "the highest of thatcher_sat"),
    ("In how many polls were more than 60% dissatisfied with Thatcher?", "polls.csv", 2,
     "the number of rows where thatcher_dis is more than 60"),
    ("What was the average satisfaction with the government in 1987?", "polls.csv", 40,
     "the average of govt_sat where date is in 1987"),
    # A name run together from the words' starts; "worldwide" of gross_world, though a film is "The Dark World".
    ("How many countries have a GDP per person of more than $40,000?", "nations.xlsx", 3,
     "the number of rows where ppgdp is more than 40000"),
    ("How many films made more than $1 billion worldwide?", "films.csv", 2,
     "the number of rows where gross_world is more than 1000000000"),
    # A holiday is its day in any year; a day of the week as the table shortens it.
    ("How many babies were born on Christmas Day?", "births.csv", 6515 + 6300,
     "the total of births where date is on 25 December"),
    ("What was the average number of births on Saturdays?", "births.csv", 7200, "the average of births where wday is Sat"),
    # "processors" is no abbreviation of `process`; "65 watts or less" a bound, not a value.
    ("How many processors came out in 2015?", "chips.xlsx", 2, "the number of rows where released is in 2015"),
    ("How many processors have a TDP of 65 watts or less?", "chips.xlsx", 2, "the number of rows where tdp is at most 65"),
    # "in a single year" is no highest Year; "how much more carbon" is an amount, not rows counted.
    ("What is the most carbon emitted in a single year?", "carbon.csv", 9855, "the highest of carbon_emissions"),
    ("How much more carbon was emitted in 2010 than in 1960?", "carbon.csv", 9136 - 2577,
     "the difference between the total of carbon_emissions where year is 2010 and that where year is 1960"),
])
def test_a_figure_asked_as_people_ask_it_is_stated(library, question, document, value, what):
    found = figure(library, question, document)

    assert found is not None and found.unread == ()
    assert (found.value, found.what) == (value, what)


@pytest.mark.parametrize(("question", "document", "text"), [
    ("Who won the men's open division in 1990?", "races.xlsx", "Gelindo Bordin"),
    ("Which country was the 2019 women's open champion from?", "races.xlsx", "Ethiopia"),
    ("Where was the 10 km road record set?", "records.docx", "Doha"),
])
def test_one_cell_asked_as_people_ask_it_is_read(library, question, document, text):
    found = figure(library, question, document)

    assert found is not None and found.unread == () and found.text == text


@pytest.mark.parametrize(("question", "document", "groups"), [
    ("Which country has the highest female life expectancy?", "nations.xlsx", (("Japan", 87.1),)),
    ("Which country is the largest?", "nations.xlsx", (("India", 3287263),)),  # by its area
    ("Which class had the most passengers?", "aboard.docx", (("Crew", 885),)),  # Freq added up, not 2 rows each
    ("Which town has the hardest water?", "towns.csv", (("Ipswich", 138),)),  # hardest: the highest hardness
])
def test_the_row_ranked_first_by_a_measure_said_otherwise_is_named(library, question, document, groups):
    found = figure(library, question, document)

    assert found.unread == () and found.groups == groups


def test_who_won_the_most_times_counts_each_winner_s_rows(library):
    found = figure(library, "Who has won the most times?", "races.xlsx")

    assert found.unread == () and found.groups == (("Jim Knaub", 3),)


def test_when_a_measure_was_highest_names_its_date(library):
    found = figure(library, "When was dissatisfaction with Thatcher at its highest?", "polls.csv")

    assert found.unread == () and found.groups == (("1990-03-15", 76),)


@pytest.mark.parametrize(("question", "document"), [
    # "oldest" of records measures their dates, not how many each place holds: no reading
    ("Where was the oldest record set?", "records.docx"),
    # no column of dates nor years: not the highest figure alone
    ("When was the most common continent?", "continents.csv"),
    # "the highest" airport ranks no rows counted (two share a name): its altitude is not named
    ("Which airport is the highest?", "airfields.csv"),
])
def test_readings_docchat_cannot_make_give_no_figure(library, question, document):
    found = figure(library, question, document)

    assert found is None or found.unread

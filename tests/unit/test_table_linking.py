"""How sure docchat is of its reading of a question over a table (docchat.tables.linking): the
words that could change the figure and that the reading did not use."""

from __future__ import annotations

import pytest

from docchat.tables.linking import unread_words


@pytest.mark.parametrize(("question", "what"), [
    ("How many pallets are stored in Oslo in total?", "the total of Pallets where Location is Oslo"),
    ("How many cars have 8 cyl?", "the number of rows where cyl is 8"),
    ("How many visitors came on days with more than 12,500 visitors?", "the total of Visitors where Visitors is more "
     "than 12500"),
    ("What is the total Assault of the last five states?", "the total of Assault where the row is among the last 5"),
    ("Which three locations have the fewest pallets?", "the total of Pallets per Location, the 3 lowest"),
    ("What were the total units sold in March 2025?", "the total of Units where Date is in March 2025"),
    ("What was the total revenue after October 1st, 2025?", "the total of Revenue where Date is after 2025-10-01"),
    ("How many pallets are not in Oslo?", "the total of Pallets where Location is not Oslo"),
    ("What is the average weight per group?", "the average of weight per group"),
    ("How many more pallets in Oslo than in Bergen?", "the difference between the total of Pallets where Location "
     "is Oslo and that where Location is Bergen"),
    ("What is the total of the Harbour sheet's pallets?", "the total of Pallets"),  # the sheet's name
])
def test_a_reading_that_uses_every_word_that_could_change_the_figure_leaves_none_unread(question, what):
    names = ("harbour-inventory.xlsx", "Harbour", "car", "Location", "Visitors", "State", "Order", "Item")
    assert unread_words(question, what, names) == ()


@pytest.mark.parametrize(("question", "what", "unread"), [
    ("What is the second highest hp?", "the highest of hp", ("second",)),
    ("What is the median mpg?", "the highest of mpg", ("median",)),
    ("What percentage of cars have 8 cyl?", "the number of rows where cyl is 8", ("percentage",)),
    ("How many pallets are in Oslo and Trondheim?", "the total of Pallets where Location is Oslo", ("Trondheim",)),
    ("What is the total of the first 3 orders?", "the total of Amount", ("first", "3")),
    ("How many days had more than 12,500 visitors?", "the number of rows", ("than", "12,500")),
    ("How many hours did the cheetah sleep?", "the number of rows where name is Cheetah", ("hours",)),
    ("Which month had the most deaths?", "the highest of deaths", ("month",)),
    ("What is the total revenue per region?", "the total of Revenue", ("per",)),
    ("How many units were sold in March?", "the total of Units", ("March",)),
    ("How many pallets are held outside Oslo?", "the total of Pallets where Location is Oslo", ("outside",)),
    ("What is the total of the top two items?", "the total of Pallets", ("top", "two")),
])
def test_a_word_that_could_change_the_figure_and_that_the_reading_did_not_use_is_unread(question, what, unread):
    assert unread_words(question, what, ("stock.xlsx", "Stock")) == unread

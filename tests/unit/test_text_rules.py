"""Pure text rules: the full-text query built from what a user types, and conversation titles."""

from __future__ import annotations

import sqlite3

import pytest

from docchat.errors import InvalidInput
from docchat.domain.titles import DEFAULT_TITLE, MAX_TITLE, clean_title, title_from, uncut_title
from docchat.store.search import fts_query, ts_query, unspaced

# fts_query


def test_each_word_is_quoted_and_the_last_one_matches_as_a_prefix():
    assert fts_query("Determination Date") == '"Determination" "Date"*'


@pytest.mark.parametrize("typed, query", [
    ("Determination AND Date", '"Determination" "AND" "Date"*'),
    ("weekend OR holiday", '"weekend" "OR" "holiday"*'),
    ("NOT weekend", '"NOT" "weekend"*'),
    ("NEAR(Determination Date, 3)", '"NEAR" "Determination" "Date" "3"*'),
    ('"Determination Date', '"Determination" "Date"*'),
    ("content:Determination", '"content" "Determination"*'),
    ("^Business -Day +clause*", '"Business" "Day" "clause"*'),
])
def test_fts5_operators_typed_by_the_user_become_plain_words(typed, query):
    assert fts_query(typed) == query


@pytest.mark.parametrize("typed", ["", "   ", "?!", '"()"*', "— … «»", "\n\t"])
def test_text_with_no_words_gives_no_query(typed):
    assert fts_query(typed) is None


def test_words_in_other_scripts_are_kept_whole():
    assert fts_query("Stichtag fällt auf Sonntag") == '"Stichtag" "fällt" "auf" "Sonntag"*'


@pytest.mark.parametrize("typed", [
    'Determination AND (Date OR "weekend',
    "NEAR(trust agreement",
    "clause 4.2 -- what's \"Business Day\"?",
    "col:* ^^ ** ()",
])
def test_every_query_built_is_valid_fts5_that_searches_for_the_words(typed):
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE notes USING fts5(content, tokenize='porter unicode61 remove_diacritics 2')")
    words = " ".join(w for w in ["Determination", "AND", "Date", "OR", "weekend", "NEAR", "trust", "agreement",
                                 "clause", "4", "2", "what", "s", "Business", "Day", "col"])
    db.execute("INSERT INTO notes VALUES (?)", (words,))

    query = fts_query(typed)

    assert db.execute("SELECT count(*) FROM notes WHERE notes MATCH ?", (query,)).fetchone()[0] == 1


# ts_query and unspaced (PostgreSQL)


@pytest.mark.parametrize("typed, query", [
    ("Determination Date", "'Determination' & 'Date':*"),
    ("weekend | !holiday", "'weekend' & 'holiday':*"),
    ("it's <-> 'Date' & (clause", "'it' & 's' & 'Date' & 'clause':*"),
])
def test_tsquery_operators_typed_by_the_user_become_plain_words(typed, query):
    assert ts_query(typed) == query


@pytest.mark.parametrize("typed", ["", "?!", "'&|!:*()'"])
def test_text_with_no_words_gives_no_tsquery(typed):
    assert ts_query(typed) is None


def test_a_fragment_of_the_spaced_out_text_goes_back_into_the_text_as_stored():
    stored = "Where is custodian reference ZX-4471 held, and who signs for the gilts?"

    assert unspaced("reference «ZX» «4471» held, and who", stored) == "…reference «ZX»-«4471» held, and who…"
    assert unspaced("who signs for the «gilts»", stored) == "…who signs for the «gilts»?"


# clean_title

def test_a_title_is_stripped_and_its_whitespace_collapsed():
    assert clean_title("  Harbour Street\tTrust:\n  Determination   Date ") == "Harbour Street Trust: Determination Date"


@pytest.mark.parametrize("title", ["", "   ", "\n\t "])
def test_an_empty_title_is_refused(title):
    with pytest.raises(InvalidInput, match="cannot be empty"):
        clean_title(title)


def test_a_title_that_is_not_text_is_refused():
    with pytest.raises(InvalidInput):
        clean_title(None)


def test_a_title_of_two_hundred_characters_is_accepted():
    title = "Determination Date " * 10 + "x" * (MAX_TITLE - 190)

    assert len(clean_title(title)) == MAX_TITLE


def test_a_title_over_two_hundred_characters_is_refused_naming_its_length():
    with pytest.raises(InvalidInput, match=r"at most 200 characters \(this one has 201\)"):
        clean_title("D" * 201)


def test_the_length_limit_applies_after_whitespace_is_collapsed():
    padded = "Determination" + " " * 300 + "Date"

    assert clean_title(padded) == "Determination Date"


# title_from

def test_a_provisional_title_is_the_first_eight_words_of_the_message_and_says_it_was_cut():
    text = "When is the Determination Date under the trust agreement, and what if it falls on a weekend?"

    assert title_from(text) == "When is the Determination Date under the trust…"


def test_a_short_first_sentence_is_the_whole_provisional_title():
    assert title_from("What is the capital of France? And its river?") == "What is the capital of France?"


def test_a_cut_title_never_ends_on_a_word_that_leaves_the_phrase_open():
    text = "Please explain what the trustee must do with the reserve account every month"

    assert title_from(text) == "Please explain what the trustee must do…"


def test_a_provisional_title_drops_trailing_punctuation():
    assert title_from("Determination Date, please.") == "Determination Date, please"


def test_a_provisional_title_collapses_line_breaks():
    assert title_from("Determination\n\nDate\tWeekend") == "Determination Date Weekend"


def test_a_provisional_title_is_at_most_eighty_characters():
    text = "Supercalifragilisticexpialidocious-Determination-Date " * 8

    assert len(title_from(text)) <= 80


@pytest.mark.parametrize("text", ["", "   ", "...", ", ; :"])
def test_a_message_with_no_usable_words_gives_the_default_title(text):
    assert title_from(text) == DEFAULT_TITLE


def test_the_number_of_words_can_be_chosen():
    assert title_from("When is the Determination Date?", words=4) == "When is the Determination…"


# uncut_title: what Rename offers for a title cut from a question


def test_a_title_cut_from_a_sentence_longer_than_a_title_comes_back_cut_at_a_word_with_no_ellipsis():
    question = "Could you list " + "every clause and schedule that mentions the deposit, " * 5 + "please? Thanks."

    whole = uncut_title(title_from(question), question)

    assert len(whole) <= MAX_TITLE and not whole.endswith("…")
    assert question.startswith(whole) and question[len(whole)] == " "


def test_a_title_that_is_not_the_question_s_first_words_is_not_uncut():
    assert uncut_title("Deposit rules…", "When is the deposit returned?") is None
    assert uncut_title("When is the deposit returned?", "When is the deposit returned?") is None

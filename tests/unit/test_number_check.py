"""The number check: each number an answer's model-written parts state, found or not in the
passages, the computed figures and the question; and the answer's text with those not found marked."""

from __future__ import annotations

import pytest

from docchat.domain.numbers import NumberCheck, StatedNumber, marked
from docchat.grounding.numbers import check_numbers

PANTRY = ("Stock count at the Millbrook food bank, taken on 14 February 2026: 12480 tins of tomatoes, 3,215 jars "
          "of honey and 640 sacks of flour. The bank was founded in 1994 and has 15 stalls at the market.")
CATERING = ("Invoice from Alder & Finch: catering for 85 guests at €24,60 a head, €2,091.00 in all, and a marquee "
            "of 18.5 kilometres of bunting. A service charge of 15 per cent is added. Grant received: £1,500,000.")
REGIONS = "Sales by region in 2025 (in £ thousands): Coastal 7,318.46, Uplands 2,904, Valley 5,112.9."
VOLUNTEERS = ("Each volunteer gets three days of training and 12 days of leave a year. The season of 2026 starts on "
              "1 April. The depot closes at 17:30.")
SOURCES = (PANTRY, CATERING, REGIONS, VOLUNTEERS)


def stated(answer: str, **given) -> dict[str, bool]:
    """Each number the answer states, as written -> found."""
    check = check_numbers(answer, sources=given.pop("sources", SOURCES), **given)
    return {number.written: number.found for number in check.stated}


def test_a_total_written_with_a_thousands_separator_is_found_in_a_passage_without_one():
    assert stated("The food bank holds 12,480 tins of tomatoes.") == {"12,480": True}


def test_a_number_written_without_a_separator_is_found_in_a_passage_with_one():
    assert stated("There are 3215 jars of honey.") == {"3215": True}


def test_a_number_no_passage_holds_is_not_found():
    assert stated("The food bank holds 12,840 tins of tomatoes.") == {"12,840": False}


def test_an_amount_is_found_by_its_value_whatever_its_currency_sign_or_decimal_comma():
    assert stated("Catering cost €2,091 in all, €24.60 a head.") == {"€2,091": True, "€24.60": True}


def test_a_unit_after_the_number_leaves_its_value_alone():
    assert stated("The marquee had 18.5 km of bunting.") == {"18.5": True}


def test_a_percentage_is_found_whether_written_with_a_sign_or_in_words():
    assert stated("A 15% service charge is added.") == {"15%": True}


def test_a_scale_word_multiplies_the_number_it_follows():
    assert stated("The grant was £1.5 million, or £1.5m, or £1,500k.") == {"£1.5 million": True, "£1.5m": True,
                                                                           "£1,500k": True}
    assert stated("The grant was £1.6 million.") == {"£1.6 million": False}


def test_a_passage_that_declares_its_scale_holds_its_figures_at_that_scale():
    assert stated("Coastal sold £7.3 million.") == {"£7.3 million": True}


def test_a_decimal_rounded_to_fewer_places_is_found():
    assert stated("Coastal sold 7,318.5, about 7,318, or 7.3 thousand.") == {"7,318.5": True, "7,318": True,
                                                                            "7.3 thousand": True}


def test_a_decimal_rounded_the_wrong_way_is_not_found():
    assert stated("Coastal sold 7,319, or 7,310.") == {"7,319": False, "7,310": False}


def test_an_answer_more_precise_than_its_source_is_not_found():
    assert stated("Uplands sold 2,904.35.") == {"2,904.35": False}


def test_an_integer_must_equal_its_source_exactly():
    assert stated("There are 3,200 jars of honey, or 3,216.") == {"3,200": False, "3,216": False}


def test_an_integer_rounded_in_words_is_found():
    assert stated("There are about 3,200 jars of honey, 3.2 thousand in all.") == {"3,200": True,
                                                                                  "3.2 thousand": True}


def test_a_year_is_never_rounded():
    assert stated("The bank was founded in about 1990.") == {"1990": False}


@pytest.mark.parametrize("date", ["14 February 2026", "2026-02-14", "February 14, 2026", "14/02/2026",
                                  "14th of February 2026", "14 Feb. 2026"])
def test_a_date_is_found_in_any_of_its_forms(date):
    assert stated(f"The count was taken on {date}.") == {date: True}


def test_a_date_with_a_changed_day_is_not_found_though_the_passages_hold_each_of_its_parts():
    assert stated("The count was taken on 15 February 2026.") == {"15 February 2026": False}


def test_a_day_written_without_a_year_holds_for_the_year_its_passage_names_and_no_other():
    assert stated("The season starts on 1 April 2026.") == {"1 April 2026": True}
    assert stated("The season starts on 1 April 2027.") == {"1 April 2027": False}


def test_a_date_without_its_year_is_matched_on_its_day_and_month():
    assert stated("The count was taken on 14 February.") == {"14 February": True}


def test_an_ordinal_is_its_number():
    assert stated("The 15th stall sells honey.") == {"15th": True}


def test_a_number_a_passage_writes_as_a_word_counts_for_its_digits():
    assert stated("Volunteers get 3 days of training.") == {"3": True}


def test_a_number_the_answer_writes_as_a_word_is_checked_against_the_passages_digits():
    assert stated("Volunteers get twelve days of leave, not eleven.") == {"twelve": True, "eleven": False}


def test_one_written_as_a_word_is_no_stated_number():
    assert stated("One of the volunteers trains the others.") == {}


def test_a_markdown_lists_own_numbering_is_no_stated_number():
    answer = "The stock:\n1. Tins: 12,480\n2) Jars: 3,215\n3. Sacks: 641"

    assert stated(answer) == {"12,480": True, "3,215": True, "641": False}


def test_citation_marks_are_never_numbers():
    assert stated("There are 640 sacks of flour [1][2, 3].") == {"640": True}


def test_an_identifier_is_no_stated_number():
    assert stated("Batch SKU-8812 arrived in Q3, after COVID-19.") == {}


def test_a_unicode_minus_is_read_as_the_number_it_signs():
    assert stated("The charge changed by −15%.") == {"−15%": True}


def test_a_time_of_day_is_found_in_another_form():
    assert stated("The depot closes at 5.30 p.m.") == {"5.30 p.m.": True}
    assert stated("The depot closes at 6 pm.") == {"6 pm": False}


def test_a_number_found_only_in_the_question_is_found():
    answer = "No: 640 sacks is fewer than 700."

    assert stated(answer) == {"640": True, "700": False}
    assert stated(answer, question="Are there more than 700 sacks of flour?") == {"640": True, "700": True}


def test_a_number_found_only_in_the_computed_figures_is_found():
    answer = "Coastal and Valley together sold 12,431.36."

    assert stated(answer) == {"12,431.36": False}
    assert stated(answer, figures=[7318.46 + 5112.9]) == {"12,431.36": True}


def test_numbers_outside_the_models_spans_are_not_checked():
    lead = "Honey stock is 3,999 jars. "
    quote = "\u201c3,215 jars of honey, 1,111 more than last year\u201d"

    check = check_numbers(lead + quote, sources=SOURCES, spans=[(0, len(lead))])

    assert [(n.written, n.found) for n in check.stated] == [("3,999", False)]


def test_the_offsets_are_those_of_the_whole_text():
    text = "Quoted above. The model says 641 sacks."

    check = check_numbers(text, sources=SOURCES, spans=[(14, len(text))])

    assert check.stated == (StatedNumber("641", 29, 32, found=False),)


def test_the_check_of_an_answer_without_numbers_states_none():
    assert check_numbers("Flour is kept dry.", sources=SOURCES) == NumberCheck()


# Of "There are 12,840 tins, with  640 sacks.", as the check made it.
WRONG_TINS = NumberCheck((StatedNumber("12,840", 10, 16, found=False), StatedNumber("640", 29, 32, found=True)))


def test_marked_replaces_each_number_not_found():
    text = "There are 12,840 tins, with  640 sacks."

    assert marked(text, WRONG_TINS, lambda w: f"{w} (not in the sources)") == \
        "There are 12,840 (not in the sources) tins, with  640 sacks."


def test_marked_leaves_a_number_whose_offsets_no_longer_hold_it():
    edited = "There were 12,840 tins, with 640 sacks."

    assert marked(edited, WRONG_TINS, lambda w: f"{w} (not in the sources)") == edited


def test_marked_marks_several_numbers_from_the_end_so_each_stays_in_place():
    text = "Tins: 12,840. Jars: 3,261."
    check = NumberCheck((StatedNumber("12,840", 6, 12, found=False), StatedNumber("3,261", 20, 25, found=False)))

    assert marked(text, check, lambda w: f"[{w}?]") == "Tins: [12,840?]. Jars: [3,261?]."


def test_marked_without_a_check_is_the_text():
    assert marked("Tins: 12,840.", None, lambda w: f"[{w}?]") == "Tins: 12,840."


def test_as_dict_counts_the_numbers_and_lists_those_not_found_with_their_places():
    assert WRONG_TINS.as_dict() == {"stated": 2, "found": 1, "not_found": 1, "not_found_numbers": ["12,840"],
                                    "marks": [{"written": "12,840", "start": 10, "end": 16}]}


def test_from_dict_reads_back_what_as_dict_wrote():
    kept = NumberCheck.from_dict(WRONG_TINS.as_dict())

    assert kept is not None and kept.as_dict() == WRONG_TINS.as_dict()
    text = "There are 12,840 tins, with  640 sacks."
    assert marked(text, kept, str.upper) == marked(text, WRONG_TINS, str.upper)


@pytest.mark.parametrize("junk", [
    None, "12,840", [], {}, {"found": 1}, {"marks": []}, {"found": -1, "marks": []}, {"found": True, "marks": []},
    {"found": 1, "marks": "12,840"}, {"found": 1, "marks": [{"written": "12,840", "start": 16, "end": 10}]},
    {"found": 1, "marks": [{"written": "12,840", "start": "10", "end": 16}]},
    {"found": 1, "marks": [{"written": 12840, "start": 10, "end": 16}]}, {"found": 1, "marks": [None]},
])
def test_from_dict_of_anything_as_dict_did_not_write_is_none(junk):
    assert NumberCheck.from_dict(junk) is None

"""Sharing the room for passages among the documents of a comparison or the collection."""

from __future__ import annotations

from docchat.retrieval.quotas import take_in_turns


def test_documents_share_the_room_equally_best_passages_first():
    ranked = {"lease-2024": [100] * 5, "lease-2025": [100] * 5}

    assert take_in_turns(ranked, 600) == {"lease-2024": 3, "lease-2025": 3}


def test_a_document_with_fewer_passages_leaves_its_room_to_the_others():
    ranked = {"memo": [80], "contract": [100] * 6, "policy": [100] * 6}

    assert take_in_turns(ranked, 880) == {"memo": 1, "contract": 4, "policy": 4}


def test_a_passage_too_long_for_what_is_left_ends_its_own_documents_turns_only():
    ranked = {"report": [300, 500, 100], "notes": [100, 100, 100, 100]}

    # report's second passage (500) does not fit in the 300 left after the first round; notes go on.
    assert take_in_turns(ranked, 700) == {"report": 1, "notes": 4}


def test_when_the_room_holds_fewer_passages_than_documents_the_first_ones_get_theirs():
    ranked = {"a": [200, 200], "b": [200], "c": [200]}

    assert take_in_turns(ranked, 450) == {"a": 1, "b": 1}


def test_nothing_to_take_gives_nothing():
    assert take_in_turns({}, 1_000) == {}
    assert take_in_turns({"empty": []}, 1_000) == {}

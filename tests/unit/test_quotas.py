"""Sharing the room for passages among the documents of a comparison or the collection."""

from __future__ import annotations

from docchat.retrieval.quotas import in_turns


def test_each_documents_best_passage_comes_before_any_documents_second():
    assert in_turns([["2024 §1", "2024 §2", "2024 §3"], ["2025 §1", "2025 §2", "2025 §3"]]) == [
        "2024 §1", "2025 §1", "2024 §2", "2025 §2", "2024 §3", "2025 §3"]


def test_a_document_with_fewer_passages_leaves_the_later_turns_to_the_others():
    assert in_turns([["memo §1"], ["contract §1", "contract §2", "contract §3"], []]) == [
        "memo §1", "contract §1", "contract §2", "contract §3"]


def test_no_rankings_give_nothing():
    assert in_turns([]) == []

"""Retrieval arithmetic with no Qdrant and no model: RRF, the document bias, query words."""

from __future__ import annotations

import pytest

from docchat.retrieval.fusion import Ranked, apply_bias, fuse, rrf
from docchat.documents.index.points import point_id
from docchat.retrieval.words import query_terms, tokenize

# rrf


def test_a_chunk_both_lists_agree_on_beats_one_only_a_single_list_put_first():
    fused = rrf([["determination-date", "business-day"], ["fees", "determination-date"]])
    assert fused[0][0] == "determination-date"


def test_each_list_adds_one_over_k_plus_the_position_counted_from_zero():
    fused = dict(rrf([["trustee", "settlor"], ["settlor"]], k=60))
    assert fused["trustee"] == pytest.approx(1 / 60)
    assert fused["settlor"] == pytest.approx(1 / 61 + 1 / 60)


def test_a_chunk_found_by_one_side_only_is_still_fused_in():
    fused = rrf([["custard", "gravy"], ["pickled-onions"]])
    assert {item for item, _ in fused} == {"custard", "gravy", "pickled-onions"}


def test_tied_scores_keep_the_order_in_which_the_chunks_were_first_seen():
    fused = rrf([["bread", "crumble"], ["crumble", "bread"]])
    assert [item for item, _ in fused] == ["bread", "crumble"]
    assert fused[0][1] == fused[1][1]


def test_a_small_k_lets_the_top_of_one_list_outweigh_agreement_lower_down():
    lists = [["clause-1", "clause-2"], ["clause-3", "clause-2"]]
    assert rrf(lists, k=60)[0][0] == "clause-2"
    assert rrf(lists, k=1)[0][0] == "clause-1"


# apply_bias


def _hit(document_id: str, chunk_id: str, score: float) -> Ranked:
    return Ranked(chunk_id=chunk_id, document_id=document_id, score=score)


def test_the_bias_lifts_an_active_documents_chunk_past_a_close_rival():
    hits = [_hit("trust", "trust#2", 0.0330), _hit("cookery", "cookery#14", 0.0320)]
    biased = apply_bias(hits, {"cookery"}, 1.15)
    assert [hit.chunk_id for hit in biased] == ["cookery#14", "trust#2"]
    assert biased[0].score == pytest.approx(0.0320 * 1.15)


def test_the_bias_does_not_lift_a_chunk_far_behind():
    hits = [_hit("trust", "trust#2", 0.0330), _hit("cookery", "cookery#14", 0.0160)]
    biased = apply_bias(hits, {"cookery"}, 1.15)
    assert [hit.chunk_id for hit in biased] == ["trust#2", "cookery#14"]


def test_the_bias_reorders_but_never_removes_a_hit():
    hits = [_hit("trust", f"trust#{n}", 0.03 - n * 0.001) for n in range(5)]
    hits += [_hit("cookery", f"cookery#{n}", 0.02 - n * 0.001) for n in range(5)]
    biased = apply_bias(hits, {"cookery"}, 1.15)
    assert sorted(hit.chunk_id for hit in biased) == sorted(hit.chunk_id for hit in hits)
    assert [hit.score for hit in biased] == sorted((hit.score for hit in biased), reverse=True)


def test_without_active_documents_the_order_is_unchanged():
    hits = [_hit("trust", "trust#1", 0.03), _hit("cookery", "cookery#1", 0.02)]
    assert apply_bias(hits, frozenset(), 1.15) == hits


# point ids


def test_a_chunk_always_gets_the_same_point_id_and_another_chunk_another():
    assert point_id("harbour-trust#2") == point_id("harbour-trust#2")
    assert point_id("harbour-trust#2") != point_id("harbour-trust#3")


# fuse


def test_fusion_returns_the_best_of_both_sides_with_their_documents():
    dense = [("trust#2", "trust"), ("trust#3", "trust")]
    keyword = [("cookery#4", "cookery"), ("trust#2", "trust")]
    fused = fuse(dense, keyword, top_k=2)
    assert [(r.chunk_id, r.document_id) for r in fused] == [("trust#2", "trust"), ("cookery#4", "cookery")]
    assert fused[0].score == pytest.approx(1 / 60 + 1 / 61)


def test_the_bias_can_lift_a_chunk_from_just_below_the_cut():
    dense = [("trust#2", "trust"), ("cookery#4", "cookery")]
    assert [r.chunk_id for r in fuse(dense, [], top_k=1)] == ["trust#2"]
    assert [r.chunk_id for r in fuse(dense, [], top_k=1, boost_documents={"cookery"})] == ["cookery#4"]


def test_nothing_found_on_either_side_fuses_to_nothing():
    assert fuse([], [], top_k=5) == []


# query words


def test_words_are_lowercased_split_at_punctuation_and_stopwords_dropped():
    assert tokenize("The Trustee's reference is ZX-4471.") == ["trustee", "reference", "zx", "4471"]


def test_words_in_other_scripts_stay_whole():
    assert tokenize("Der Stichtag fällt") == ["der", "stichtag", "fällt"]


def test_a_question_is_searched_for_each_distinct_word_once_in_order():
    assert query_terms("Custard, custard: which custard recipe?") == ["custard", "recipe"]


def test_a_question_of_stopwords_alone_has_no_words_to_search():
    assert query_terms("what is it?") == []


"""Retrieval arithmetic with no Qdrant and no model: RRF, the document bias, sparse vectors."""

from __future__ import annotations

import pytest

from docchat.documents.index import Hit, IndexedChunk, apply_bias, point_id, rrf
from docchat.documents.sparse import document_vector, query_vector, term_id, tokenize

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


def _hit(document_id: str, chunk_id: str, score: float) -> Hit:
    chunk = IndexedChunk(document_id=document_id, chunk_id=chunk_id, text=f"text of {chunk_id}",
                         label=chunk_id, page=1, index=0)
    return Hit(chunk=chunk, score=score)


def test_the_bias_lifts_an_active_documents_chunk_past_a_close_rival():
    hits = [_hit("trust", "trust#2", 0.0330), _hit("cookery", "cookery#14", 0.0320)]
    biased = apply_bias(hits, {"cookery"}, 1.15)
    assert [hit.chunk.chunk_id for hit in biased] == ["cookery#14", "trust#2"]
    assert biased[0].score == pytest.approx(0.0320 * 1.15)


def test_the_bias_does_not_lift_a_chunk_far_behind():
    hits = [_hit("trust", "trust#2", 0.0330), _hit("cookery", "cookery#14", 0.0160)]
    biased = apply_bias(hits, {"cookery"}, 1.15)
    assert [hit.chunk.chunk_id for hit in biased] == ["trust#2", "cookery#14"]


def test_the_bias_reorders_but_never_removes_a_hit():
    hits = [_hit("trust", f"trust#{n}", 0.03 - n * 0.001) for n in range(5)]
    hits += [_hit("cookery", f"cookery#{n}", 0.02 - n * 0.001) for n in range(5)]
    biased = apply_bias(hits, {"cookery"}, 1.15)
    assert sorted(hit.chunk.chunk_id for hit in biased) == sorted(hit.chunk.chunk_id for hit in hits)
    assert [hit.score for hit in biased] == sorted((hit.score for hit in biased), reverse=True)


def test_without_active_documents_the_order_is_unchanged():
    hits = [_hit("trust", "trust#1", 0.03), _hit("cookery", "cookery#1", 0.02)]
    assert apply_bias(hits, frozenset(), 1.15) == hits


# point ids


def test_a_chunk_always_gets_the_same_point_id_and_another_chunk_another():
    assert point_id("harbour-trust#2") == point_id("harbour-trust#2")
    assert point_id("harbour-trust#2") != point_id("harbour-trust#3")


# sparse vectors


def test_words_are_lowercased_split_at_punctuation_and_stopwords_dropped():
    assert tokenize("The Trustee's reference is ZX-4471.") == ["trustee", "reference", "zx", "4471"]


def test_words_in_other_scripts_stay_whole():
    assert tokenize("Der Stichtag fällt") == ["der", "stichtag", "fällt"]


def test_the_same_text_always_gives_the_same_vector():
    text = "On the Determination Date the Trustee values the Trust Fund."
    assert document_vector(text) == document_vector(text)
    assert query_vector(text) == query_vector(text)


def test_term_ids_do_not_change_between_runs_or_releases():
    # Stored vectors carry these ids: a different hash would silently orphan every indexed chunk.
    assert term_id("trustee") == 2108894712
    assert term_id("4471") == 1018584488


def test_a_word_has_the_same_id_in_a_chunk_and_in_a_question():
    chunk = document_vector("The Trustee values the Trust Fund.")
    question = query_vector("What does the TRUSTEE do?")
    assert term_id("trustee") in set(chunk.indices) & set(question.indices)


def test_a_question_weighs_each_distinct_term_once():
    question = query_vector("custard custard custard recipe")
    assert sorted(question.indices) == sorted({term_id("custard"), term_id("recipe")})
    assert set(question.values) == {1.0}


def test_repeating_a_term_raises_its_weight_with_diminishing_returns():
    # Same length for both, so only the term frequency differs.
    mixed = document_vector("butter flour sugar")
    once = dict(zip(mixed.indices, mixed.values))[term_id("butter")]
    thrice = document_vector("butter butter butter").values[0]
    assert once < thrice < 3 * once


def test_a_term_in_a_longer_chunk_weighs_less():
    short = document_vector("rest the dough")
    long = document_vector("rest the dough " + "then shape knead bake cool slice serve " * 10)
    rest = term_id("rest")
    assert dict(zip(long.indices, long.values))[rest] < dict(zip(short.indices, short.values))[rest]


def test_indices_are_unique_and_ascending():
    vector = document_vector("gravy stock gravy flour stock gravy onion carrot celery")
    assert list(vector.indices) == sorted(set(vector.indices))
    assert len(vector.values) == len(vector.indices)


def test_text_with_only_stopwords_or_punctuation_has_no_terms():
    assert not query_vector("what is it?")
    assert not document_vector("— … «» !!")

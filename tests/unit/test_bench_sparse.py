"""The sparse vectors of the retrieval benchmark's baseline (Qdrant-native hybrid)."""

from __future__ import annotations

from docchat_bench.sparse import document_vector, query_vector, term_id

def test_the_same_text_always_gives_the_same_vector():
    text = "On the Determination Date the Trustee values the Trust Fund."
    assert document_vector(text) == document_vector(text)
    assert query_vector(text) == query_vector(text)


def test_term_ids_do_not_change_between_runs_or_releases():
    # Python's hash() is salted per process; a baseline index written by one run must match the next.
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

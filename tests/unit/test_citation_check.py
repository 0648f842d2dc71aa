"""Every [n] of an answer checked against passage n, and sentences attributed when the model
cites nothing: scripted answers through the chat service with fakes of its ports."""

from __future__ import annotations

from docchat.grounding.citation_check import check, split_sentences
from docchat.domain import Citation
from docchat.services.grounding import CitationChecker

from tests.unit.fakes import FakeIndex, FakeLibrary, WordsEmbedder, chunk
from tests.unit.test_pipeline import Setup

RENT = "The annual rent is GBP 62,000, exclusive of VAT, payable quarterly in advance."
LEASE = [
    chunk("Riverside Lease", 0, RENT, page=2),
    chunk("Riverside Lease", 1, "The tenant may break the lease on the fifth anniversary by giving six months' "
          "written notice to the landlord.", page=5),
    chunk("Harbour Trust", 0, "The Trustee is paid an annual fee of GBP 40,000 in four equal instalments.", page=1),
]


def answered(reply: str, embedder: WordsEmbedder | None = None):
    setup = Setup(FakeLibrary(*LEASE))
    setup.chat.checker = CitationChecker(embedder or WordsEmbedder())
    conversation = setup.conversations.create("Lease questions")
    setup.gateway.enqueue([reply])
    turn = setup.ask("What does the lease say about rent and breaks?", conversation.id)
    return setup, turn.answer


def numbered(answer, document: str, words: str) -> int:
    return next(c.number for c in answer.facts.citations if c.document == document and words in c.text)


def test_a_sentence_its_passage_supports_is_not_marked():
    _, given = answered("")
    rent = numbered(given, "Riverside Lease", "annual rent")
    _, answer = answered(f"The annual rent is GBP 62,000, exclusive of VAT, payable quarterly [{rent}].")

    assert [c.number for c in answer.cited] == [rent]
    assert answer.facts.grounding is not None and answer.facts.grounding.flagged == ()


def test_a_sentence_its_passage_does_not_hold_is_marked_not_found_in_that_passage():
    _, given = answered("")
    rent = numbered(given, "Riverside Lease", "annual rent")
    _, answer = answered(f"The landlord must repaint the building every winter at his own expense [{rent}].")

    [flagged] = answer.facts.grounding.flagged
    assert answer.facts.grounding.note(flagged) == f"not found in [{rent}]"


def test_a_wrong_number_is_marked_even_where_the_words_match():
    _, given = answered("")
    rent = numbered(given, "Riverside Lease", "annual rent")
    _, answer = answered(f"The annual rent is GBP 64,000, exclusive of VAT, payable quarterly in advance [{rent}].")

    [flagged] = answer.facts.grounding.flagged
    assert flagged.absent_numbers == ("64,000",)
    assert "64,000 not found in the cited passages" in answer.facts.grounding.note(flagged)


def test_a_number_in_a_sentence_without_a_mark_is_checked_against_the_cited_passages():
    _, given = answered("")
    rent = numbered(given, "Riverside Lease", "annual rent")
    _, answer = answered(f"The annual rent is GBP 62,000 [{rent}]. Service charges add GBP 9,500 a year.")

    [flagged] = answer.facts.grounding.flagged
    assert flagged.text == "Service charges add GBP 9,500 a year."
    assert flagged.absent_numbers == ("9,500",)


def test_citations_out_of_order_are_listed_in_order_of_first_mention_and_the_rest_as_given_only():
    _, given = answered("")
    rent, fee = numbered(given, "Riverside Lease", "annual rent"), numbered(given, "Harbour Trust", "Trustee")
    setup, answer = answered(f"The Trustee is paid an annual fee of GBP 40,000 [{fee}]. "
                             f"The annual rent is GBP 62,000, payable quarterly [{rent}], [{fee}].")

    assert [c.number for c in answer.cited] == [fee, rent]
    assert {c.number for c in answer.uncited} == {c.number for c in answer.facts.citations} - {fee, rent}
    assert answer.facts.grounding.flagged == ()
    # "Cited in" counts the passages cited, not all those given.
    assert sorted(row["number"] for row in setup.uow.documents.citations) == sorted([fee, rent])


def test_an_answer_without_marks_is_attributed_sentence_by_sentence_and_unsupported_ones_marked():
    _, answer = answered("The tenant may break the lease on the fifth anniversary with six months' notice. "
                         "The building has a rooftop swimming pool open to every tenant.")

    grounding = answer.facts.grounding
    assert grounding.attributed
    assert [c.document for c in answer.cited] == ["Riverside Lease"]
    assert "break" in answer.cited[0].text
    [flagged] = grounding.flagged
    assert flagged.text.startswith("The building has a rooftop swimming pool")
    assert grounding.note(flagged) == "unsupported: no passage given holds this"


def test_the_check_embeds_the_sentences_its_words_leave_open_in_one_call_per_answer():
    embedder = WordsEmbedder()
    _, given = answered("", embedder)
    embedder.calls.clear()
    rent = numbered(given, "Riverside Lease", "annual rent")
    answered(f"Rent of GBP 62,000 falls due every quarter [{rent}]. The tenant pays the annual rent in advance "
             f"[{rent}]. The tenant may break the lease [{rent}].", embedder)

    [call] = embedder.calls
    assert sorted(text for text in call if text.startswith(("Rent of", "The tenant"))) == [
        f"Rent of GBP 62,000 falls due every quarter [{rent}].", f"The tenant pays the annual rent in advance [{rent}]."]


def test_the_check_is_kept_with_the_answer():
    setup, answer = answered("The landlord must repaint the building every winter [1].")

    [stored] = [m for m in setup.messages.history(answer.conversation_id) if m.id == answer.id]
    assert stored.facts.grounding == answer.facts.grounding
    assert stored.facts.grounding.flagged


def test_an_embedder_that_fails_leaves_the_check_to_words_and_numbers():
    class Broken:
        def embed(self, texts):
            raise RuntimeError("model gone")

    grounding = check("The annual rent is GBP 62,000 [1]. The landlord repaints every winter [1].",
                      {1: RENT}, Broken().embed)

    assert [s.supported for s in grounding.sentences] == [True, False]


def test_a_mark_naming_no_passage_given_is_marked_not_found():
    grounding = check("The rent is GBP 62,000 [7].", {1: RENT}, None)

    assert [grounding.note(s) for s in grounding.flagged] == ["not found in [7]; 62,000 not found in the cited passages"]


def test_an_ordinal_counts_as_its_number_so_a_wrong_day_is_marked():
    passage = "The Determination Date is the 15th calendar day of each month."

    grounding = check("The Determination Date is the 1st Monday of each month, April 18th.", {2: passage}, None)

    [sentence] = grounding.sentences
    assert sentence.cited == (2,) and sentence.absent_numbers == ("1st", "18th")
    assert grounding.note(sentence) == "1st, 18th not found in the passages given"
    assert check("The Determination Date is the 15 of each month [2].", {2: passage}, None).flagged == ()


def _indexed(embedder: WordsEmbedder, *passages: tuple[str, str]) -> FakeIndex:
    index = FakeIndex()
    index.add_points([(chunk_id, "riverside-lease", embedder.embed([text])[0]) for chunk_id, text in passages])
    return index


BREAK = "The tenant may break the lease on the fifth anniversary by giving six months' written notice."
ANSWER = ("The annual rent of GBP 62,000 is payable quarterly in advance [1]. "
          "The tenant can end the lease early with six months' notice to the landlord [2]. "
          "The landlord repaints the building every winter [2].")


def test_with_the_passages_vectors_read_from_the_index_only_the_answers_sentences_are_embedded():
    embedder = WordsEmbedder()
    index = _indexed(embedder, ("rent-chunk", RENT), ("break-chunk", BREAK))
    given = [Citation(1, "Riverside Lease", "page 2", RENT, chunk_id="rent-chunk"),
             Citation(2, "Riverside Lease", "page 5", BREAK, chunk_id="break-chunk")]
    embedder.calls.clear()

    grounding = CitationChecker(embedder, index.vectors_of)(ANSWER, given)

    [call] = embedder.calls
    assert call and set(call) <= set(split_sentences(ANSWER))
    assert [s.supported for s in grounding.sentences] == [True, True, False]


def test_a_passage_the_index_no_longer_holds_is_embedded_in_the_same_call():
    embedder = WordsEmbedder()
    index = _indexed(embedder, ("rent-chunk", RENT))
    given = [Citation(1, "Riverside Lease", "page 2", RENT, chunk_id="rent-chunk"),
             Citation(2, "Riverside Lease", "page 5", BREAK, chunk_id="removed-chunk")]
    embedder.calls.clear()

    grounding = CitationChecker(embedder, index.vectors_of)(ANSWER, given)

    [call] = embedder.calls
    assert any(text in BREAK for text in call)
    assert [s.supported for s in grounding.sentences] == [True, True, False]


PREPAY = "The Borrower may prepay the whole or part of the Loan on five Business Days' notice."


def test_a_claim_its_passage_makes_the_opposite_of_in_its_own_words_is_marked():
    grounding = check("The Borrower may not prepay any part of the Loan [1].", {1: PREPAY}, None)

    [flagged] = grounding.flagged
    assert grounding.note(flagged) == "not found in [1]"


def test_a_not_where_the_passage_says_rather_than_is_not_marked():
    passage = "Water in the early morning, soaking the soil deeply twice a week rather than a little every day."

    assert check("Soak the soil deeply twice a week, not a little every day [1].", {1: passage}, None).flagged == ()


def test_a_number_written_as_a_word_is_checked_against_the_passage_s():
    passage = "The Tenant may end this Lease on the fifth anniversary by giving at least six months' written notice."

    [flagged] = check("The Tenant may end the Lease with one month's notice [1].", {1: passage}, None).flagged
    assert flagged.absent_numbers == ("one",)
    assert check("The Tenant may end the Lease at the 5th anniversary with 6 months' notice [1].",
                 {1: passage}, None).flagged == ()


def test_the_one_before_and_a_third_are_not_numbers():
    passage = "Payment moves to the preceding Business Day; prune each stem by about a third."

    assert check("Payment moves to the one before [1]. Each stem loses about a third [1].", {1: passage},
                 None).flagged == ()


def test_a_sentence_citing_a_whole_documents_part_is_checked_against_all_of_that_part():
    # A small library is given whole: page 2 is one part, [1], kept as the two chunks it was read in.
    given = [Citation(1, "Trust Agreement", "page 2", "The Determination Date is the 15th calendar day of each month."),
             Citation(2, "Trust Agreement", "page 3", "The Payment Date is the second Business Day after it."),
             Citation(1, "Trust Agreement", "page 2", "If it falls on a weekend it moves to the next Business Day.")]

    grounding = CitationChecker(WordsEmbedder())(
        "The Determination Date is the 15th calendar day of each month [1]. On a weekend it moves to the next "
        "Business Day [1].", given)

    assert grounding.flagged == ()

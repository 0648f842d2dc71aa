"""Chunks fit the token limit (real Qwen3 counts), overlap within a section, never cross one."""

from __future__ import annotations

import pytest

from docchat.retrieval.chunking import chunk
from docchat.domain import Section

CLAUSES = [
    "The Determination Date is the 15th calendar day of each month.",
    "If that day is not a Business Day, it moves to the next Business Day.",
    "The Trust Manager calculates the Distribution Amount within two Business Days.",
    "Unitholders receive a statement no later than the Payment Date.",
    "Any dispute goes first to the Trustee, then to arbitration in Zürich.",
    "Fees accrue daily at 0.45% a year and are paid quarterly in arrears.",
]


def clauses(count: int, start: int = 0) -> str:
    return " ".join(f"({number}) {CLAUSES[number % len(CLAUSES)]}" for number in range(start, start + count))


def deed() -> str:
    """Paragraphs of numbered clauses, a run-on sentence and one enormous unbroken token."""
    paragraphs = [clauses(4, start) for start in range(0, 80, 4)]
    paragraphs.append(" ".join(f"beneficiary-{number}" for number in range(600)))
    paragraphs.append("sha256:" + "9f86d081884c7d659a2feaa0c55ad015" * 40)
    return "\n\n".join(paragraphs)


def shared_text(previous: str, following: str) -> str:
    """The longest end of `previous` that `following` starts with."""
    for size in range(min(len(previous), len(following)), 0, -1):
        if following.startswith(previous[-size:]):
            return previous[-size:]
    return ""


@pytest.fixture
def count(qwen_counter):
    return qwen_counter.count_text


@pytest.mark.parametrize("max_tokens, overlap", [(256, 48), (64, 16), (32, 0)])
def test_no_chunk_counts_more_than_max_tokens(count, max_tokens, overlap):
    chunks = chunk([Section("Trust deed", 3, deed())], count_tokens=count, max_tokens=max_tokens, overlap=overlap)

    assert len(chunks) > 5
    assert max(count(piece.text) for piece in chunks) <= max_tokens


def test_each_chunk_records_its_real_token_count(count):
    chunks = chunk([Section("Trust deed", 3, deed())], count_tokens=count, max_tokens=128, overlap=24)

    assert [piece.token_count for piece in chunks] == [count(piece.text) for piece in chunks]


def test_a_short_section_is_one_chunk_holding_its_whole_text(count):
    text = "The Determination Date is the 15th. It never moves backwards."

    [only] = chunk([Section("Definitions", 2, text)], count_tokens=count)

    assert only.text == text


def test_consecutive_chunks_of_a_section_share_a_tail_within_the_overlap(count):
    chunks = chunk([Section("Distributions", 4, clauses(60))], count_tokens=count, max_tokens=120, overlap=30)

    assert len(chunks) > 3
    for previous, following in zip(chunks, chunks[1:]):
        shared = shared_text(previous.text, following.text)
        assert 15 <= count(shared) <= 30, (previous.text, following.text)


def test_without_overlap_the_chunks_hold_every_word_exactly_once_in_order(count):
    text = "\n\n".join([clauses(30), " ".join(f"beneficiary-{number}" for number in range(300)), clauses(30)])

    chunks = chunk([Section("Trust deed", 3, text)], count_tokens=count, max_tokens=64, overlap=0)

    assert [word for piece in chunks for word in piece.text.split()] == text.split()


def test_paragraphs_that_fit_are_never_cut(count):
    paragraphs = [clauses(2, start) for start in range(0, 40, 2)]

    chunks = chunk([Section("Fees", 7, "\n\n".join(paragraphs))], count_tokens=count, max_tokens=160, overlap=0)

    assert len(chunks) > 2
    for piece in chunks:
        assert set(piece.text.split("\n\n")) <= set(paragraphs)


def test_a_paragraph_too_long_for_a_chunk_is_cut_between_sentences(count):
    chunks = chunk([Section("Fees", 7, clauses(30))], count_tokens=count, max_tokens=80, overlap=0)

    assert len(chunks) > 3
    assert all(piece.text.endswith(".") for piece in chunks)
    assert all(piece.text.startswith("(") for piece in chunks)


def test_a_sentence_too_long_for_a_chunk_is_cut_between_words(count):
    names = [f"beneficiary-{number}" for number in range(400)]

    chunks = chunk([Section("Schedule 2", 9, " ".join(names))], count_tokens=count, max_tokens=50, overlap=0)

    assert len(chunks) > 3
    assert [word for piece in chunks for word in piece.text.split()] == names


def test_a_table_s_rows_too_long_for_a_chunk_are_cut_between_rows(count):
    # a sheet's rows, a line each, with no sentence end: whole rows in each chunk, none cut inside
    rows = [f"Row {number}: date: 2017-05-13, race: 5k, bib: {1690 + number}, sex: F, minutes: 59.47"
            for number in range(2, 80)]

    chunks = chunk([Section("Results", None, "\n".join(rows))], count_tokens=count, max_tokens=64, overlap=0)

    assert len(chunks) > 5
    assert [line for piece in chunks for line in piece.text.split("\n")] == rows


def test_the_overlap_of_a_table_s_rows_starts_at_a_row(count):
    # each row fits the overlap, so the next chunk carries whole rows
    rows = [f"Row {number}: Item: Shackle size {number}; Units: {number}; Supplier: Kessler Marine"
            for number in range(2, 80)]

    chunks = chunk([Section("Stock", None, "\n".join(rows))], count_tokens=count, max_tokens=80, overlap=32)

    assert len(chunks) > 5
    assert all(piece.text.split("\n")[0] in rows for piece in chunks)  # "Row 87: …", never "87: …"
    assert all(shared_text(previous.text, following.text) for previous, following in zip(chunks, chunks[1:]))


def test_a_word_too_long_for_a_chunk_is_sliced_to_fit(count):
    digest = "9f86d081884c7d659a2feaa0c55ad015" * 30

    chunks = chunk([Section("Checksums", None, digest)], count_tokens=count, max_tokens=40, overlap=0)

    assert len(chunks) > 3
    assert "".join(piece.text for piece in chunks) == digest
    assert max(piece.token_count for piece in chunks) <= 40


def test_chunks_keep_their_section_label_and_page(count):
    sections = [Section("page 1", 1, clauses(30)), Section("page 2", 2, clauses(30, start=30))]

    chunks = chunk(sections, count_tokens=count, max_tokens=64, overlap=16)

    assert {(piece.label, piece.page) for piece in chunks} == {("page 1", 1), ("page 2", 2)}
    for piece in chunks:
        own = sections[piece.page - 1]
        assert piece.text in own.text


def test_a_chunk_never_crosses_a_section_boundary(count):
    sections = [
        Section("Payment Terms", None, "Invoices are due in thirty days. " * 20),
        Section("Termination", None, "Either party may terminate on ninety days notice. " * 20),
    ]

    chunks = chunk(sections, count_tokens=count, max_tokens=48, overlap=12)

    for piece in chunks:
        other = "ninety days" if piece.label == "Payment Terms" else "thirty days"
        assert other not in piece.text


def test_the_first_chunk_of_a_section_carries_nothing_from_the_previous_section(count):
    sections = [Section("Recitals", None, clauses(20)), Section("Signatures", None, "Signed in Geneva.")]

    chunks = chunk(sections, count_tokens=count, max_tokens=64, overlap=32)

    assert chunks[-1].text == "Signed in Geneva."


def test_blank_sections_give_no_chunks_and_no_chunk_is_empty(count):
    sections = [Section("cover", 1, "  \n\n \t "), Section("page 2", 2, clauses(12)), Section("back", 3, "\n")]

    chunks = chunk(sections, count_tokens=count, max_tokens=64, overlap=16)

    assert {piece.page for piece in chunks} == {2}
    assert all(piece.text.strip() for piece in chunks)


def test_chunk_indexes_run_from_zero_across_sections(count):
    sections = [Section("page 1", 1, clauses(20)), Section("page 2", 2, clauses(20, start=20))]

    chunks = chunk(sections, count_tokens=count, max_tokens=64, overlap=16)

    assert [piece.index for piece in chunks] == list(range(len(chunks)))


def test_the_same_sections_always_give_the_same_chunks(count):
    sections = [Section("Trust deed", 3, deed())]

    assert chunk(sections, count_tokens=count, max_tokens=96) == chunk(sections, count_tokens=count, max_tokens=96)


def test_an_overlap_as_large_as_a_chunk_is_refused(count):
    with pytest.raises(ValueError, match="overlap"):
        chunk([Section("page 1", 1, "text")], count_tokens=count, max_tokens=48, overlap=48)

"""What docchat makes of tesseract's TSV (the words kept, in lines and paragraphs), and which
words of a scanned page are marked for a cited passage: pure text in, text out, no tesseract."""

from __future__ import annotations

from docchat.documents.ocr import _table, text_of
from docchat.documents.render import marked_words

HEADER = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext"


def row(block: int, paragraph: int, line: int, word: int, text: str, confidence: float = 95.0) -> str:
    return f"5\t1\t{block}\t{paragraph}\t{line}\t{word}\t{10 * word}\t{40 * line}\t9\t30\t{confidence}\t{text}"


def test_words_are_put_together_a_line_per_line_and_a_blank_line_between_paragraphs():
    tsv = "\n".join([
        HEADER,
        "2\t1\t1\t0\t0\t0\t10\t40\t300\t70\t-1\t",  # a block row: no word
        row(1, 1, 1, 1, "Anchor"), row(1, 1, 1, 2, "chain:"), row(1, 1, 2, 1, "312"), row(1, 1, 2, 2, "units"),
        row(1, 2, 1, 1, "Harbour"), row(1, 2, 1, 2, "Forge."),
    ])

    assert text_of(_table(tsv)) == "Anchor chain:\n312 units\n\nHarbour Forge."


def test_words_tesseract_itself_barely_believes_are_specks_and_dropped():
    tsv = "\n".join([HEADER, row(1, 1, 1, 1, "Anchor"), row(1, 1, 1, 2, "~.", confidence=3.1),
                     row(1, 1, 1, 3, "chain")])

    assert text_of(_table(tsv)) == "Anchor chain"


def test_the_page_words_standing_in_the_passage_three_in_a_row_are_marked_case_and_punctuation_aside():
    page = "The harbour master signed the cargo manifest . Anchor chain : 312 units from Harbour Forge.".split()

    marked = marked_words(page, "anchor chain: 312 units from Harbour Forge")

    assert [page[i] for i in marked] == ["Anchor", "chain", "312", "units", "from", "Harbour", "Forge."]


def test_a_word_of_the_passage_alone_on_the_page_is_not_marked():
    page = "The the the cargo was weighed at the harbour".split()

    assert marked_words(page, "the harbour master signed the cargo manifest") == []

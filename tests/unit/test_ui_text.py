"""How the pages word counts, file sizes and times, and show typed text as typed."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from docchat.ui.text import ago, count, literal, size

NOW = datetime(2025, 3, 14, 9, 30, tzinfo=timezone.utc)


@pytest.mark.parametrize("number, noun, words", [
    (0, "chunk", "0 chunks"),
    (1, "chunk", "1 chunk"),
    (2, "chunk", "2 chunks"),
    (1, "page", "1 page"),
    (3, "page", "3 pages"),
    (1204, "message", "1,204 messages"),
])
def test_a_count_names_its_noun_in_the_singular_only_for_one(number, noun, words):
    assert count(number, noun) == words


def test_a_count_takes_an_irregular_plural():
    assert count(2, "summary", "summaries") == "2 summaries"
    assert count(1, "summary", "summaries") == "1 summary"


@pytest.mark.parametrize("length, shown", [
    (0, "0 bytes"),
    (1, "1 byte"),
    (86, "86 bytes"),
    (1023, "1,023 bytes"),
    (1024, "1.0 KB"),
    (4300, "4.2 KB"),
    (88_000, "86 KB"),
    (1_048_000, "1023 KB"),
    (1_048_500, "1.0 MB"),  # 1023.9 KB would round to "1024 KB"
    (1_363_149, "1.3 MB"),
    (52_428_800, "50 MB"),
    (3 * 1024 ** 3, "3.0 GB"),
])
def test_a_file_size_is_in_the_unit_people_read_and_never_zero_kilobytes(length, shown):
    assert size(length) == shown


@pytest.mark.parametrize("before, phrase", [
    (timedelta(seconds=5), "just now"),
    (timedelta(seconds=90), "1 minute ago"),
    (timedelta(minutes=59), "59 minutes ago"),
    (timedelta(hours=1), "1 hour ago"),
    (timedelta(hours=23, minutes=59), "23 hours ago"),
    (timedelta(days=1, hours=2), "1 day ago"),
    (timedelta(days=30), "30 days ago"),
    (timedelta(days=45), "on 2025-01-28"),
])
def test_how_long_ago_reads_as_words_then_as_a_date_after_a_month(before, phrase):
    assert ago(NOW - before, NOW) == phrase


@pytest.mark.parametrize("typed, escaped", [
    ("Q3 *draft* report", r"Q3 \*draft\* report"),
    ("# Board minutes", r"\# Board minutes"),
    ("1. Lease [renewal](x)", r"1\. Lease \[renewal\](x)"),
    ("- pros and cons", r"\- pros and cons"),
    ("+ more", r"\+ more"),
    (":red[urgent] costs $5 and $6", r"\:red\[urgent\] costs \$5 and \$6"),
    ("<b>bold</b> and `code`", r"\<b\>bold\</b\> and \`code\`"),
    (r"C:\reports\q3", r"C\:\\reports\\q3"),
    ("Hartley family trust agreement", "Hartley family trust agreement"),
    ("Harbour Street Trust v2.1 - final (signed).pdf", "Harbour Street Trust v2.1 - final (signed).pdf"),
])
def test_typed_text_is_escaped_so_markdown_shows_it_as_typed(typed, escaped):
    assert literal(typed) == escaped

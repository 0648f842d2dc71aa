"""E-books, mail, code and notebooks parsed in the app's worker processes
(docchat.documents.isolated) give what they give in process, and a hostile one is refused there
in one line while the worker goes on to the next file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docchat.documents.isolated import IsolatedParser
from docchat.documents.parsing import parse
from docchat.errors import InvalidInput

from tests.hostile_files import MB, zip_bomb
from tests.integration.test_parsing_code import PYTHON, RUST
from tests.integration.test_parsing_ebooks import CONTAINER, book
from tests.integration.test_parsing_mail import mail, outlook

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def parser(monkeypatch):
    parser = IsolatedParser(timeout_s=10, memory_mb=512)
    yield parser
    parser.close()


def test_books_mail_code_and_notebooks_parse_in_a_worker_as_in_process(parser):
    cells = [{"cell_type": "markdown", "metadata": {}, "source": "# Reserve Account"},
             {"cell_type": "code", "metadata": {}, "source": "ledger.sum()", "outputs": [], "execution_count": 1}]
    files = {
        "harbour-street.epub": book(),
        "drawings.eml": bytes(mail(attachments=("engine-plans.pdf",))),
        "drawings.msg": outlook(mail()),
        "deeds.py": PYTHON,
        "deed.rs": RUST,
        "reserve.ipynb": json.dumps({"nbformat": 4, "metadata": {}, "cells": cells}).encode(),
    }

    for name, data in files.items():
        assert parser.parse(name, data) == parse(name, data), name
    assert len(parser.workers) == 1


def test_a_hostile_book_is_refused_in_the_worker_and_the_next_file_is_read(parser):
    bomb = zip_bomb("OEBPS/text/harbour.xhtml", 64 * MB, also={"META-INF/container.xml": CONTAINER.encode()})

    with pytest.raises(InvalidInput) as error:
        parser.parse("bomb.epub", bomb, max_bytes=1 * MB)
    after = parser.parse("deeds.py", PYTHON)

    assert str(error.value) == '"bomb.epub" unpacks to 64 MB, too much for an e-book'
    assert after.sections[1].label == "def determination_date (lines 6-9)"

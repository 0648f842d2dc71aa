"""A citation goes to JSON and back unchanged, in the stored form (rows, exports) and the API's,
and the older or partial forms other versions and installations wrote still read."""

from __future__ import annotations

import ast
import json
from dataclasses import fields
from pathlib import Path

import pytest

from docchat.exchange import citation_wire
from docchat.domain import Citation

DEED = Citation(number=2, document="Hartley trust deed.pdf", where="page 4",
                text="Income is paid to the beneficiaries quarterly.",
                document_id="3f9c2b7e-0d41-4a8e-b6d2-5e1f7a9c4b20", chunk_id="8a1d6e3c-7b52-4f09-a3e8-1c6d9b2f5a47",
                page=4, section="Clause 7 Distributions", score=0.031746)
MINUTES = Citation(number=3, document="Trustee minutes 2025.docx", where="Resolutions",
                   text="The trustees resolved to distribute the surplus.", section="Resolutions")


def through_json(value):
    return json.loads(json.dumps(value))


@pytest.mark.parametrize("read", [citation_wire.from_stored, citation_wire.from_row], ids=["export", "row"])
def test_a_citation_comes_back_from_the_stored_form_unchanged(read):
    assert read(through_json(citation_wire.to_stored([DEED, MINUTES]))) == [DEED, MINUTES]


def test_a_citation_comes_back_from_the_api_form_unchanged():
    assert citation_wire.from_api(through_json([citation_wire.to_api(c) for c in (DEED, MINUTES)])) == [DEED, MINUTES]


def test_the_stored_form_is_every_field_under_its_own_name_in_order():
    assert list(citation_wire.to_stored([DEED])[0]) == [field.name for field in fields(Citation)]


def test_the_api_form_numbers_with_n_and_says_null_for_no_section():
    sent = citation_wire.to_api(Citation(number=1, document="rent-schedule.csv", where="", text="Rent is due."))

    assert list(sent) == ["n", "document_id", "document", "page", "section", "text", "where", "chunk_id", "score"]
    assert (sent["n"], sent["section"]) == (1, None)


def test_the_api_form_is_what_the_api_schema_declares():
    from docchat.api.schemas import CitationOut

    assert list(citation_wire.to_api(DEED)) == list(CitationOut.model_fields)


@pytest.mark.parametrize("read", [citation_wire.from_stored, citation_wire.from_row], ids=["export", "row"])
def test_a_source_an_older_version_stored_reads_filled_in(read):
    # As versions before numbered sources wrote them: a page and a quote, no chunk.
    older = [{"document": "Hartley trust deed.pdf", "page": 4, "quote": "Income is paid quarterly."}]

    assert read(older) == [Citation(number=1, document="Hartley trust deed.pdf", where="page 4", page=4,
                                    text="Income is paid quarterly.")]


def test_a_citation_that_names_nothing_takes_every_default():
    assert citation_wire.from_stored([{}]) == [Citation(number=1, document="unknown document", where="", text="")]


def test_an_api_citation_with_fields_missing_or_null_reads_with_their_defaults():
    sent = [{"n": 5, "document": "harbour-trust.md", "page": None, "section": None, "text": "The last Business Day."}]

    assert citation_wire.from_api(sent) == [Citation(number=5, document="harbour-trust.md", where="",
                                                     text="The last Business Day.")]


@pytest.mark.parametrize("read", [citation_wire.from_stored, citation_wire.from_row, citation_wire.from_api])
def test_entries_that_are_not_objects_are_skipped_and_the_others_numbered_by_their_place(read):
    assert [(c.number, c.document) for c in read(["Hartley trust deed.pdf", None, {"document": "minutes.docx"}])] == [
        (3, "minutes.docx")]
    assert read(None) == []


def test_a_row_that_lacks_a_field_is_checked_and_filled_in_not_taken_as_it_is():
    row = {**DEED.as_dict(), "score": "high", "page": "four"}
    del row["number"]

    [read] = citation_wire.from_row([row])
    assert (read.number, read.page, read.score, read.where) == (1, None, 0.0, "page 4")


def test_the_mapping_imports_nothing_but_the_domain_so_the_terminal_client_stays_light():
    tree = ast.parse(Path(citation_wire.__file__).read_text())
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported <= {"__future__", "dataclasses", "typing", "docchat.domain"}

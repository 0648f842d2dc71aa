"""Source code and notebooks through the real parsers: real files written here, cited by their
definitions and lines ("def parse (lines 6-9)") or cells ("cell 2: code"); every line of code
lands in exactly one section; what is not code or not a notebook is refused in one line."""

from __future__ import annotations

import json

import pytest

from docchat.documents import code_blocks
from docchat.documents.kinds.code import SUFFIXES, read_python
from docchat.documents.parsing import parse
from docchat.errors import InvalidInput

from tests.hostile_files import MB

PYTHON = b'''"""Reads trust deeds."""
import re

DATE = re.compile(r"the (\\d+)th")

# The Determination Date, as the deed words it.
@staticmethod
def determination_date(text):
    return DATE.search(text).group(1)


class Deed:
    """A signed deed."""

    def __init__(self, text):
        self.text = text


async def fetch_deed(path):
    return open(path).read()

if __name__ == "__main__":
    print(determination_date("the 15th"))
'''


def labels(name: str, data: bytes) -> list[str]:
    return [section.label for section in parse(name, data).sections]


def lines_of(name: str, data: bytes) -> list[str]:
    """Every non-blank line of every section, in order, without its indentation (which parse
    strips from a section's first line)."""
    return [line.strip() for section in parse(name, data).sections for line in section.text.split("\n")
            if line.strip()]


def code_lines(source: str | bytes) -> list[str]:
    text = source.decode() if isinstance(source, bytes) else source
    return [line.strip() for line in text.split("\n") if line.strip()]


def reason(error: pytest.ExceptionInfo) -> str:
    message = str(error.value)
    assert "\n" not in message
    return message


# Python


def test_python_is_cited_by_its_top_level_functions_and_classes_with_their_lines():
    document = parse("deeds.py", PYTHON)

    assert document.kind == "python"
    assert [section.label for section in document.sections] == [
        "module (lines 1-4)",
        "def determination_date (lines 6-9)",
        "class Deed (lines 12-16)",
        "async def fetch_deed (lines 19-20)",
        "module (lines 22-23)",
    ]


def test_a_function_brings_its_decorators_and_the_comment_above_it():
    sections = parse("deeds.py", PYTHON).sections

    assert sections[1].text == ("# The Determination Date, as the deed words it.\n@staticmethod\n"
                                "def determination_date(text):\n    return DATE.search(text).group(1)")


def test_every_line_of_the_code_is_in_exactly_one_section():
    assert lines_of("deeds.py", PYTHON) == code_lines(PYTHON)


def test_a_large_class_is_cited_by_its_methods():
    methods = "".join(f"\n    def clause_{n}(self):\n        return 'Clause {n}: {'the Trustee shall act. ' * 8}'\n"
                      for n in range(1, 31))
    source = f"import re\n\n\nclass TrustDeed:\n    \"\"\"Every clause.\"\"\"\n    TITLE = 'Deed'\n{methods}"

    found = labels("deed.py", source.encode())

    assert found[:4] == ["module (line 1)", "class TrustDeed (lines 4-6)",
                         "class TrustDeed › def clause_1 (lines 8-9)", "class TrustDeed › def clause_2 (lines 11-12)"]
    assert len(found) == 32
    assert lines_of("deed.py", source.encode()) == code_lines(source)


def test_python_that_does_not_parse_is_cited_by_runs_of_lines():
    legacy = b'print "Determination Date: 15th"\n\ndef old():\n    print "ninety days"\n'

    assert labels("legacy.py", legacy) == ["lines 1-4"]


def test_python_nested_too_deeply_for_ast_is_still_read_as_lines():
    assert labels("deep.py", b"x = " + b"not " * 100_000 + b"y\n") == ["line 1"]


def test_the_parser_gives_the_same_sections_when_called_directly():
    sections = read_python('"deeds.py"', PYTHON, 50 * MB)

    assert [section.label for section in sections][1] == "def determination_date (lines 6-9)"


# Brace languages and Ruby


RUST = b"""use std::fmt;

/// A signed deed.
#[derive(Debug)]
pub struct Deed<'a> {
    text: &'a str,
}

impl<'a> fmt::Display for Deed<'a> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{{deed}} {}", self.text)
    }
}

pub fn determination_date(text: &str) -> &'static str {
    let brace = '{';
    "15th"
}
"""


def test_rust_is_cited_by_its_items_whatever_braces_its_strings_and_lifetimes_hold():
    assert labels("deed.rs", RUST) == [
        "top level (line 1)", "struct Deed (lines 3-7)", "impl fmt::Display for Deed<'a> (lines 9-13)",
        "fn determination_date (lines 15-18)"]


def test_javascript_functions_classes_and_arrow_functions_are_sections():
    source = b"""import { readFile } from "fs";

// Reads the deed.
export async function readDeed(path) {
  const text = await readFile(path, "utf8"); // a } in a comment
  return `Deed: ${text} }`;
}

export class Deed {
  constructor(text) { this.text = text; }
}

const determinationDate = (text) => {
  /* the 15th { */
  return text.match(/the (\\d+)th/)[1];
};
"""
    assert labels("deed.js", source) == [
        "top level (line 1)", "function readDeed (lines 3-7)", "class Deed (lines 9-11)",
        "const determinationDate (lines 13-16)"]


def test_a_large_java_class_is_cited_by_its_methods():
    methods = "".join(f"""
    /** Clause {n}. */
    public String clause{n}() {{
        return "{'The Trustee shall act in good faith. ' * 6}";
    }}
""" for n in range(1, 21))
    source = f"package deeds;\n\nimport java.util.List;\n\npublic class TrustDeed {{\n    private int year = 2024;\n{methods}}}\n"

    found = labels("TrustDeed.java", source.encode())

    assert found[:4] == ["top level (lines 1-3)", "class TrustDeed (lines 5-6)",
                         "class TrustDeed › clause1 (lines 8-11)", "class TrustDeed › clause2 (lines 13-16)"]
    assert found[-1] == "class TrustDeed › clause20 (lines 103-107)"
    assert lines_of("TrustDeed.java", source.encode()) == code_lines(source)


@pytest.mark.parametrize("name, source, expected", [
    ("deed.go", b'package deeds\n\nimport "fmt"\n\nfunc (d *Deed) Date() string {\n\treturn "15th"\n}\n',
     ["top level (lines 1-3)", "func Date (lines 5-7)"]),
    ("deed.c", b'#include <stdio.h>\nint main(int argc, char **argv) {\n    printf("{\\n");\n    return 0;\n}\n',
     ["top level (line 1)", "main (lines 2-5)"]),
    ("Deed.cs", b"using System;\n\nnamespace Deeds\n{\n    public class Deed\n    {\n    }\n}\n",
     ["top level (line 1)", "namespace Deeds (lines 3-8)"]),
    ("deed.sh", b'#!/bin/sh\nset -e\n\nfetch_deed() {\n  echo "# not a comment {"\n}\n\nfetch_deed\n',
     ["top level (lines 1-2)", "fetch_deed (lines 4-6)", "top level (line 8)"]),
    ("deed.rb", b"require 'date'\n\n# A deed.\nclass Deed\n  def date\n    '15th'\n  end\nend\n\ndef sign; end\n",
     ["top level (line 1)", "class Deed (lines 3-8)", "def sign (line 10)"]),
    ("deed.php", b"<?php\n# Deeds\nfunction deed_date($text) {\n    return '15th {';\n}\n",
     ["top level (line 1)", "function deed_date (lines 2-5)"]),
])
def test_each_language_is_cited_by_its_definitions(name, source, expected):
    assert labels(name, source) == expected


def test_braces_that_never_balance_leave_the_rest_as_lines_and_lose_none():
    source = b"fn first() {\n    1\n}\n\nfn broken() {\n    let s = \"unclosed;\n}\n\nfn after() {\n}\n" * 3

    assert labels("broken.rs", source)[0] == "fn first (lines 1-3)"
    assert lines_of("broken.rs", source) == code_lines(source)


def test_a_file_with_no_definition_is_one_run_of_lines():
    assert labels("install.sh", b"#!/bin/sh\nset -e\npip install docchat\n") == ["top level (lines 1-3)"]


@pytest.mark.parametrize("suffix", sorted(set(SUFFIXES) - {".ipynb"}))
def test_every_code_suffix_is_read(suffix):
    assert lines_of(f"deed{suffix}", b"x = 1\n\nthe determination date is the 15th\n")[-1] == (
        "the determination date is the 15th")


# Refusals


@pytest.mark.parametrize("data, why", [
    (b"def f():\n" + b"\x00\x01\x02\x03" * 200, "looks like a binary file, not text"),
    ("def determination_date(): pass\n".encode("utf-16") * 20, "looks like a binary file, not text"),
    (bytes(range(0x80, 0x100)) * 8, "is not UTF-8 text (is it a binary file with a text extension?)"),
])
def test_code_that_is_not_text_is_refused(data, why):
    with pytest.raises(InvalidInput) as error:
        parse("deed.py", data)

    assert reason(error) == f'"deed.py" {why}'


# Notebooks


def notebook(*cells: dict) -> bytes:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": list(cells)}).encode()


def markdown(text: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": text.splitlines(keepends=True)}


def code(text: str, *outputs: dict) -> dict:
    return {"cell_type": "code", "metadata": {}, "execution_count": 1, "source": text, "outputs": list(outputs)}


ANALYSIS = notebook(
    markdown("# Reserve Account\nHow the shortfalls were covered."),
    code("import pandas as pd\nledger = pd.read_csv('ledger.csv')"),
    code("ledger.shortfall.sum()",
         {"output_type": "execute_result", "execution_count": 2, "metadata": {},
          "data": {"text/plain": ["12450.75"], "image/png": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB"}}),
    code("print('covered')\n1 / 0",
         {"output_type": "stream", "name": "stdout", "text": ["covered\n"]},
         {"output_type": "error", "ename": "ZeroDivisionError", "evalue": "division by zero",
          "traceback": ["\x1b[31mTraceback..."]}),
)


def test_a_notebook_is_cited_by_its_cells():
    document = parse("reserve.ipynb", ANALYSIS)

    assert document.kind == "notebook"
    assert [section.label for section in document.sections] == [
        "cell 1: markdown", "cell 2: code", "cell 3: code", "cell 4: code"]
    assert document.sections[0].text == "# Reserve Account\nHow the shortfalls were covered."


def test_a_code_cell_shows_its_text_outputs_but_no_pictures():
    sections = parse("reserve.ipynb", ANALYSIS).sections

    assert sections[2].text == "ledger.shortfall.sum()\n\nOutput:\n12450.75"
    assert sections[3].text == "print('covered')\n1 / 0\n\nOutput:\ncovered\n\nZeroDivisionError: division by zero"


def test_long_outputs_are_cut_short():
    printed = {"output_type": "stream", "name": "stdout", "text": "Shortfall covered.\n" * 2000}

    [section] = parse("loop.ipynb", notebook(code("for day in ledger: print(day)", printed))).sections

    assert len(section.text) < 1100
    assert section.text.endswith("…")


@pytest.mark.parametrize("data", [
    b'{"cells": [{"cell_type": "code", "source": ',
    b'{"nbformat": 4, "metadata": {}}',
    b'[1, 2, 3]',
    notebook({"cell_type": "code", "source": 42}),
    notebook({"cell_type": "code", "source": "x", "outputs": [{"text": "no type"}]}),
    b"[" * 100_000 + b"]" * 100_000,
])
def test_a_malformed_notebook_is_refused(data):
    with pytest.raises(InvalidInput) as error:
        parse("reserve.ipynb", data)

    assert reason(error) == '"reserve.ipynb" is not a readable Jupyter notebook (.ipynb)'


def test_a_notebook_with_nothing_in_its_cells_has_no_text_to_index():
    with pytest.raises(InvalidInput) as error:
        parse("blank.ipynb", notebook(code(""), markdown("")))

    assert reason(error) == '"blank.ipynb" has no text to index'


def test_the_block_scanner_gives_every_line_once_whatever_the_input():
    noise = "".join(chr(c) for c in range(32, 127)) * 40
    lines = [noise[n: n + 70] for n in range(0, len(noise), 37)]

    parts = code_blocks.brace_parts(lines, code_blocks.C_LIKE, "top level")

    assert [n for part in parts for n in range(part.first, part.last + 1)] == list(range(len(lines)))

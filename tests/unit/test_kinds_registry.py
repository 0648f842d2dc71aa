"""The kinds of file docchat reads are gathered from their modules: a module in
docchat.documents.kinds is read, refused by name and named in the one sentence the page, the API
and the CLI say, with nothing else to edit."""

from __future__ import annotations

import pkgutil

from docchat.documents import kinds, registry
from docchat.documents.parsing import parse


def test_every_module_of_the_kinds_package_is_gathered():
    in_folder = {f"docchat.documents.kinds.{module.name}" for module in pkgutil.iter_modules(kinds.__path__)}
    assert {module.__name__ for module in registry.MODULES} == in_folder


def test_no_suffix_is_claimed_by_two_kinds():
    suffixes = [suffix for kind in registry.KINDS.values() for suffix in kind.suffixes]
    assert len(suffixes) == len(set(suffixes))
    assert all(suffix == suffix.lower() and suffix.startswith(".") for suffix in suffixes)


def test_the_sentence_names_every_family_in_order_and_ends_with_and():
    assert registry.READABLE == (
        "PDF, DOCX, Markdown, text, HTML, slides (PPTX), spreadsheets (XLSX, ODS, CSV, TSV), e-books (EPUB), "
        "mail (EML, MSG), source code and notebooks (Python, JavaScript, TypeScript, Java, Go, Rust, C, C++ "
        "and more; IPYNB), and images and scans by OCR (PNG, JPEG, TIFF, WebP)")


def test_a_file_is_read_by_the_kind_its_suffix_names_in_any_case():
    assert registry.kind_of("Notes/READ.ME.MD").name == "markdown"
    assert registry.kind_of("C:\\Users\\me\\scan.TIFF").name == "image"
    assert registry.kind_of("archive.tar.gz") is None
    assert parse("Plan.TSV", b"item\tcost\nbread\t3\n").kind == "tsv"

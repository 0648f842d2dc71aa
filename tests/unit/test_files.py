"""Upload names become safe file names; content is identified by its sha256."""

from __future__ import annotations

import hashlib

import pytest

from docchat.documents.files import MAX_NAME_BYTES, content_hash, sanitise_name

HOSTILE_NAMES = [
    "../../x",
    "..\\..\\evil.pdf",
    "/etc/passwd",
    "C:\\Windows\\System32\\drivers\\etc\\hosts",
    "....//....//trust-deed.pdf",
    "..",
    "...",
    "report\x00.pdf",
    "minutes\n../../.bashrc",
    ".hidden",
    "./.ssh/authorized_keys",
    "invoice.pdf/..",
]


def test_an_upload_named_dot_dot_slash_x_keeps_only_x():
    assert sanitise_name("../../x") == "x"


def test_windows_separators_cannot_climb_out_either():
    assert sanitise_name("..\\..\\evil.pdf") == "evil.pdf"


def test_an_absolute_path_is_reduced_to_its_file_name():
    assert sanitise_name("/etc/passwd") == "passwd"


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_no_hostile_name_keeps_a_separator_a_dot_dot_or_a_leading_dot(name):
    safe = sanitise_name(name)

    assert safe
    assert "/" not in safe and "\\" not in safe
    assert ".." not in safe
    assert not safe.startswith(".")


def test_nul_bytes_and_newlines_become_spaces():
    assert sanitise_name("Q3\x00board\nminutes\r.pdf") == "Q3 board minutes.pdf"


def test_a_right_to_left_override_cannot_disguise_the_extension():
    # "\u202e" would display "invoice\u202efdp.exe" as "invoiceexe.pdf".
    assert sanitise_name("invoice\u202efdp.exe") == "invoice fdp.exe"


def test_a_leading_dot_cannot_hide_the_file():
    assert sanitise_name(".hidden") == "hidden"


def test_a_name_of_nothing_but_dots_becomes_a_placeholder():
    assert sanitise_name("..") == "document"


def test_a_500_character_name_is_cut_short_but_keeps_its_extension():
    safe = sanitise_name("Annual report of the Trust Manager " * 15 + ".pdf")

    assert len(safe.encode("utf-8")) <= MAX_NAME_BYTES
    assert safe.startswith("Annual report of the Trust Manager")
    assert safe.endswith(".pdf")


def test_the_extension_is_lowercased():
    assert sanitise_name("TRUST DEED.PDF") == "TRUST DEED.pdf"


def test_accented_names_survive_intact():
    assert sanitise_name("Überblick – Verträge 2024.docx") == "Überblick – Verträge 2024.docx"


def test_a_long_japanese_name_is_cut_between_characters_not_inside_one():
    safe = sanitise_name("信託契約書の決定日" * 40 + ".pdf")

    assert len(safe.encode("utf-8")) <= MAX_NAME_BYTES
    assert safe.endswith(".pdf")
    assert set(safe.removesuffix(".pdf")) <= set("信託契約書の決定日")


def test_characters_windows_refuses_are_replaced():
    assert sanitise_name('what? "final" <v2>|*.md') == "what_ _final_ _v2___.md"


def test_content_hash_is_the_sha256_hex_digest():
    deed = b"The Determination Date is the 15th of each month."

    assert content_hash(deed) == hashlib.sha256(deed).hexdigest()
    assert len(content_hash(deed)) == 64


def test_one_changed_byte_changes_the_hash():
    assert content_hash(b"Pay 100 EUR") != content_hash(b"Pay 900 EUR")

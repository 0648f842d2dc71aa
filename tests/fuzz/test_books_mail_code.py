"""E-books, mail, code and notebooks, valid ones cut short or with bytes changed, and any bytes
under their names: each is read into sections with text, or refused with docchat's own error on
one line; no parser exception escapes (docchat.documents.parsing's contract)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from docchat.documents.kinds import code, ebooks, mail
from docchat.documents.parsing import parse
from docchat.errors import InvalidInput

from tests.fuzz.checks import examples, one_line, outcome, refusal
from tests.fuzz.texts import hostile_text
from tests.integration.test_parsing_code import ANALYSIS, PYTHON, RUST
from tests.integration.test_parsing_ebooks import book
from tests.integration.test_parsing_mail import mail as mail_of
from tests.integration.test_parsing_mail import outlook

VALID = {
    ".epub": book(),
    ".eml": bytes(mail_of(attachments=("engine-plans.pdf",))),
    ".msg": outlook(mail_of()),
    ".py": PYTHON,
    ".rs": RUST,
    ".ipynb": ANALYSIS,
}
EXTENSIONS = sorted(suffix for module in (ebooks, mail, code) for kind in module.KINDS for suffix in kind.suffixes)


def read(name: str, data: bytes) -> None:
    try:
        document = parse(name, data, max_bytes=1024 * 1024)
    except Exception as error:  # anything but docchat's own error fails in one_line
        outcome(refusal(one_line(error)))
        assert isinstance(error, InvalidInput)
        return
    outcome("read")
    assert document.sections and all(section.text.strip() for section in document.sections)


@examples(150)
@given(data=st.one_of(st.binary(max_size=3000), hostile_text(max_size=400).map(lambda t: t.encode("utf-8"))),
       extension=st.sampled_from(EXTENSIONS))
def test_any_bytes_under_these_names_are_read_or_refused_on_one_line(data, extension):
    read(f"Harbour Street Trust{extension}", data)


@examples(120)
@given(extension=st.sampled_from(sorted(VALID)), cut=st.floats(0, 1, exclude_max=True))
def test_a_valid_file_cut_short_anywhere_is_read_or_refused_on_one_line(extension, cut):
    data = VALID[extension]

    read(f"Harbour Street Trust{extension}", data[: int(len(data) * cut)])


@examples(150)
@given(extension=st.sampled_from(sorted(VALID)),
       changes=st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 255)), min_size=1, max_size=8))
def test_a_valid_file_with_bytes_changed_is_read_or_refused_on_one_line(extension, changes):
    data = bytearray(VALID[extension])
    for where, value in changes:
        data[int(len(data) * where)] = value

    read(f"Harbour Street Trust{extension}", bytes(data))

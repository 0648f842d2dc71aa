"""The names of issue 23's list, each reduced to one safe file name (more in test_files.py)."""

from __future__ import annotations

import pytest

from docchat.documents.files import sanitise_name


@pytest.mark.parametrize(("uploaded", "stored"), [
    ("../../etc/passwd", "passwd"),
    ("/abs/path.pdf", "path.pdf"),
    ("C:\\Windows\\x.pdf", "x.pdf"),
    ("..\\..\\x.pdf", "x.pdf"),
    ("minutes\x00.pdf", "minutes.pdf"),
    ("invoice\u202efdp.pdf", "invoice fdp.pdf"),
    ("\u202e\u2066../..\u2069/report.pdf", "report.pdf"),
], ids=repr)
def test_an_uploaded_path_keeps_only_its_last_component_made_safe(uploaded, stored):
    assert sanitise_name(uploaded) == stored

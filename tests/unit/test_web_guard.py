"""The door's reading of Host and Origin headers, where a slip would let a page in."""

from __future__ import annotations

import pytest

from docchat.web.guard import Door, allowed_hosts

DOOR = Door(allowed_hosts("127.0.0.1", ["docs.example.com"]))


@pytest.mark.parametrize("host", ["127.0.0.1:8501", "localhost:8501", "LOCALHOST.:8501", "[::1]:8501",
                                  "127.0.0.2:8501", "docs.example.com", "Docs.Example.com:443"])
def test_the_names_of_this_machine_and_the_configured_ones_are_let_in(host):
    assert DOOR.refusal("GET", {"host": host}) is None


@pytest.mark.parametrize("host", ["evil.example:8501", "127.0.0.1.evil.example", "localhost.evil.example:8501",
                                  "docs.example.com.evil.example", ""])
def test_a_name_that_only_looks_like_ours_is_refused(host):
    assert DOOR.refusal("GET", {"host": host}) is not None


@pytest.mark.parametrize("origin", ["http://127.0.0.1:9999", "http://localhost:8501", "null", "file://",
                                    "http://127.0.0.1:8501.evil.example", "javascript:alert(1)"])
def test_an_origin_other_than_the_host_itself_is_refused(origin):
    assert DOOR.refusal("POST", {"host": "127.0.0.1:8501", "origin": origin}) is not None


def test_the_wildcard_bind_names_no_host():
    assert allowed_hosts("0.0.0.0") == allowed_hosts("::") == allowed_hosts(None)

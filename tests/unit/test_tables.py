"""Stored JSON reads back exactly as SQLAlchemy's json.dumps wrote it. Not with orjson: it reads an
integer beyond 64 bits as a float, without a word (the import fuzz test found one in `usage`)."""

import json
import math

import pytest

from docchat.store.tables import sqlite_json


@pytest.mark.parametrize("value", [{"prompt_tokens": 2_236, "completion_tokens": 14}, [], None, "five",
                                   [{"score": 0.8125, "page": None}], 0.1 + 0.2, 1e300,
                                   # beyond 64 bits
                                   {"schema": -(2**63) - 1}, [3**50], 2**64 + 1])
def test_stored_json_reads_back_as_written(value):
    read = sqlite_json(json.dumps(value))

    assert read == value and json.dumps(read) == json.dumps(value)


def test_a_nan_json_dumps_wrote_reads_back():
    assert math.isnan(sqlite_json(json.dumps({"share": float("nan")}))["share"])


def test_broken_json_says_where_it_breaks():
    with pytest.raises(json.JSONDecodeError, match="line 1 column"):
        sqlite_json('{"prompt_tokens": ')

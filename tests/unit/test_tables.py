"""Stored JSON reads back as SQLAlchemy's json.dumps wrote it, including what orjson refuses."""

import json
import math

import pytest

from docchat.store.tables import sqlite_json


@pytest.mark.parametrize("value", [{"prompt_tokens": 2_236, "completion_tokens": 14}, [], None, 2**70, "five",
                                   [{"score": 0.8125, "page": None}]])
def test_stored_json_reads_back_as_written(value):
    assert sqlite_json(json.dumps(value)) == value


def test_a_nan_json_dumps_wrote_reads_back():
    assert math.isnan(sqlite_json(json.dumps({"share": float("nan")}))["share"])


def test_broken_json_says_where_it_breaks():
    with pytest.raises(json.JSONDecodeError, match="line 1 column"):
        sqlite_json('{"prompt_tokens": ')

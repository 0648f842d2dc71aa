"""The export checksum is taken of the bytes json.dumps writes (sorted keys, compact, UTF-8),
whichever encoder docchat uses to write them: exports made before and after import alike."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import example, given

from docchat.exchange.json_writing import canonical_json

from tests.fuzz.checks import examples
from tests.fuzz.texts import json_values


def written_by_json(value) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


@examples(500)
@given(value=json_values())
@example(value={"score": 1e-05, "usage": {"prompt_tokens": 2_236}})
@example(value=[3.5e-07, 9.99e-05, 1e-10, 0.0001, 1e16, -0.0, 5e-324, 1.7976931348623157e308])
@example(value=[math.nan, math.inf, -math.inf])
@example(value={"tokens": 2**64, "cached": 2**63, "owed": -(2**63) - 1})
@example(value={"\U0001F600": 1, "\uffff": 2, "é": 3, "": 4, "a\x00": 5})
def test_the_bytes_checksummed_are_those_json_writes_for_any_value(value):
    assert canonical_json(value) == written_by_json(value)


def test_text_with_a_lone_surrogate_is_refused_as_json_refuses_it():
    with pytest.raises(UnicodeEncodeError):
        written_by_json(["\ud800 owed"])
    with pytest.raises(UnicodeEncodeError):
        canonical_json(["\ud800 owed"])

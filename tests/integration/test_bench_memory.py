"""`docchat bench memory` at a tiny size: per history length, docchat's figures beside both
LlamaIndex memories' (no timing is asserted)."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from docchat.cli import main

TINY = ["bench", "memory", "--lengths", "1500,400", "--turns", "3"]
MEMORIES = ("docchat", "chat_memory_buffer", "memory")


@pytest.fixture(scope="module")
def report() -> dict:
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main([*TINY, "--json"]) == 0
    return json.loads(printed.getvalue())


def test_the_json_has_the_three_memories_figures_at_each_length_shortest_first(report):
    rows = report["lengths"]
    assert len(rows) == 2
    assert 400 <= rows[0]["history_tokens"] < 1500 <= rows[1]["history_tokens"]
    for row in rows:
        for memory in MEMORIES:
            assert row[f"{memory}_ms_p50"] > 0 and row[f"{memory}_ms_p95"] >= row[f"{memory}_ms_p50"]
            assert row[f"{memory}_cpu_ms_p50"] >= 0
        assert row["chat_memory_buffer_ratio_p50"] > 0 and row["memory_ratio_p50"] > 0
    assert report["turns"] == 3 and report["budget"] == 260_000


def test_the_longest_history_keeps_the_names_earlier_versions_printed(report):
    longest = report["lengths"][-1]
    assert report["docchat_p50_ms"] == longest["docchat_ms_p50"]
    assert report["baseline_p50_ms"] == longest["chat_memory_buffer_ms_p50"]
    assert report["memory_p50_ms"] == longest["memory_ms_p50"]
    assert report["ratio_p50"] == longest["chat_memory_buffer_ratio_p50"]


def test_every_memory_builds_the_same_window_from_the_same_messages(report):
    # Within the budget, all three hand the model the whole conversation, the turns' questions too.
    for row in report["lengths"]:
        assert {row[f"{memory}_window_messages"] for memory in MEMORIES} == {row["history_messages"] + 3}


def test_the_table_shows_each_memory_at_each_length(capsys):
    assert main(TINY) == 0

    out = capsys.readouterr().out
    for label in ("docchat ConversationMemory", "ChatMemoryBuffer + SQLiteChatStore", "Memory + SQLAlchemyChatStore"):
        assert out.count(label) == 2
    assert out.count("\nhistory ") == 2


@pytest.mark.parametrize("lengths", ["250K", "1000,,2000", "0"])
def test_lengths_that_are_not_token_counts_are_refused_with_a_message(capsys, lengths):
    with pytest.raises(SystemExit) as exit:
        main(["bench", "memory", "--lengths", lengths])

    assert exit.value.code == 2
    assert "--lengths" in capsys.readouterr().err

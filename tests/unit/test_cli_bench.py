"""`docchat bench` without the `bench` extra: the suites are still listed, and running one says
in one line what to install, never a traceback."""

from __future__ import annotations

import sys

import pytest

from docchat.cli import main


@pytest.mark.parametrize("missing", ["docchat_bench", "matplotlib", "llama_index.storage.chat_store.sqlite"])
def test_a_suite_without_the_bench_extra_says_in_one_line_what_to_install(monkeypatch, capsys, missing):
    monkeypatch.setitem(sys.modules, missing, None)  # what an import finds when the package is not installed

    assert main(["bench", "followups"]) == 1

    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("docchat: docchat bench needs the bench extra") and missing in err
    assert 'pip install -e ".[bench]"' in err


def test_the_suites_are_listed_without_the_bench_extra(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "docchat_bench", None)

    with pytest.raises(SystemExit) as exit:
        main(["bench", "--help"])

    assert exit.value.code == 0
    assert "followups" in capsys.readouterr().out

"""`docchat ask --history FILE`: any file at all gets an answer or one line on stderr saying why
not, and nothing is stored either way.

The file is a JSON list of {role, content} (see services/stateless.py); the command runs in
this process (a real process costs seconds of imports), its exceptions reaching the test.
"""

from __future__ import annotations

import contextlib
import io
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from docchat.cli import main

from tests.fault.fake_server import ANSWER
from tests.fuzz.checks import database_rows, examples, outcome, refusal
from tests.fuzz.texts import hostile_text, json_values, surrogate_text

QUESTION = "When is the Determination Date?"


@pytest.fixture(scope="module")
def asking(fuzz_services, fuzz_root, cli_environment):
    """The CLI's environment over the module's data dir (its database made by the services)."""
    return fuzz_root


def ask(root, history: bytes, question: str = QUESTION) -> tuple[int, str, str]:
    """`docchat ask --history FILE QUESTION` in this process: its exit code, stdout and stderr."""
    path = root / "history.json"
    path.write_bytes(history)
    out, err = io.StringIO(), io.StringIO()
    before = database_rows(root / "data")
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["ask", "--history", str(path), "--", question])
    assert database_rows(root / "data") == before, "a stateless question stored something"
    if code == 0:
        assert out.getvalue() == "".join(ANSWER) + "\n" and err.getvalue() == ""
        outcome("answered")
    else:
        lines = err.getvalue().splitlines()
        assert code == 1 and len(lines) == 1 and lines[0].startswith("docchat: "), err.getvalue()
        assert "Traceback" not in lines[0] and out.getvalue() == ""
        outcome(refusal(lines[0].removeprefix("docchat: ")))
    return code, out.getvalue(), err.getvalue()


def turns(content: st.SearchStrategy) -> st.SearchStrategy[list]:
    """History-shaped lists: right ones, and right ones with one wrong item somewhere (a wrong
    role, a missing or extra key, not an object at all)."""
    right = st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "system"]), "content": content})
    wrong = st.one_of(
        st.fixed_dictionaries({"role": st.one_of(st.sampled_from(["tool", "User", ""]), json_values()),
                               "content": content}),
        st.fixed_dictionaries({"content": content}, optional={"role": st.just("user"), "name": hostile_text()}),
        json_values(),
    )

    def spoiled(parts) -> list:
        items, bad, where = parts
        return items if bad is None else items[:where] + [bad] + items[where:]

    return st.tuples(st.lists(right, max_size=6), st.none() | wrong, st.integers(0, 6)).map(spoiled)


@examples(30)
@given(raw=st.binary(max_size=600))
def test_any_bytes_as_a_history_file_get_an_answer_or_one_line(asking, raw):
    ask(asking, raw)


@examples(50)
@given(history=st.one_of(json_values(), turns(hostile_text(max_size=200)), turns(json_values())))
def test_any_json_as_a_history_gets_an_answer_or_one_line(asking, history):
    ask(asking, json.dumps(history, ensure_ascii=False).encode("utf-8", "surrogatepass"))


@examples(40)
@given(history=turns(st.one_of(hostile_text(max_size=200), surrogate_text())),
       question=st.one_of(st.just(QUESTION), hostile_text(max_size=100), surrogate_text()))
def test_history_or_question_text_that_is_not_valid_unicode_is_refused_on_one_line(asking, history, question):
    # ensure_ascii writes each lone surrogate as a \ud800 escape, which json reads back as one.
    code, _, err = ask(asking, json.dumps(history).encode("ascii"), question)

    if code == 1 and "surrogate" in err:
        assert "is not valid Unicode" in err


@examples(25)
@given(depth=st.integers(1, 100_000), digits=st.integers(0, 10_000),
       where=st.sampled_from(["nesting", "content", "number"]))
def test_deep_nesting_and_huge_numbers_in_a_history_get_one_line(asking, depth, digits, where):
    nested = "[" * depth + "]" * depth
    history = {
        "nesting": nested,
        "content": f'[{{"role": "user", "content": {nested}}}]',
        "number": f'[{{"role": "user", "content": "{QUESTION}", "seq": 1{"0" * digits}}}]',
    }[where]

    ask(asking, history.encode())

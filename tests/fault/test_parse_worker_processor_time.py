"""The parsing worker's time limit counts the processor time it and its programs use, not the time
they wait: a file read slowly on a busy machine, or by a parser that waits, is read; short
programs run one after another add up; a parser that does no work at all is stopped after the
stall limit (tests/fault/misbehaving_parser.py stands in for each)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from docchat.documents.isolated import IsolatedParser
from docchat.errors import InvalidInput

from tests.fault.misbehaving_parser import STARVED_S, WAIT_S
from tests.fault.test_parse_worker import MEMO, MISBEHAVING, importable_tests  # noqa: F401 (the fixture)
from tests.fault.test_parse_worker_progress import TIMEOUT_S, parser  # noqa: F401 (the fixture)

# Programs that keep the starved parser's core busy: it gets at most a quarter of that core.
HOGS = 3


@pytest.fixture
def busy_core():
    """A core of this machine that programs keep busy (the number of that core)."""
    core = max(os.sched_getaffinity(0))
    # Each in a session of its own, as the worker is: where the kernel shares a core between
    # sessions first (autogroup), three in one session would take only half of it.
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"], stdin=subprocess.DEVNULL,
                             start_new_session=True) for _ in range(HOGS)]
    try:
        for hog in hogs:
            os.sched_setaffinity(hog.pid, {core})
        yield core
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


def test_a_file_read_slowly_on_a_busy_machine_is_not_refused_for_the_time_it_took(parser, busy_core):
    assert STARVED_S < TIMEOUT_S  # the processor time it needs is within the limit
    parser.parse("memo.txt", MEMO)  # a worker started: its start is not this file's time
    started = time.monotonic()

    document = parser.parse("starved.txt", str(busy_core).encode())

    assert time.monotonic() - started > TIMEOUT_S  # the time the old limit would have refused it at
    assert document.sections[0].text == "Read on a busy machine."


def test_a_parser_that_waits_longer_than_the_time_limit_is_not_refused(parser):
    assert WAIT_S > TIMEOUT_S

    document = parser.parse("waits.txt", MEMO)

    assert document.sections[0].text == "Read after a long wait."


def test_short_programs_run_one_after_another_are_stopped_when_their_processor_time_adds_up(parser):
    with pytest.raises(InvalidInput) as refused:
        parser.parse("programs.txt", MEMO)

    assert str(refused.value) == ('"programs.txt" was refused: parsing it needed more than '
                                  f"{TIMEOUT_S} s of processor time")
    assert parser.parse("memo.txt", MEMO).sections[0].text == MEMO.decode()


def test_a_parser_that_does_no_work_at_all_is_stopped_at_the_stall_limit():
    parser = IsolatedParser(timeout_s=TIMEOUT_S, memory_mb=384, target=MISBEHAVING, stall_s=1)
    try:
        with pytest.raises(InvalidInput) as refused:
            parser.parse("asleep.txt", MEMO)
        after = parser.parse("memo.txt", MEMO)
    finally:
        parser.close()

    assert str(refused.value) == '"asleep.txt" was refused: its parser stalled on it (no work done for 1 s)'
    assert after.sections[0].text == MEMO.decode()

"""The parsing worker's time limit is per step: a long scan whose pages are reported one by one
(OCR, about a second a page) is read however long it takes, its pages passed on as progress,
while a file that stops making progress is still stopped; and a program a worker runs (tesseract)
counts against its limit and dies with it, whether the app stops the worker or is killed itself
(tests/fault/misbehaving_parser.py stands in for each)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from docchat.documents.isolated import IsolatedParser
from docchat.errors import InvalidInput

from tests.fault.misbehaving_parser import SCAN_PAGE_S, SCAN_PAGES
from tests.fault.test_parse_worker import (  # noqa: F401 (importable_tests: the fixture, used here too)
    MEMO,
    MISBEHAVING,
    ROOT,
    _alive,
    _wait_until,
    importable_tests,
)

TIMEOUT_S = 2


@pytest.fixture
def parser():
    parser = IsolatedParser(timeout_s=TIMEOUT_S, memory_mb=384, target=MISBEHAVING)
    yield parser
    parser.close()


def test_a_scan_longer_than_the_time_limit_is_read_when_it_reports_each_page(parser):
    assert SCAN_PAGE_S * SCAN_PAGES > TIMEOUT_S  # the file as a whole needs more processor than the limit
    told: list[tuple[int, int]] = []

    document = parser.parse("slow-scan.txt", MEMO, progress=lambda *page: told.append(page))

    assert document.sections[0].text == MEMO.decode()
    assert told == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_a_file_that_stops_making_progress_is_still_stopped(parser):
    told: list[tuple[int, int]] = []

    with pytest.raises(InvalidInput) as refused:
        parser.parse("stuck-scan.txt", MEMO, progress=lambda *page: told.append(page))

    assert str(refused.value) == ('"stuck-scan.txt" was refused: reading one of its pages needed more than '
                                  f"{TIMEOUT_S} s of processor time")
    assert told == [(1, 3)]
    assert parser.parse("memo.txt", MEMO).sections[0].text == MEMO.decode()  # the next file, a new worker


def test_a_program_the_worker_waits_on_counts_against_its_time_limit_and_dies_with_it(parser, tmp_path):
    pid_file = tmp_path / "child.pid"

    with pytest.raises(InvalidInput) as refused:
        parser.parse("busy-child.txt", str(pid_file).encode())

    assert str(refused.value) == ('"busy-child.txt" was refused: parsing it needed more than '
                                  f"{TIMEOUT_S} s of processor time")
    child = int(pid_file.read_text())
    assert _wait_until(lambda: not _alive(child), timeout_s=5)


def test_a_caller_that_stops_waiting_at_a_page_stops_the_worker_and_the_next_file_gets_a_new_one(parser):
    class Cancelled(Exception):
        pass

    def cancel(page: int, pages: int) -> None:
        raise Cancelled

    with pytest.raises(Cancelled):
        parser.parse("slow-scan.txt", MEMO, progress=cancel)

    assert parser.workers == []
    assert parser.parse("memo.txt", MEMO).sections[0].text == MEMO.decode()


def test_a_program_the_worker_runs_ends_with_it_when_the_app_is_killed(tmp_path):
    pid_file = tmp_path / "child.pid"
    app = subprocess.Popen(
        [sys.executable, "-c", "import sys, threading\n"
         "from docchat.documents.isolated import IsolatedParser\n"
         f"parser = IsolatedParser(timeout_s=600, target={MISBEHAVING!r})\n"
         f"threading.Thread(target=parser.parse, args=('busy-child.txt', {str(pid_file).encode()!r}), daemon=True)"
         ".start()\n"
         "sys.stdin.read()\n"],
        cwd=ROOT, stdin=subprocess.PIPE)
    try:
        assert _wait_until(lambda: pid_file.exists() and pid_file.read_text() != "", timeout_s=30)
        child = int(pid_file.read_text())
        assert _alive(child)
        app.kill()
        app.wait()

        assert _wait_until(lambda: not _alive(child), timeout_s=5)
    finally:
        app.kill()
        app.wait()

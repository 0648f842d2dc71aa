"""The parsing worker when its parser misbehaves (tests/fault/misbehaving_parser.py stands in for
a parser that a hostile file sends into a loop, a heap without end, a segfault or the OOM
killer's way): the file is refused in one line, and the next file is parsed by a new worker.
And no worker outlives its parser, its services or its app."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from docchat.bootstrap import build_services
from docchat.config import Settings
from docchat.documents.isolated import IsolatedParser
from docchat.errors import InvalidInput

MISBEHAVING = "tests.fault.misbehaving_parser:parse"
MEMO = b"Bring the signed deed on Friday."
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def importable_tests(monkeypatch):
    """Workers import nothing from the current folder: they find the misbehaving parser this way
    (and docchat where the tests' own PYTHONPATH, if any, says it is)."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))


@pytest.fixture
def parser():
    parser = IsolatedParser(timeout_s=2, memory_mb=384, target=MISBEHAVING)
    yield parser
    parser.close()


def refused(parser: IsolatedParser, name: str) -> str:
    with pytest.raises(InvalidInput) as refusal:
        parser.parse(name, MEMO)
    return str(refusal.value)


def parses(parser: IsolatedParser) -> bool:
    return parser.parse("memo.txt", MEMO).sections[0].text == MEMO.decode()


def test_a_parser_stuck_in_a_loop_is_stopped_at_the_time_limit_and_the_next_file_is_parsed(parser):
    parses(parser)
    [first] = parser.workers

    assert refused(parser, "loop.txt") == '"loop.txt" was refused: parsing it needed more than 2 s of processor time'
    assert not _alive(first)
    assert parses(parser)


def test_a_parser_that_allocates_without_end_is_refused_for_its_memory(parser):
    assert refused(parser, "hoard.txt") == '"hoard.txt" was refused: parsing it needed more than 384 MB of memory'
    assert parser.peak_memory_kb < 384 * 1024
    assert parses(parser)


def test_a_parser_that_segfaults_refuses_only_its_file(parser):
    assert refused(parser, "segfault.txt") == '"segfault.txt" was refused: its parser crashed on it (SIGSEGV)'
    assert parses(parser)


def test_a_file_that_crashes_a_reused_worker_is_tried_once_on_a_new_one_then_refused(parser):
    parses(parser)
    [reused] = parser.workers

    assert refused(parser, "segfault.txt") == '"segfault.txt" was refused: its parser crashed on it (SIGSEGV)'
    assert not _alive(reused)
    assert parses(parser)


def test_a_worker_the_system_kills_refuses_only_its_file(parser):
    assert refused(parser, "oom-killed.txt") == ('"oom-killed.txt" was refused: its parser was killed while '
                                                 "reading it (the machine out of memory?)")
    assert parses(parser)


def test_a_bug_in_a_parser_is_a_one_line_refusal_with_its_traceback_in_the_log(parser, caplog):
    assert refused(parser, "bug.txt") == '"bug.txt" was refused: its parser failed on it (the log has why)'
    assert "KeyError: 'a parser bug'" in caplog.text
    assert parses(parser)


def test_an_idle_worker_that_died_is_replaced_for_the_next_file(parser):
    parses(parser)
    [worker] = parser.workers
    os.kill(worker, signal.SIGKILL)

    assert parses(parser)
    assert parser.workers != [worker]


def test_a_slow_file_holds_up_no_other_callers_file():
    parser = IsolatedParser(timeout_s=60, target=MISBEHAVING)
    outcome = []
    slow = threading.Thread(target=lambda: outcome.append(refused(parser, "loop.txt")))
    slow.start()
    assert _wait_until(lambda: len(parser.workers) == 1)  # the loop's worker

    assert parses(parser)
    assert slow.is_alive() and len(parser.workers) == 2
    parser.close()
    slow.join()
    assert outcome == ['"loop.txt" was refused: docchat was closing while it was parsed']


def test_closing_the_parser_stops_its_workers_and_refuses_the_file_under_way(parser):
    outcome = []
    stuck = threading.Thread(target=lambda: outcome.append(refused(parser, "loop.txt")))
    stuck.start()
    assert _wait_until(lambda: len(parser.workers) == 1)
    workers = parser.workers

    parser.close()
    stuck.join()

    assert parser.workers == []
    assert not any(_alive(pid) for pid in workers)
    assert outcome == ['"loop.txt" was refused: docchat was closing while it was parsed']


def test_closing_the_services_leaves_no_parsing_worker(data_dir):
    # Other tests' services that nobody closed keep their workers until they are collected:
    # only a worker this test's services left would be a leak.
    others = set(_worker_children())
    services = build_services(Settings(data_dir=data_dir), contact_llm=False)
    with pytest.raises(InvalidInput):
        services.ingestion.add("empty.txt", b"   ")
    workers = services.parser.workers
    assert workers

    services.close()

    assert not any(_alive(pid) for pid in workers)
    assert set(_worker_children()) <= others


def test_a_worker_ends_when_the_app_that_started_it_is_killed(tmp_path):
    app = subprocess.Popen(
        [sys.executable, "-c", "import sys\n"
         "from docchat.documents.isolated import IsolatedParser\n"
         "parser = IsolatedParser()\n"
         "parser.parse('memo.txt', b'Bring the signed deed on Friday.')\n"
         "print(*parser.workers, flush=True)\n"
         "sys.stdin.read()\n"],
        cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        worker = int(app.stdout.readline())
        assert _alive(worker)
        app.kill()
        app.wait()

        assert _wait_until(lambda: not _alive(worker), timeout_s=5)
    finally:
        app.kill()
        app.wait()


def test_a_module_in_the_current_folder_named_like_a_parser_library_is_not_imported(tmp_path, monkeypatch):
    (tmp_path / "pypdf.py").write_text("raise SystemExit('a pypdf of the current folder was imported')")
    monkeypatch.chdir(tmp_path)
    parser = IsolatedParser()
    try:
        with pytest.raises(InvalidInput, match="is not a readable PDF"):
            parser.parse("deed.pdf", b"%PDF-1.7 not really a PDF")
    finally:
        parser.close()


def _alive(pid: int) -> bool:
    """Whether the process runs (a zombie waiting for its exit to be collected does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def _worker_children() -> list[int]:
    """Parsing workers whose parent is this process."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes()
        except (FileNotFoundError, NotADirectoryError, PermissionError, ProcessLookupError):
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == os.getpid() and b"docchat.documents.parse_worker" in command:
            found.append(int(entry.name))
    return found


def _wait_until(condition, timeout_s: float = 5.0) -> bool:
    """Polls a condition no event announces (another process's end), up to a deadline."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True

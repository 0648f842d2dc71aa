"""`docchat bench crash`: SIGKILL at random moments of real work, then the next start checks.

Each round forks a worker from this process, lets it build its services over one data dir and
start a piece of work (a question answered by the real LLM server, a turn that compacts a long
conversation, an import of 12 conversations, the ingestion of 3 documents), and kills it with
SIGKILL at a random moment. Each work is first run once, unkilled, to time its stages; a kill
picks one of them at random (for a question: before it is stored, between storing and the first
token, mid-stream), waits for the worker's journal to say that stage began, and lands at a random
moment of the stage's measured length: the short stages are hit as often as the long ones, however
long the stages before them take in that round. Another forked process then starts over the data dir, as the next `docchat` command
would, and checks it against the worker's journal (see crash_work). Forking from one process
that has imported everything once makes a round cost the work, not Python's start-up; the
workers themselves build everything from disk, as a restart does.

The figures: kills, by work and by the moment they landed; questions lost (must be 0);
answers recovered (cut mid-stream, kept and marked interrupted); orphans (must be 0).
"""

from __future__ import annotations

import json
import os
import random
import signal
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

from docchat_bench.crash_work import SCENARIOS, Journal, Paths, check, prepare, read_journal, work
from docchat.errors import DocchatError

READY_TIMEOUT_S = 120.0
# Rounds of one work in a row that may end before their kill, before the bench gives up on it.
MAX_MISSES = 20
# What says each stage of a work began (see _stages): the work itself, the question stored (the
# pipeline fits the window right after keeping it), the first token.
STARTS = (
    lambda key, value: key == "ready",
    lambda key, value: key == "stage" and value.startswith("Fitting"),
    lambda key, value: key == "delta",
)


def run_crash_bench(*, kills: int = 100, seed: int | None = None, as_json: bool = False,
                    llm_url: str | None = None, migrate_kills: int = 20, migrate_chunks: int = 100_000,
                    migrate_only: bool = False) -> dict:
    """The works' kills, then the migrate stage's (crash_migrate); `migrate_only` needs no LLM server."""
    from docchat_bench.crash_migrate import run_migrate_stage

    seed = seed if seed is not None else random.randrange(1_000_000)
    say = (lambda line: None) if as_json else (lambda line: print(line, flush=True))
    result = {"seed": seed} if migrate_only else _work_stages(kills=kills, seed=seed, say=say, llm_url=llm_url)
    if migrate_kills:
        # A generator of its own: the work stages' kill moments stay those of their seed.
        result["migrate"] = run_migrate_stage(kills=migrate_kills, chunks=migrate_chunks,
                                              rng=random.Random(seed + 1), say=say)
    if as_json:
        print(json.dumps(result))
    else:
        if not migrate_only:
            _print(result)
        if migrate_kills:
            _print_migrate(result["migrate"])
    return result


def _work_stages(*, kills: int, seed: int, say, llm_url: str | None) -> dict:
    from docchat.llm.server_key import llm_key
    from docchat.config import Settings
    from docchat.llm.discovery import fetch_info

    settings = Settings()
    llm_url = llm_url or settings.resolved_llm_url
    # The rounds' settings name the server by URL: they are given its key the same way.
    if key := llm_key(settings)():
        os.environ["DOCCHAT_LLM_API_KEY"] = key
    fetch_info(llm_url, timeout=5.0, api_key=key)  # a one-line error now, not a hundred failed rounds
    _import_once()
    rng = random.Random(seed)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="docchat-bench-crash-") as tmp:
        paths = Paths(Path(tmp))
        paths.data.mkdir()
        _in_child(lambda: prepare(paths, llm_url), paths)
        say(f"server {llm_url}; seed {seed}; data dir of its own; measuring each work once, unkilled")
        stages = {}
        for scenario in SCENARIOS:
            stages[scenario] = _calibrate(scenario, paths, llm_url)
            say(f"  {scenario:<8} " + ", ".join(f"{start:.2f}-{end:.2f} s" for start, end in stages[scenario]))
        tally = _Tally()
        attempt = 0
        misses = 0
        while tally.kills < kills:
            # The works are killed in turn, and a round that ended before its kill is run again at
            # another moment: moving on instead left a short work (an import ends in about 1 s)
            # unkilled in a run whenever both its rounds ended first (seen in a fresh clone).
            scenario = SCENARIOS[tally.kills % len(SCENARIOS)]
            attempt += 1
            if misses >= MAX_MISSES:
                raise DocchatError(f"{scenario} ended before its kill {misses} times in a row")
            stage = rng.randrange(len(stages[scenario]))
            start, end = stages[scenario][stage]
            killed, moment, after, notes = _round(scenario, attempt, paths, llm_url, STARTS[stage],
                                                  rng.uniform(0, end - start))
            if not killed:
                tally.finished_first += 1
                misses += 1
                continue
            misses = 0
            found = _in_child(lambda: check(paths, llm_url, notes).as_dict(), paths)
            tally.add(scenario, moment, found)
            say(f"kill {tally.kills:3d}/{kills}  {scenario:<8} {moment:<42} after {after:5.2f} s   "
                f"lost {len(found['questions_lost'])}  recovered {found['answers_recovered']}  "
                f"orphans {len(found['orphans'])}")
            for problem in found["questions_lost"] + found["answers_altered"] + found["orphans"]:
                say(f"    {problem}")
    return tally.result(seed=seed, seconds=time.monotonic() - started,
                        durations={scenario: spans[-1][1] for scenario, spans in stages.items()})


def _import_once() -> None:
    """Everything the workers use, imported here once, before any fork; nothing here starts a
    thread, so the forked workers inherit no half-held lock."""
    import docchat.bootstrap  # noqa: F401
    import docchat.documents.index.edge_index  # noqa: F401
    import docchat.documents.index.onnx_embeddings  # noqa: F401


def _calibrate(scenario: str, paths: Paths, llm_url: str) -> list[tuple[float, float]]:
    """Runs the work once, unkilled; its stages as (start, end) seconds after it began."""
    journal = paths.root / f"calibrate-{scenario}"
    pid = _fork_worker(scenario, 0, paths, llm_url, journal)
    _wait_ready(pid, journal)
    _, status = os.waitpid(pid, 0)
    notes = read_journal(journal)
    if status != 0 or ("done", "") not in notes:
        raise DocchatError(f"the {scenario} work failed before any kill: {_failure(notes, paths)}")
    found = _in_child(lambda: check(paths, llm_url, notes).as_dict(), paths)
    if found["orphans"] or found["questions_lost"] or found["integrity"] != "ok":
        raise DocchatError(f"the {scenario} work left problems with no kill at all: {found}")
    return _stages(read_journal(journal, with_times=True))


def _stages(timed) -> list[tuple[float, float]]:
    """A question's three stages: until it is stored (the pipeline goes on to fit the window right
    after), until the first token, until the last; any other work is one stage."""
    began = timed[0][1]

    def first(match) -> float | None:
        return next((when - began for key, when, value in timed if match(key, value)), None)

    stored, streaming = first(STARTS[1]), first(STARTS[2])
    streamed = max((when - began for key, when, _ in timed if key == "delta"), default=None)
    if None in (stored, streaming, streamed):
        return [(0.0, first(lambda key, value: key == "done"))]
    return [(0.0, stored), (stored, streaming), (streaming, streamed)]


def _round(scenario: str, number: int, paths: Paths, llm_url: str, began, delay: float):
    """Starts the work and kills it `delay` seconds after the stage `began` (a test of the
    journal's notes) began; (killed, moment, seconds after the work began, notes)."""
    journal = paths.root / f"round-{number}"
    pid = _fork_worker(scenario, number, paths, llm_url, journal)
    ready_at = _wait_ready(pid, journal)
    finished = _wait_for(pid, journal, began)
    if not finished:
        time.sleep(delay)
        finished, _ = os.waitpid(pid, os.WNOHANG)
    if not finished:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    notes = read_journal(journal)
    if any(key == "failed" for key, _ in notes):
        raise DocchatError(f"the {scenario} work failed on its own: {_failure(notes, paths)}")
    return not finished, _moment(scenario, notes), time.monotonic() - ready_at, notes


def _wait_for(pid: int, journal: Path, began) -> int:
    """Waits until the journal has a note `began` accepts; the pid if the worker ended first."""
    while not any(began(key, value) for key, value in read_journal(journal)):
        finished, _ = os.waitpid(pid, os.WNOHANG)
        if finished:
            return finished
        time.sleep(0.005)
    return 0


def _fork_worker(scenario: str, number: int, paths: Paths, llm_url: str, journal_path: Path) -> int:
    pid = os.fork()
    if pid:
        return pid
    code = 0
    try:
        _quiet(paths)
        journal = Journal(journal_path)
        try:
            work(scenario, number, paths, llm_url, journal)
        except BaseException:
            journal.note("failed", traceback.format_exc()[-1500:])
            code = 1
    finally:
        os._exit(code)


def _in_child(task, paths: Paths):
    """Runs `task` in a forked process (a start of its own, so this one never holds the database
    or the index) and returns what it returned (JSON-able)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.close(read)
            _quiet(paths)
            try:
                payload = {"result": task()}
            except BaseException:
                payload, code = {"error": traceback.format_exc()[-2000:]}, 1
            with os.fdopen(write, "w") as stream:
                json.dump(payload, stream)
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read) as stream:
        raw = stream.read()
    os.waitpid(pid, 0)
    payload = json.loads(raw) if raw else {"error": "the process ended without a word"}
    if "error" in payload:
        raise DocchatError(f"the crash bench's own step failed: {payload['error']}")
    return payload["result"]


def _quiet(paths: Paths) -> None:
    """A forked process's library warnings go to a log file, not between the figures."""
    log = os.open(paths.root / "workers.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(log, 1)
    os.dup2(log, 2)


def _wait_ready(pid: int, journal: Path) -> float:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        if journal.exists() and journal.read_bytes().startswith(b"ready"):
            return time.monotonic()
        finished, _ = os.waitpid(pid, os.WNOHANG)
        if finished:
            raise DocchatError(f"a worker ended before it was ready: {read_journal(journal)[-1:]}")
        time.sleep(0.005)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    raise DocchatError(f"a worker was not ready after {READY_TIMEOUT_S:.0f} s")


def _failure(notes, paths: Paths) -> str:
    failed = [value for key, value in notes if key == "failed"]
    if failed:
        return failed[-1]
    log = paths.root / "workers.log"
    return log.read_text(errors="replace")[-1500:] if log.exists() else "no output"


def _moment(scenario: str, notes) -> str:
    """Where in its work the kill landed, from the last notes the worker wrote."""
    keys = [key for key, _ in notes]
    if "done" in keys:
        return "after the work, before the process ended"
    if scenario == "import":
        return "after the import" if "imported" in keys else "during the import"
    if scenario == "ingest":
        return f"during ingestion, document {keys.count('ingested') + 1} of 3"
    if "delta" in keys:
        return "answer mid-stream"
    if any(key == "stage" and value.startswith("Fitting") for key, value in notes):
        # The question is kept just before the window is fitted; compaction happens while fitting.
        return "compacting, question stored" if scenario == "compact" else "question stored, before the first token"
    return "before the question was stored"


class _Tally:
    def __init__(self) -> None:
        self.kills = 0
        self.finished_first = 0
        self.by_work: Counter = Counter()
        self.by_moment: Counter = Counter()
        self.sums: Counter = Counter()
        self.problems: list[str] = []
        self.integrity_failures = 0

    def add(self, scenario: str, moment: str, found: dict) -> None:
        self.kills += 1
        self.by_work[scenario] += 1
        self.by_moment[f"{scenario}: {moment}"] += 1
        for key in ("questions_claimed", "answers_recovered", "imported", "documents_ingested"):
            self.sums[key] += found[key]
        self.sums["questions_lost"] += len(found["questions_lost"])
        self.sums["answers_altered"] += len(found["answers_altered"])
        self.sums["orphans"] += len(found["orphans"])
        self.sums["still_streaming"] += found["still_streaming"]
        self.integrity_failures += found["integrity"] != "ok"
        self.problems += found["questions_lost"] + found["answers_altered"] + found["orphans"]

    def result(self, *, seed: int, seconds: float, durations: dict) -> dict:
        return {
            "kills": self.kills, "seed": seed, "seconds": round(seconds, 1),
            "work_seconds": {k: round(v, 2) for k, v in durations.items()},
            "finished_before_the_kill": self.finished_first,
            "by_work": dict(self.by_work), "by_moment": dict(sorted(self.by_moment.items())),
            "questions_posted": self.sums["questions_claimed"], "questions_lost": self.sums["questions_lost"],
            "answers_recovered": self.sums["answers_recovered"], "answers_altered": self.sums["answers_altered"],
            "answers_left_streaming": self.sums["still_streaming"],
            "imports_finished_before_the_kill": self.sums["imported"],
            "documents_ingested_before_the_kill": self.sums["documents_ingested"],
            "orphans": self.sums["orphans"], "integrity_failures": self.integrity_failures,
            "problems": self.problems[:20],
        }


def _print(result: dict) -> None:
    print()
    print(f"{result['kills']} kills in {result['seconds']:.0f} s (seed {result['seed']}); "
          f"{result['finished_before_the_kill']} rounds finished before their kill and were not counted")
    for moment, count in result["by_moment"].items():
        print(f"  {count:3d}  {moment}")
    print(f"questions posted before a kill   {result['questions_posted']:5d}   lost {result['questions_lost']} (must be 0)")
    print(f"answers recovered as interrupted {result['answers_recovered']:5d}   text altered "
          f"{result['answers_altered']}, left streaming {result['answers_left_streaming']} (must be 0)")
    print(f"imports finished before a kill   {result['imports_finished_before_the_kill']:5d}   "
          f"documents ingested before a kill {result['documents_ingested_before_the_kill']}")
    print(f"orphans {result['orphans']} (must be 0); integrity_check not ok {result['integrity_failures']} times")


def _print_migrate(result: dict) -> None:
    print()
    print(f"migrate: {result['kills']} kills of a {result['upgrade_seconds']:.2f} s upgrade; "
          f"{result['ended_before_the_kill']} upgrades ended before their kill and were not counted")
    for moment, count in result["by_moment"].items():
        print(f"  {count:3d}  {moment}")
    print(f"the next start found the database as it was {result['found_as_it_was']} times, upgraded "
          f"{result['found_upgraded']} times, in between {result['found_in_between']} (must be 0)")
    print(f"the start after that failed {result['next_start_failed']} times (must be 0); "
          f"automatic backups kept {result['automatic_backups_kept']}")

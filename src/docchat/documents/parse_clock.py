"""The clock a parse worker's steps are timed by: the processor time its process group spends on
a step, not the time the step takes (docchat.documents.isolated stops a worker by it).

Invariants:
- A step (a file, or one page after a progress message) is over its limit once the worker and
  the programs it runs (tesseract: its process group) have used more than `limit_s` of processor
  time on it. Waiting does not count: on a machine at load 3 to 9 on two cores an OCR page got a
  fraction of a core and took more than 20 s, though OCR needs about 2 s of processor a page.
- A step on which the group does no work for `stall_s` is stalled (a deadlock, a wait that never
  ends): processor time alone would never stop it.
- Where /proc cannot be read (not Linux), the step's time stands in for its processor time, as
  before.
"""

from __future__ import annotations

import enum
import os
import time
from collections.abc import Callable

# Less processor time than this over `stall_s` is no work: an idle worker (its thread that
# watches for its parent's exit wakes twice a second) used 10 ms over 120 s (one clock tick), and a
# worker given a twentieth of a core would still use 6 s.
NO_WORK_S = 0.05
_TICK_S = 1 / os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 0.01


class Over(enum.Enum):
    """Which limit a step went over."""

    PROCESSOR_TIME = "processor time"
    STALL = "stall"
    TIME = "time"  # where processor time cannot be read


class StepClock:
    """Times the steps of one worker: `restart()` as each begins, `over()` now and then."""

    def __init__(self, worker: int, limit_s: float, stall_s: float, *,
                 used_s: Callable[[int], float | None] | None = None, now: Callable[[], float] = time.monotonic):
        self.limit_s = limit_s
        self.stall_s = stall_s
        self._worker = worker
        self._used_s = used_s or group_processor_s
        self._now = now
        # Decided once: a worker that ends later has no stat to read, and its socket says so.
        self._by_processor = self._used_s(worker) is not None
        self.restart()

    def restart(self) -> None:
        """A step begins: a file is sent, or a progress message came."""
        self._began = self._last_work = self._reading()

    def over(self) -> Over | None:
        """The limit the step is over, if any."""
        now, used = self._reading()
        if not self._by_processor:
            return Over.TIME if now - self._began[0] > self.limit_s else None
        if used is None:  # it ended between two readings
            return None
        if used - self._began[1] > self.limit_s:
            return Over.PROCESSOR_TIME
        if used - self._last_work[1] >= NO_WORK_S:
            self._last_work = (now, used)
        elif now - self._last_work[0] > self.stall_s:
            return Over.STALL
        return None

    def _reading(self) -> tuple[float, float | None]:
        return self._now(), self._used_s(self._worker) if self._by_processor else None


def group_processor_s(leader: int) -> float | None:
    """The processor seconds used by the process group `leader` leads: by each of its processes
    still there and by the children each has waited for (a tesseract that ended). None when
    /proc has no stat of the leader."""
    ticks, found = 0, False
    try:
        pids = [name for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return None
    for pid in pids:
        fields = _stat_fields(pid)
        # After the command's ")": state, parent, group, ..., then utime, stime, cutime, cstime.
        if fields is not None and int(fields[2]) == leader:
            found = found or int(pid) == leader
            ticks += sum(int(field) for field in fields[11:15])
    return ticks * _TICK_S if found else None


def _stat_fields(pid: str) -> list[bytes] | None:
    """The fields of a process's /proc stat after its command. Read without a file object: that
    halves the time of a look at every process (1.1 ms for 85 processes, not 2.3)."""
    try:
        stat = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
    except OSError:  # ended while we looked
        return None
    try:
        text = os.read(stat, 4096)
    except OSError:
        return None
    finally:
        os.close(stat)
    return text[text.rindex(b")") + 2:].split()

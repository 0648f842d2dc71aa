"""What a crash left behind: answers still marked `streaming` that nobody is writing."""

from __future__ import annotations

from datetime import datetime, timedelta

from docchat.ports import UnitOfWorkFactory

# A streaming answer checkpoints every second; one silent for this long was cut off by a crash
# (the rule when another process may be streaming it: see store/presence.py).
STALE_STREAM = timedelta(minutes=2)


def interrupt_abandoned_answers(uow: UnitOfWorkFactory, *, before: datetime | None) -> None:
    """Answers a crash left `streaming` become interrupted, their text kept: every one when no
    other process uses the database (`before` None), else those silent since `before`."""
    with uow(write=True) as work:
        work.conversations.interrupt_stale_streaming(before)
        work.commit()

"""Whether the served model is worth asking for one of docchat's own programs (a rewrite, a
query over a sheet), judged by what it wrote when it was asked, never by its name."""

from __future__ import annotations

from docchat.ports import SkillRecord

# Unusable answers, with none usable, after which a model is not asked again.
GIVE_UP_AFTER = 2


class SkillGate:
    """A model whose answers for `skill` came back unusable (cut off, not in the fields asked
    for, empty, refused, too slow) GIVE_UP_AFTER times, and never usable, is not asked again.
    The tally is kept per model in `record`, so a restart does not pay for it again; it follows
    the server (`follow`), so a model served later is judged afresh."""

    def __init__(self, record: SkillRecord, skill: str):
        self._record = record
        self._skill = skill
        self._model: str | None = None

    def follow(self, info) -> None:
        self._model = info.model

    @property
    def model(self) -> str | None:
        return self._model

    def worth_asking(self) -> bool:
        if self._model is None:
            return True
        usable, unusable = self._record.tally(self._model, self._skill)
        return usable > 0 or unusable < GIVE_UP_AFTER

    def note(self, *, usable: bool) -> None:
        if self._model is not None:
            self._record.note(self._model, self._skill, usable=usable)

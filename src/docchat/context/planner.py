"""One budget planner: how a prompt's parts share the model's window.

The window minus the answer reserve and the chat template is split between the system
prompt, the summary, the documents (whole, or retrieved passages), the question and the
history. Every part but the history has a cap (a share of what is available); whatever a
part leaves unused goes to the history. The question is never cut: one that does not fit
its cap is refused. The documents are filled to their cap by the caller, which may go past
it with a few passages (the floor) only out of the history's room.
"""

from __future__ import annotations

from dataclasses import dataclass

from docchat.errors import InvalidInput


@dataclass(frozen=True)
class Caps:
    """Shares of the available tokens each part may take at most."""

    system: float = 0.10
    summary: float = 0.15
    chunks: float = 0.30
    question: float = 0.25


@dataclass(frozen=True)
class Plan:
    max_model_len: int
    answer_reserve: int
    template: int
    available: int
    system: int
    summary: int
    chunks: int
    question: int
    history_share: int
    caps: dict

    def cap(self, part: str) -> int:
        return self.caps[part]


def plan(*, max_model_len: int, answer_reserve: int, template: int, system: int, summary: int,
         chunks: int, question: int, caps: Caps = Caps()) -> Plan:
    available = max_model_len - answer_reserve - template
    if available <= 0:
        raise InvalidInput(f"the answer reserve ({answer_reserve:,} tokens) leaves no room for a prompt "
                           f"in a {max_model_len:,}-token window")
    limits = {part: int(available * share) for part, share in caps.__dict__.items()}
    if question > limits["question"]:
        raise InvalidInput(
            f"this message is too long for the model: {question:,} tokens, and the most a question "
            f"may take is {limits['question']:,}"
        )
    if system > limits["system"]:
        raise InvalidInput(f"the system prompt is too long for this model ({system:,} tokens, "
                           f"at most {limits['system']:,})")
    used = system + min(summary, limits["summary"]) + chunks + question
    if used > available:
        raise InvalidInput(f"the documents given with this question ({chunks:,} tokens) do not fit the window")
    return Plan(
        max_model_len=max_model_len, answer_reserve=answer_reserve, template=template, available=available,
        system=system, summary=min(summary, limits["summary"]), chunks=chunks,
        question=question, history_share=available - used, caps=limits,
    )

"""What may be done with the last exchange of a conversation: the rules the page offers as
buttons and the chat service checks, written once."""

from __future__ import annotations

from typing import Sequence

from docchat.domain.conversations import FINISHED, Message, Role, Status
from docchat.domain.grounding import DOCUMENTS_ONLY


def last_exchange(history: Sequence[Message]) -> tuple[Message | None, Message | None]:
    """The last question shown, and the answer shown after it (None when it has none yet)."""
    shown = [m for m in history if m.shown]
    asked = next((m for m in reversed(shown) if m.role is Role.USER), None)
    if asked is None:
        return None, None
    last = shown[-1]
    return asked, last if last.role is Role.ASSISTANT and last.seq > asked.seq else None


def may_continue(answer: Message) -> bool:
    """An answer cut at the length limit can be written on."""
    return answer.role is Role.ASSISTANT and answer.status is Status.TRUNCATED


def needs_retry(last: Message) -> bool:
    """The last message shown is a question with no answer, or an answer that failed or stopped."""
    return last.role is Role.USER or last.status in (Status.ERROR, Status.INTERRUPTED)


def may_regenerate(answer: Message, *, last: bool) -> bool:
    """The last answer, once it ended, can be answered again as a new version."""
    return last and answer.role is Role.ASSISTANT and answer.status in FINISHED


def may_ask_the_model(last: Message, *, documents_only: bool) -> bool:
    """The last message is docchat's reply that the documents do not hold the answer, in a
    conversation not set to its documents only: the model's own answer may be asked for."""
    return (not documents_only and last.role is Role.ASSISTANT and last.facts.model == DOCUMENTS_ONLY
            and last.status is Status.COMPLETE)

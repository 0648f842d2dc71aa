"""What `docchat chat` talks to: one small interface, and its two in-process backends.

A backend asks a question and hands back an `Answer`: iterate it for the text as it arrives,
then `end()` it, however the reading stopped (done, Ctrl-C, an error). `end()` is where an
unfinished answer is stopped and kept as interrupted, and it says how the answer ended.
The HTTP backend (terminal_http.py) keeps the same shape over the API.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterator, Protocol

from docchat.domain import AnswerForm, Citation, EvidenceStrength, Grounding, Role, Status
from docchat.domain.approach import Approach, Coverage, Figure
from docchat.errors import DocchatError, InvalidInput
from docchat.services.turn import Turn

# Messages shown when a conversation is opened.
SHOWN_ON_OPEN = 6


@dataclass(frozen=True)
class Outcome:
    """How an answer ended: complete, truncated, interrupted or error, with its citations."""

    status: str
    citations: list[Citation] = field(default_factory=list)
    evidence: EvidenceStrength | None = None
    model: str | None = None
    # The passages the answer cites, and the citation check's notes on its sentences.
    cited: list[Citation] = field(default_factory=list)
    check: Grounding | None = None
    # How docchat answered, and what a comparison or the collection covered.
    approach: Approach | None = None
    coverage: Coverage | None = None
    table: Figure | None = None
    form: AnswerForm | None = None


@dataclass(frozen=True)
class Listed:
    id: str
    title: str
    pinned: bool = False


@dataclass(frozen=True)
class Said:
    """One message of an opened conversation."""

    role: str
    content: str
    status: str
    citations: list[Citation] = field(default_factory=list)


class Answer(Protocol):
    def __iter__(self) -> Iterator[str]: ...

    def end(self) -> Outcome:
        """Stops the answer if it is still coming (it is kept as interrupted); how it ended."""


class Backend(Protocol):
    # None until the first question of a fresh conversation creates it.
    conversation_id: str | None
    # Whether the history lives in this client rather than in stored conversations.
    stateless: bool

    def ask(self, question: str) -> Answer: ...

    def new_conversation(self) -> None: ...

    def conversations(self) -> list[Listed]: ...

    def open(self, prefix: str) -> tuple[str, list[Said]]:
        """Makes the conversation `prefix` names the current one; its title and last messages."""

    def export(self, format: str) -> bytes: ...

    def close(self) -> None: ...


class TurnAnswer:
    """A service Turn read by the terminal; `kept(text)` hears what the answer ended as."""

    def __init__(self, turn: Turn, kept: Callable[[str], None] = lambda text: None):
        self._turn = turn
        self._kept = kept
        self._outcome: Outcome | None = None

    def __iter__(self) -> Iterator[str]:
        return iter(self._turn)

    def end(self) -> Outcome:
        if self._outcome is None:
            # Stop, as on the page. Reading on with stop set settles the answer however far it
            # got, even one Ctrl-C caught before its first delta; on a finished turn it is a no-op.
            self._turn.stop.set()
            try:
                for _ in self._turn:
                    pass
            except DocchatError:
                pass  # already printed where it was read, or the user stopped it first
            finally:
                self._turn.close()
            answer = self._turn.answer
            self._outcome = Outcome(answer.status.value if answer else Status.ERROR.value,
                                    list(answer.facts.citations) if answer else [], evidence=self._turn.evidence,
                                    model=answer.facts.model if answer else None,
                                    cited=list(answer.cited) if answer else [],
                                    check=answer.facts.grounding if answer else None,
                                    approach=answer.facts.approach if answer else None,
                                    coverage=answer.facts.coverage if answer else None,
                                    table=answer.facts.table if answer else None,
                                    form=answer.facts.form if answer else None)
            self._kept(answer.content if answer else "")
        return self._outcome


class LocalChat:
    """Stored conversations, through the services of this process."""

    stateless = False

    def __init__(self, services):
        self._services = services
        self.conversation_id: str | None = None

    def ask(self, question: str) -> Answer:
        turn = self._services.chat.answer(self.conversation_id, question)
        # Known as soon as the question is stored, so a stopped first answer stays in its conversation.
        self.conversation_id = turn.conversation_id
        return TurnAnswer(turn)

    def new_conversation(self) -> None:
        self.conversation_id = None

    def conversations(self) -> list[Listed]:
        return [Listed(c.id, c.title, c.pinned) for c in self._services.conversations.list()]

    def open(self, prefix: str) -> tuple[str, list[Said]]:
        conversations = self._services.conversations
        conversation_id = conversations.resolve_id(prefix)
        shown = [m for m in self._services.messages.history(conversation_id) if m.shown and m.role is not Role.SYSTEM]
        self.conversation_id = conversation_id
        return conversations.get(conversation_id).title, [
            Said(m.role.value, m.content, m.status.value, list(m.facts.citations)) for m in shown[-SHOWN_ON_OPEN:]]

    def export(self, format: str) -> bytes:
        if self.conversation_id is None:
            raise InvalidInput("no conversation to export yet: ask a question or /open one first")
        transfer = self._services.transfer
        text = (transfer.export_markdown(self.conversation_id) if format == "md"
                else transfer.export_json(self.conversation_id))
        return text.encode("utf-8")

    def close(self) -> None:
        # The conversation's title is written after its first answer; a session ending right
        # away lets it finish, as `docchat ask` does.
        self._services.chat.wait_for_background(self._services.settings.program_timeout_s)
        self._services.close()


class LocalStatelessChat:
    """History kept here and sent with every question; the database is never written."""

    stateless = True
    conversation_id = None

    def __init__(self, services):
        self._services = services
        self._history: list[dict] = []

    def ask(self, question: str) -> Answer:
        turn = self._services.stateless.answer(list(self._history), question)
        return TurnAnswer(turn, kept=lambda text: self._keep(question, text))

    def _keep(self, question: str, text: str) -> None:
        # A failed answer leaves no exchange behind: the question can simply be asked again.
        if text:
            self._history += [{"role": "user", "content": question}, {"role": "assistant", "content": text}]

    def new_conversation(self) -> None:
        self._history = []

    def conversations(self) -> list[Listed]:
        return [Listed(c.id, c.title, c.pinned) for c in self._services.conversations.list()]

    def open(self, prefix: str) -> tuple[str, list[Said]]:
        raise stateless_refusal("open a stored conversation")

    def export(self, format: str) -> bytes:
        raise stateless_refusal("export")

    def close(self) -> None:
        self._services.close()


def stateless_refusal(action: str) -> DocchatError:
    return InvalidInput(f"cannot {action} in a --stateless chat: nothing is stored; start `docchat chat` without it")

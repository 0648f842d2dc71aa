"""`docchat chat`: an interactive chat in the terminal, over one of the chat backends.

Ctrl-C stops an answer as it streams (what arrived is kept, as interrupted) and clears the
line at the prompt; neither leaves. Ctrl-D, `exit` or `quit` leave. An error is one line and
the session goes on.

Answers, titles, citations and errors reach the terminal through `for_terminal`: no escape
sequence a document or an answer holds is written raw.
"""

from __future__ import annotations

import sys
import textwrap

from docchat.atomic import write_atomically
from docchat.cli.signals import ctrl_c_interrupts
from docchat.cli.terminal_backends import Backend, Outcome, Said
from docchat.domain import AnswerForm, Citation, Status, answer_note, form_line
from docchat.domain.approach import covered_line
from docchat.domain.grounding import uncited_heading
from docchat.domain.numbers import numbers_line
from docchat.errors import DocchatError
from docchat.text import for_terminal, one_line

PROMPT = "docchat> "
LEAVE = {"exit", "quit", "/exit", "/quit"}
CLEAR = {"clear", "/clear"}
HELP = """\
Type a question and press Enter; the answer streams in. Ctrl-C stops it.
  clear                 start a new conversation (the next question opens it)
  /list                 the stored conversations
  /open ID              continue a conversation (any unique start of its id)
  /sources              the last answer's sources, with their passages
  /export md|json FILE  write the current conversation to FILE
  /help                 this list
  exit, quit, Ctrl-D    leave"""


def chat(args) -> int:
    if args.stateless and args.conversation:
        raise DocchatError("--conversation and --stateless do not go together: a stateless chat stores nothing")
    if args.token and not args.url:
        raise DocchatError("--token goes with --url (the API's token)")
    ctrl_c_interrupts()
    backend = _backend(args)
    try:
        return Session(backend, _reader()).run(opening=args.conversation)
    finally:
        backend.close()


def _backend(args) -> Backend:
    if args.url:
        from docchat.cli.terminal_http import HttpChat

        return HttpChat(args.url, token=args.token, stateless=args.stateless)
    from docchat.cli.common import open_services
    from docchat.cli.terminal_backends import LocalChat, LocalStatelessChat

    # The documents open while the first question is typed.
    services = open_services(llm=True, documents_early=True)
    return LocalStatelessChat(services) if args.stateless else LocalChat(services)


def _reader():
    """A line editor with the input history in the data dir; plain lines when input is not a terminal."""
    if not sys.stdin.isatty():
        return _plain_line
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import FileHistory

    from docchat.cli.common import load_settings

    data_dir = load_settings().resolved_data_dir
    data_dir.mkdir(parents=True, exist_ok=True)
    session = PromptSession(history=FileHistory(str(data_dir / "chat_history")))
    return lambda: session.prompt(PROMPT)


def _plain_line() -> str:
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line.rstrip("\n")


class Session:
    def __init__(self, backend: Backend, read_line):
        self._backend = backend
        self._read_line = read_line
        self._citations: list[Citation] = []

    def run(self, *, opening: str | None = None) -> int:
        """`opening`: the id (or a unique start of it) of the conversation to continue."""
        self._greet()
        if opening:
            self._open(opening)
        while True:
            try:
                line = self._read_line().strip()
            except KeyboardInterrupt:
                print("^C")  # like a shell: the line is dropped, the session goes on
                continue
            except EOFError:
                print()
                return 0
            if line in LEAVE:
                return 0
            try:
                self._handle(line)
            except DocchatError as error:
                say_error(error)
            except OSError as error:  # /export to a folder that is not there, say
                say_error(f"{error.strerror or error}: {error.filename or ''}".rstrip(": "))

    def _greet(self) -> None:
        mode = "stateless: nothing is stored" if self._backend.stateless else "conversations are stored"
        print(f"docchat chat ({mode}). /help lists the commands; Ctrl-D leaves.")

    def _handle(self, line: str) -> None:
        if not line:
            return
        command, _, rest = line.partition(" ")
        rest = rest.strip()
        if line in CLEAR:
            self._backend.new_conversation()
            self._citations = []
            print("A new conversation starts with your next question.")
        elif command == "/help":
            print(HELP)
        elif command == "/list":
            self._list()
        elif command == "/open":
            if not rest:
                raise DocchatError("/open needs a conversation id (see /list)")
            self._open(rest)
        elif command == "/sources":
            self._sources()
        elif command == "/export":
            self._export(rest.split())
        elif command.startswith("/"):
            print(f"unknown command {command}; /help lists them")
        else:
            self._ask(line)

    def _ask(self, question: str) -> None:
        try:
            answer = self._backend.ask(question)
        except KeyboardInterrupt:
            print("\n[stopped before the answer began]")
            return
        wrote = False
        try:
            for delta in answer:
                sys.stdout.write(for_terminal(delta))
                sys.stdout.flush()
                wrote = wrote or bool(delta)
        except KeyboardInterrupt:
            pass
        except DocchatError as error:
            if wrote:
                print()
            wrote = False
            say_error(error)
        finally:
            outcome = answer.end()
        if wrote:
            print()
        self._answered(outcome)

    def _answered(self, outcome: Outcome) -> None:
        self._citations = outcome.citations
        print_outcome(outcome)

    def _list(self) -> None:
        conversations = self._backend.conversations()
        if not conversations:
            print("No conversations yet.")
        for c in conversations:
            current = ">" if c.id == self._backend.conversation_id else ("*" if c.pinned else " ")
            print(f"{current} {c.id[:8]}  {for_terminal(c.title)}")

    def _open(self, prefix: str) -> None:
        title, messages = self._backend.open(prefix)
        print(f"{for_terminal(title)} ({self._backend.conversation_id})")
        for message in messages:
            print(said(message))
        answers = [m for m in messages if m.role == "assistant"]
        self._citations = answers[-1].citations if answers else []

    def _sources(self) -> None:
        if not self._citations:
            print("The last answer cited no sources.")
        for c in self._citations:
            where = f", {c.where}" if c.where else ""
            print(for_terminal(f"[{c.number}] {c.document}{where}"))
            print(textwrap.indent(textwrap.fill(for_terminal(c.text), width=96), "    "))

    def _export(self, words: list[str]) -> None:
        if len(words) != 2 or words[0] not in ("md", "json"):
            raise DocchatError("usage: /export md|json FILE")
        fmt, path = words
        write_atomically(path, self._backend.export(fmt))
        print(f"wrote {path}")


def print_outcome(outcome: Outcome, *, listed_by: str = "/sources") -> None:
    """What the terminal says under an answer (`chat` and plain `ask` alike): how it ended, its
    notes, what it covered, how it was written, its sources and the check's flags; `listed_by`:
    what lists the passages the answer does not cite."""
    if outcome.status == Status.INTERRUPTED.value:
        print("[interrupted: what arrived is kept]")
    elif outcome.status == Status.TRUNCATED.value:
        print("[cut at the answer-length limit]")
    if outcome.status == Status.ERROR.value:
        return
    if note := answer_note(outcome.evidence, outcome.model):
        print(f"[{note}]")
    if line := covered_line(outcome.approach, outcome.coverage, outcome.table,
                            stated=outcome.form is AnswerForm.STATED):
        print(for_terminal(f"[{line}]"))
    if line := form_line(outcome.form, outcome.model):
        print(f"[{line}]")
    check = outcome.check
    if outcome.cited:
        attributed = " (attributed by docchat)" if check is not None and check.attributed else ""
        print("Sources" + attributed + ": " + "  ".join(short_citation(c) for c in outcome.cited))
    others = len(outcome.citations) - len(outcome.cited)
    if others > 0:
        print(f"({uncited_heading(outcome.form).lower()}: {others}; {listed_by} lists them)")
    for sentence in check.flagged if check is not None else ():
        print(for_terminal(f"  ! “{one_line(sentence.text, limit=80)}”: {check.note(sentence)}"))
    if check is not None and (line := numbers_line(check.numbers)):
        print(for_terminal(f"  ! {line}"))


def short_citation(citation: Citation) -> str:
    where = f"p.{citation.page}" if citation.page else citation.section
    return for_terminal(f"[{citation.number}] {citation.document}" + (f" {where}" if where else ""))


def said(message: Said) -> str:
    who = "you" if message.role == "user" else "docchat"
    note = "" if message.status in (Status.COMPLETE.value, Status.TRUNCATED.value) else f" [{message.status}]"
    return for_terminal(f"{who}{note}: {message.content}")


def say_error(error: Exception | str) -> None:
    print(for_terminal(f"docchat: {error}"), file=sys.stderr)

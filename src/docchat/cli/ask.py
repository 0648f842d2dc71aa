"""`docchat ask` (one question, its answer streamed) and `docchat chat` (the terminal chat, in
docchat.cli.terminal)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from docchat.cli.common import open_services, print_json
from docchat.errors import DocchatError
from docchat.domain import AnswerForm
from docchat.domain.grounding import ASKED_FORMS
from docchat.domain.approach import ASKED_PLANS, asked
from docchat.text import for_terminal, one_line


def add_commands(commands) -> None:
    asking = commands.add_parser("ask", help="ask one question and stream the answer")
    asking.add_argument("question")
    asking.add_argument("--conversation", metavar="ID", help="continue this conversation (default: a new one)")
    asking.add_argument("--json", action="store_true", help="print the answer, usage and budget split as JSON")
    asking.add_argument("--history", metavar="FILE", help="stateless: answer from this JSON list of "
                        "{role, content} instead of a stored conversation; nothing is stored")
    asking.add_argument("--plan", choices=ASKED_PLANS, help="how to answer: the best passages of any document "
                        "(lookup), every document in scope (collection), the documents named side by side (compare), "
                        "or a figure computed from a sheet (table); default: docchat chooses from the question")
    asking.add_argument("--form", choices=[form.value for form in ASKED_FORMS],
                        help="how to write the answer: in the model's own words (free), by the model with marks of "
                        "its passages ending every sentence (constrained; where the server takes a pattern), or the "
                        "passages' own sentences quoted, no model asked (quoted); either needs passages that answer "
                        "the question; default: docchat chooses from what the model has written, and a question "
                        "the documents do not answer gets docchat's reply unless free or constrained is asked for")
    asking.set_defaults(handler=ask)

    chatting = commands.add_parser("chat", help="an interactive chat in the terminal (Ctrl-C stops an answer)")
    chatting.add_argument("--conversation", metavar="ID", help="continue this conversation (default: a new one)")
    chatting.add_argument("--stateless", action="store_true",
                          help="keep the history in this session only and send it with each question; nothing is stored")
    chatting.add_argument("--url", help="talk to a running docchat HTTP API (e.g. http://127.0.0.1:8502) "
                          "instead of the data dir")
    chatting.add_argument("--token", help="the API's bearer token, with --url")
    chatting.set_defaults(handler="docchat.cli.terminal:chat")


def ask(args) -> int:
    services = open_services(llm=True)
    if args.history:
        return _ask_stateless(services, args)
    conversation_id = services.conversations.resolve_id(args.conversation) if args.conversation else None
    turn = services.chat.answer(conversation_id, args.question, plan=asked(args.plan), form=_form(args))
    try:
        if args.json:
            turn.text()
        else:
            _print_answer(turn)
    except DocchatError:
        if args.json:
            print_json(_turn_json(turn, services))
        raise
    if args.json:
        print_json(_turn_json(turn, services))
    services.chat.wait_for_background(services.settings.program_timeout_s)
    return 0


def _form(args) -> AnswerForm | None:
    return AnswerForm(args.form) if args.form else None


def _ask_stateless(services, args) -> int:
    turn = services.stateless.answer(_history(args.history), args.question, plan=asked(args.plan),
                                     form=_form(args))
    if args.json:
        turn.text()
        print_json({**_turn_json(turn, services), "summary": turn.summary})
        return 0
    _print_answer(turn)
    return 0


def _print_answer(turn) -> None:
    """The answer as it streams, then what `chat` says under one: its plan, form and sources."""
    from docchat.cli.terminal import print_outcome
    from docchat.cli.terminal_backends import TurnAnswer

    for delta in turn:
        sys.stdout.write(for_terminal(delta))
        sys.stdout.flush()
    sys.stdout.write("\n")
    print_outcome(TurnAnswer(turn).end(), listed_by="ask --json")


def _history(path: str):
    """The JSON in the --history file, or one line saying why there is none to read."""
    shown = one_line(path)
    try:
        text = Path(path).read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError:
        raise DocchatError(f"{shown}: not UTF-8 text, so not a JSON history") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise DocchatError(f"{shown}: not valid JSON: {error.msg}") from None
    except RecursionError:
        raise DocchatError(f"{shown}: nested too deeply to be a history of messages") from None
    except ValueError:  # a number past Python's 4,300 digits
        raise DocchatError(f"{shown}: not a history docchat can read: a number in it is too long") from None


def _turn_json(turn, services) -> dict:
    """The turn as `ask --json` prints it, stored or stateless (then conversation_id is null)."""
    from docchat.exchange import plan_wire
    from docchat.exchange import citation_wire

    answer = turn.answer
    return {
        "conversation_id": turn.conversation_id,
        "question": turn.question.content,
        "answer": answer.content if answer else None,
        "status": answer.status.value if answer else None,
        "error": answer.facts.error if answer else None,
        "model": answer.facts.model if answer else None,
        "usage": turn.usage,
        "budget": turn.budget.as_dict() if turn.budget else None,
        # How the documents reached the model: "documents" (whole, in the cached prefix),
        # "passages" (retrieved into the question's turn) or "none".
        "mode": turn.budget.mode if turn.budget else None,
        "rewritten_query": turn.stats.rewritten_query if turn.stats else None,
        "memory": turn.stats.as_dict() if turn.stats else None,
        "session": turn.session.as_dict() if turn.session else None,
        # The full text of every chunk the model was given, numbered as the prompt numbers them.
        "citations": [c.as_dict() for c in answer.facts.citations] if answer else [],
        # Whether the documents in scope held the answer: found, weak or not found (null: none searched).
        "evidence": turn.evidence.as_dict() if turn.evidence else None,
        # How docchat answered ("lookup", "collection", "compare" or "table") and what it covered.
        **plan_wire.to_api(answer.facts if answer else None),
        # The passages the answer cites (its [n] marks in order of first mention, or those docchat
        # attributed its sentences to) and how each cited sentence was checked against them.
        "cited": [c.as_dict() for c in answer.cited] if answer else [],
        "citation_check": citation_wire.check_to_api(answer.facts.grounding) if answer else None,
        "counter": services.conversations.counter.id,
    }

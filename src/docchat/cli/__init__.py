"""The `docchat` command. Errors print one line to stderr and exit non-zero.

One module per group of commands (run, api, ask and chat, llm, conversations, documents, doctor,
backup, folders, bench), each registering its own with `add_commands`. A group module imports
what only its commands need inside them, so that `docchat --help` and a command over the
database alone do not import what the others need (the LLM server's launcher and client, the
terminal chat, the parsers: tests/integration/test_cli_start.py); `chat` names its function as
"module:function" (docchat.cli.terminal), imported when it runs."""

from __future__ import annotations

import argparse
import importlib
import sys

from docchat import __version__
from docchat.cli import api, ask, backup, bench, conversations, doctor, documents, folders, llm, run
from docchat.cli.documents import KINDS_READ
from docchat.cli.signals import stop_like_ctrl_c
from docchat.errors import DocchatError
from docchat.text import for_terminal


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "handler"):
        parser.print_help()
        return 2
    stop_like_ctrl_c()
    try:
        return _function(args.handler)(args) or 0
    except DocchatError as error:
        # A message may quote a file name or a title: no escape sequence of theirs reaches the terminal.
        print(f"docchat: {for_terminal(str(error))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("docchat: interrupted", file=sys.stderr)
        return 130
    except OSError as error:
        print(f"docchat: {error.strerror or error}: {error.filename or ''}".rstrip(": "), file=sys.stderr)
        return 1


def _function(handler):
    """A command's function: the one given, or the one named "module:function", imported now."""
    if callable(handler):
        return handler
    module, _, name = handler.partition(":")
    return getattr(importlib.import_module(module), name)


class _Help(argparse.HelpFormatter):
    """Names the kinds of file docchat reads where a help says KINDS_READ. The sentence is
    gathered from the kinds' own modules, whose import (with the domain's) is a tenth of a second
    of every command's start that only `--help` needs."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = super()._get_help_string(action)
        if text is None or KINDS_READ not in text:
            return text
        from docchat.documents.registry import READABLE

        return text.replace(KINDS_READ, READABLE)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="docchat", description="Chat with your documents, locally.",
                                     formatter_class=_Help)
    parser.add_argument("--version", action="version", version=f"docchat {__version__}")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")
    # Each group registers its own commands, in the order `--help` lists them.
    for group in (run, api, ask, llm, conversations, documents, doctor, backup, folders, bench):
        group.add_commands(commands)
    return parser

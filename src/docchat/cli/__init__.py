"""The `docchat` command. Errors print one line to stderr and exit non-zero.

The parser names each command's function as "module:function", imported when that command
runs: `docchat --help` and a command over the database alone do not import what the others
need (the LLM server's launcher and client, the terminal chat, the parsers)."""

from __future__ import annotations

import argparse
import importlib
import sys

from docchat import __version__
from docchat.cli.api import DEFAULT_HOST, DEFAULT_PORT
from docchat.cli.bench import add_bench_commands
from docchat.cli.folders import add_folder_commands
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


# Where a help names the kinds of file docchat reads; said by _Help, only when a help is printed.
KINDS_READ = "{kinds read}"


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

    run = commands.add_parser("run", help="start the LLM server and serve the app on 127.0.0.1 (what `make run` does)")
    run.add_argument("--port", type=int, default=8501)
    run.add_argument("--no-llm", action="store_true", help="serve the page without starting the embedded LLM")
    run.add_argument("--api-port", type=int, default=DEFAULT_PORT, help="the HTTP API's port (default: %(default)s)")
    run.add_argument("--no-api", action="store_true", help="serve the page without the HTTP API")
    run.set_defaults(handler="docchat.cli.run_ask_llm:run_app")

    api = commands.add_parser("api", help="serve the HTTP API (and its OpenAI-compatible /v1) on 127.0.0.1")
    api.add_argument("--host", default=DEFAULT_HOST, help="another address than 127.0.0.1 needs DOCCHAT_API_TOKEN")
    api.add_argument("--port", type=int, default=DEFAULT_PORT)
    api.set_defaults(handler="docchat.cli.api:serve_api")

    asking = commands.add_parser("ask", help="ask one question and stream the answer")
    asking.add_argument("question")
    asking.add_argument("--conversation", metavar="ID", help="continue this conversation (default: a new one)")
    asking.add_argument("--json", action="store_true", help="print the answer, usage and budget split as JSON")
    asking.add_argument("--history", metavar="FILE", help="stateless: answer from this JSON list of "
                        "{role, content} instead of a stored conversation; nothing is stored")
    asking.set_defaults(handler="docchat.cli.run_ask_llm:ask")

    chatting = commands.add_parser("chat", help="an interactive chat in the terminal (Ctrl-C stops an answer)")
    chatting.add_argument("--conversation", metavar="ID", help="continue this conversation (default: a new one)")
    chatting.add_argument("--stateless", action="store_true",
                          help="keep the history in this session only and send it with each question; nothing is stored")
    chatting.add_argument("--url", help="talk to a running docchat HTTP API (e.g. http://127.0.0.1:8502) "
                          "instead of the data dir")
    chatting.add_argument("--token", help="the API's bearer token, with --url")
    chatting.set_defaults(handler="docchat.cli.terminal:chat")

    llm = commands.add_parser("llm", help="the vLLM server: its command line, or run it")
    llm_verbs = llm.add_subparsers(title="verbs", metavar="VERB", required=True)
    for verb, handler, text in (
            ("command", "docchat.cli.run_ask_llm:llm_command", "print the exact server command line"),
            ("serve", "docchat.cli.run_ask_llm:llm_serve", "run the server in the foreground")):
        sub = llm_verbs.add_parser(verb, help=text)
        sub.add_argument("--profile", choices=["cpu", "gpu"], default="cpu")
        sub.add_argument("--gpu-memory-gib", type=float, help="the GPU's memory, when it cannot be detected")
        sub.set_defaults(handler=handler)

    conversations = commands.add_parser("conversations",
                                        help="list, create, rename, pin, documents only, delete, search; the trash")
    verbs = conversations.add_subparsers(title="verbs", metavar="VERB", required=True)
    listing = verbs.add_parser("list", help="pinned first, then most recently updated")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(handler="docchat.cli.library:list_conversations")
    new = verbs.add_parser("new", help="create a conversation and print its id")
    new.add_argument("--title", default="New conversation")
    new.set_defaults(handler="docchat.cli.library:new_conversation")
    rename = verbs.add_parser("rename", help="give a conversation a new title")
    rename.add_argument("id")
    rename.add_argument("title")
    rename.set_defaults(handler="docchat.cli.library:rename_conversation")
    for verb, handler in (("pin", "docchat.cli.library:pin_conversation"),
                          ("unpin", "docchat.cli.library:unpin_conversation")):
        sub = verbs.add_parser(verb, help=f"{verb} a conversation")
        sub.add_argument("id")
        sub.set_defaults(handler=handler)
    only = verbs.add_parser("documents-only", help="answer from the conversation's documents only (on), or "
                            "ask the model when they hold nothing (off)")
    only.add_argument("id")
    only.add_argument("state", choices=["on", "off"])
    only.set_defaults(handler="docchat.cli.library:set_documents_only")
    delete = verbs.add_parser("delete", help="delete a conversation (--purge: for good)")
    delete.add_argument("id")
    delete.add_argument("--purge", action="store_true", help="remove it and its messages from the database")
    delete.set_defaults(handler="docchat.cli.library:delete_conversation")
    trash = verbs.add_parser("trash", help="deleted conversations, not yet purged, the most recently deleted first")
    trash.add_argument("--json", action="store_true")
    trash.set_defaults(handler="docchat.cli.library:list_trash")
    restore = verbs.add_parser("restore", help="take a deleted conversation out of the trash")
    restore.add_argument("id")
    restore.set_defaults(handler="docchat.cli.library:restore_conversation")
    emptying = verbs.add_parser("empty-trash", help="purge every conversation in the trash, for good")
    emptying.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    emptying.set_defaults(handler="docchat.cli.library:empty_trash")
    search = verbs.add_parser("search", help="full-text search over titles and messages")
    search.add_argument("text")
    search.add_argument("--json", action="store_true")
    search.set_defaults(handler="docchat.cli.library:search_conversations")

    exporting = commands.add_parser("export", help="export a conversation as Markdown or JSON, or all as a zip")
    exporting.add_argument("id", nargs="?")
    exporting.add_argument("--format", choices=["md", "json"], default="md")
    exporting.add_argument("-o", "--output", help="write to this file instead of standard output")
    exporting.add_argument("--all", action="store_true", help="every conversation as JSON, in one zip")
    exporting.set_defaults(handler="docchat.cli.library:export")

    importing = commands.add_parser("import", help="import a JSON export (or a zip of them), ChatGPT's "
                                    "conversations.json or an Open WebUI chat export")
    importing.add_argument("file")
    importing.add_argument("--as-copy", action="store_true", help="import under a new id")
    importing.set_defaults(handler="docchat.cli.library:import_file")

    ingesting = commands.add_parser("ingest", help=f"add documents ({KINDS_READ}) to the library")
    ingesting.add_argument("paths", nargs="+", metavar="PATH",
                           help="a file, or a folder: its supported files and those of its subfolders")
    ingesting.add_argument("--conversation", metavar="ID", help="also add them to this conversation's scope")
    ingesting.set_defaults(handler="docchat.cli.library:ingest")

    docs = commands.add_parser("documents", help="the document library: list, delete, usage, reindex, repair")
    doc_verbs = docs.add_subparsers(title="verbs", metavar="VERB", required=True)
    doc_list = doc_verbs.add_parser("list", help="every document with its size, pages and chunks")
    doc_list.add_argument("--json", action="store_true")
    doc_list.set_defaults(handler="docchat.cli.library:list_documents")
    for verb, handler, text in (
            ("delete", "docchat.cli.library:delete_document", "remove a document, its chunks and vectors"),
            ("usage", "docchat.cli.library:document_usage", "the conversations that cited a document")):
        sub = doc_verbs.add_parser(verb, help=text)
        sub.add_argument("id")
        sub.set_defaults(handler=handler)
    reindexing = doc_verbs.add_parser("reindex", help="embed every chunk again (after changing the embedding model)")
    reindexing.set_defaults(handler="docchat.cli.library:reindex_documents")
    repairing = doc_verbs.add_parser("repair", help="mend what `docchat doctor` finds: chunks without a vector "
                                     "embedded again, stray vectors dropped, the keyword index rebuilt")
    repairing.set_defaults(handler="docchat.cli.library:repair_documents")

    cleaning = commands.add_parser("cleanup", help="remove unpinned conversations not updated for DAYS "
                                       "days, and those in the trash for DAYS days")
    cleaning.add_argument("--older-than", type=int, required=True, metavar="DAYS")
    cleaning.add_argument("--dry-run", action="store_true", help="list what would be removed, remove nothing")
    cleaning.set_defaults(handler="docchat.cli.library:cleanup")

    backing = commands.add_parser("backup", help="the database, the documents and the settings in one archive "
                                  "(the app may be running)")
    backing.add_argument("file", metavar="FILE")
    backing.set_defaults(handler="docchat.cli.backup:backup_data")

    restoring = commands.add_parser("restore", help="a backup into an empty data dir; the document index is rebuilt")
    restoring.add_argument("file", metavar="FILE")
    restoring.add_argument("--force", action="store_true",
                           help="restore over the data there, moving it aside into before-restore-<time>")
    restoring.set_defaults(handler="docchat.cli.backup:restore_backup")

    health = commands.add_parser("doctor", help="database, schema version, integrity, counts; the LLM's state; "
                                 "the last backup; whether the chunks, the keyword index and the vector index "
                                 "agree (exit code 1 when they do not)")
    health.add_argument("--json", action="store_true")
    health.set_defaults(handler="docchat.cli.library:doctor")

    add_folder_commands(commands)
    add_bench_commands(commands)
    return parser

"""`docchat conversations ...`, `export`, `import` and `cleanup`: the stored conversations."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from docchat.atomic import write_atomically
from docchat.cli.common import open_services, print_json, shown
from docchat.errors import DocchatError
from docchat.text import for_terminal

if TYPE_CHECKING:  # `docchat --help` imports the command modules, and must not load the services
    from docchat.services.conversations import ConversationService


def add_commands(commands) -> None:
    conversations = commands.add_parser("conversations",
                                        help="list, create, rename, pin, documents only, quoted answers, delete, search; "
                                             "the trash")
    verbs = conversations.add_subparsers(title="verbs", metavar="VERB", required=True)
    listing = verbs.add_parser("list", help="pinned first, then most recently updated")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(handler=list_conversations)
    new = verbs.add_parser("new", help="create a conversation and print its id")
    new.add_argument("--title", default="New conversation")
    new.set_defaults(handler=new_conversation)
    rename = verbs.add_parser("rename", help="give a conversation a new title")
    rename.add_argument("id")
    rename.add_argument("title")
    rename.set_defaults(handler=rename_conversation)
    for verb, handler in (("pin", pin_conversation),
                          ("unpin", unpin_conversation)):
        sub = verbs.add_parser(verb, help=f"{verb} a conversation")
        sub.add_argument("id")
        sub.set_defaults(handler=handler)
    only = verbs.add_parser("documents-only", help="answer from the conversation's documents only, never "
                            "asking the model when they hold nothing (on), or let `ask --form free` ask it (off)")
    only.add_argument("id")
    only.add_argument("state", choices=["on", "off"])
    only.set_defaults(handler=set_documents_only)
    quoted = verbs.add_parser("quoted", help="quote the conversation's documents for the answers they hold, "
                              "without asking the model (on), or let the model write them (off)")
    quoted.add_argument("id")
    quoted.add_argument("state", choices=["on", "off"])
    quoted.set_defaults(handler=set_quoted_answers)
    delete = verbs.add_parser("delete", help="delete a conversation (--purge: for good)")
    delete.add_argument("id")
    delete.add_argument("--purge", action="store_true", help="remove it and its messages from the database")
    delete.set_defaults(handler=delete_conversation)
    trash = verbs.add_parser("trash", help="deleted conversations, not yet purged, the most recently deleted first")
    trash.add_argument("--json", action="store_true")
    trash.set_defaults(handler=list_trash)
    restore = verbs.add_parser("restore", help="take a deleted conversation out of the trash")
    restore.add_argument("id")
    restore.set_defaults(handler=restore_conversation)
    emptying = verbs.add_parser("empty-trash", help="purge every conversation in the trash, for good")
    emptying.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    emptying.set_defaults(handler=empty_trash)
    search = verbs.add_parser("search", help="full-text search over titles and messages")
    search.add_argument("text")
    search.add_argument("--json", action="store_true")
    search.set_defaults(handler=search_conversations)

    exporting = commands.add_parser("export", help="export a conversation as Markdown or JSON, or all as a zip")
    exporting.add_argument("id", nargs="?")
    exporting.add_argument("--format", choices=["md", "json"], default="md")
    exporting.add_argument("-o", "--output", help="write to this file instead of standard output")
    exporting.add_argument("--all", action="store_true", help="every conversation as JSON, in one zip")
    exporting.set_defaults(handler=export)

    importing = commands.add_parser("import", help="import a JSON export (or a zip of them), ChatGPT's "
                                    "conversations.json or an Open WebUI chat export")
    importing.add_argument("file")
    importing.add_argument("--as-copy", action="store_true", help="import under a new id")
    importing.set_defaults(handler=import_file)

    cleaning = commands.add_parser("cleanup", help="remove unpinned conversations not updated for DAYS "
                                       "days, and those in the trash for DAYS days")
    cleaning.add_argument("--older-than", type=int, required=True, metavar="DAYS")
    cleaning.add_argument("--dry-run", action="store_true", help="list what would be removed, remove nothing")
    cleaning.set_defaults(handler=cleanup)


def list_conversations(args) -> None:
    conversations = open_services().conversations.list()
    if args.json:
        print_json([_conversation_json(c) for c in conversations])
        return
    if not conversations:
        print("No conversations yet. Create one with: docchat conversations new --title \"...\"")
    for c in conversations:
        pin = "*" if c.pinned else " "
        print(f"{pin} {c.id}  {c.updated_at:%Y-%m-%d %H:%M}  {c.message_count:>5} msgs  {shown(c.title)}")


def new_conversation(args) -> None:
    print(open_services().conversations.create(args.title).id)


def rename_conversation(args) -> None:
    conversations = open_services().conversations
    conversations.rename(conversations.resolve_id(args.id), args.title)


def pin_conversation(args) -> None:
    conversations = open_services().conversations
    conversations.pin(conversations.resolve_id(args.id))


def unpin_conversation(args) -> None:
    conversations = open_services().conversations
    conversations.unpin(conversations.resolve_id(args.id))


def set_documents_only(args) -> None:
    _switch(args, "documents only", lambda conversations, chosen, on: conversations.set_documents_only(chosen, on))


def set_quoted_answers(args) -> None:
    _switch(args, "quoted answers", lambda conversations, chosen, on: conversations.set_quoted_answers(chosen, on))


def _switch(args, name: str, choose: Callable[["ConversationService", str, bool], None]) -> None:
    """Turns one of a conversation's on/off choices on or off, and says which."""
    conversations = open_services().conversations
    conversation_id = conversations.resolve_id(args.id)
    choose(conversations, conversation_id, args.state == "on")
    title = conversations.get(conversation_id).title
    print(f"{for_terminal(title)}: {name} {args.state}")


def delete_conversation(args) -> None:
    conversations = open_services().conversations
    # Only a purge acts on a conversation already deleted.
    conversation_id = conversations.resolve_id(args.id, include_deleted=args.purge)
    conversations.delete(conversation_id, purge=args.purge)
    print(f"{'purged' if args.purge else 'deleted'} {conversation_id}")


def list_trash(args) -> None:
    trash = open_services().trash.list()
    if args.json:
        print_json([{**_conversation_json(c), "deleted_at": c.deleted_at.isoformat()} for c in trash])
        return
    if not trash:
        print("The trash is empty.")
    for c in trash:
        print(f"  {c.id}  deleted {c.deleted_at:%Y-%m-%d %H:%M}  {c.message_count:>5} msgs  {shown(c.title)}")


def restore_conversation(args) -> None:
    services = open_services()
    conversation = services.trash.restore(services.conversations.resolve_id(args.id, include_deleted=True))
    print(f"restored {conversation.id} ({shown(conversation.title)})")


def empty_trash(args) -> int:
    trash = open_services().trash
    waiting = len(trash.list())
    if not waiting:
        print("The trash is empty.")
        return 0
    if not args.yes:
        question = f"Purge the {waiting} conversation(s) in the trash, with their messages, for good? [y/N] "
        if not sys.stdin.isatty():
            raise DocchatError(f"empty-trash purges {waiting} conversation(s) for good; confirm with --yes")
        if input(question).strip().lower() not in ("y", "yes"):
            print("Nothing removed.")
            return 1
    purged = trash.empty()
    print(f"purged {len(purged)} conversation(s)")
    for c in purged:
        print(f"  {c.id}  {shown(c.title)}")
    return 0


def search_conversations(args) -> None:
    hits = open_services().messages.search(args.text)
    if args.json:
        print_json([hit.__dict__ for hit in hits])
        return
    if not hits:
        print("No matches.")
    for hit in hits:
        print(f"{hit.conversation_id}  {shown(hit.title)}\n    {shown(hit.snippet)}")


def export(args) -> None:
    services = open_services()
    transfer = services.transfer
    if args.all:
        if not args.output:
            raise DocchatError("export --all needs -o FILE.zip")
        write_atomically(args.output, transfer.export_all_zip())
        return
    if not args.id:
        raise DocchatError("give a conversation ID, or --all -o FILE.zip")
    conversation_id = services.conversations.resolve_id(args.id)
    text = (transfer.export_markdown(conversation_id) if args.format == "md"
            else transfer.export_json(conversation_id))
    if args.output:
        write_atomically(args.output, text.encode("utf-8"))
    else:
        sys.stdout.write(text)


def import_file(args) -> None:
    raw = Path(args.file).read_bytes()
    for report in open_services().transfer.import_bytes(raw, name=Path(args.file).name, as_copy=args.as_copy):
        if report.present_but_deleted:
            print(f"already present but deleted: {report.conversation_id} ({shown(report.title)}); nothing added. "
                  f"Purge it first (docchat conversations delete {report.conversation_id} --purge) "
                  "or import with --as-copy")
        elif report.already_present:
            print(f"already present: {report.conversation_id} ({shown(report.title)}); nothing added")
        else:
            print(f"imported {report.conversation_id} ({shown(report.title)}): {report.messages} messages")


def cleanup(args) -> None:
    report = open_services().trash.cleanup(older_than_days=args.older_than, dry_run=args.dry_run)
    verb = "would remove" if report.dry_run else "removed"
    trashed = [c for c in report.conversations if c.deleted_at is not None]
    print(f"{verb} {len(report.conversations) - len(trashed)} conversation(s) not updated for {args.older_than} days"
          + (f" and {len(trashed)} in the trash for as long" if trashed else ""))
    for c in report.conversations:
        when = f"in the trash since {c.deleted_at:%Y-%m-%d}" if c.deleted_at else f"{c.updated_at:%Y-%m-%d}"
        print(f"  {c.id}  {when}  {shown(c.title)}")


def _conversation_json(c) -> dict:
    return {
        "id": c.id,
        "title": c.title,
        "created_at": c.created_at.isoformat(),
        "updated_at": c.updated_at.isoformat(),
        "pinned": c.pinned,
        "messages": c.message_count,
    }

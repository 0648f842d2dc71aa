"""The commands over the store: conversations, export and import, documents, clean-up, doctor."""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

from docchat.atomic import write_atomically
from docchat.cli.common import open_services, print_json, shown
from docchat.errors import DocchatError
from docchat.text import for_terminal
from docchat.wording import count, size


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
    conversations = open_services().conversations
    conversation_id = conversations.resolve_id(args.id)
    conversations.set_documents_only(conversation_id, args.state == "on")
    title = conversations.get(conversation_id).title
    print(f"{for_terminal(title)}: documents only {args.state}")


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
    hits = open_services().conversations.search(args.text)
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


def ingest(args) -> int:
    from docchat.services.documents import FileToAdd

    # Chunks are cut by the served model's tokens.
    services = open_services(llm=True)
    # Before any file is read: a mistyped id should not cost an ingestion.
    conversation_id = services.conversations.resolve_id(args.conversation) if args.conversation else None
    # Nor an index the app holds: refused in one line, not once per file.
    services.index.open()
    paths = _files(args.paths)
    if not paths:
        raise DocchatError(f"no file of a kind docchat reads ({services.ingestion.kinds_in_words()}) in "
                           f"{', '.join(args.paths)}")
    files = [FileToAdd(path.name, partial(_read, path)) for path in paths]
    bar = _progress_bar(count(len(files), "file"))
    refused = 0
    added = []
    try:
        for outcome in services.ingestion.add_many(files, progress=bar):
            _clear_bar()
            if outcome.error is not None:
                refused += 1
                print(f"docchat: {for_terminal(str(outcome.error))}", file=sys.stderr)
                continue
            document = outcome.report.document
            added.append(document.id)
            if outcome.report.already_present:
                print(f"{shown(outcome.name)}: already in the library, as {shown(document.name)}  {document.id}")
                continue
            pages = f", {count(document.pages, 'page')}" if document.pages else ""
            print(f"{shown(document.name)}: {count(document.chunks, 'chunk')}{pages}  {document.id}")
            added += _attachments(outcome.report)
    finally:
        _clear_bar()
        if conversation_id and added:
            services.conversations.set_document_scope(
                conversation_id, sorted(set(_scope(services, conversation_id)) | set(added)))
    return 1 if refused else 0


def _attachments(report) -> list[str]:
    """Prints how a mail's attachments went, under it; the ids of those in the library."""
    for attached in report.attached:
        document = attached.document
        done = "already in the library" if attached.already_present else count(document.chunks, "chunk")
        print(f"  attached: {shown(document.name)}: {done}  {document.id}")
    for refusal in report.refused:
        print(f"docchat: {for_terminal(refusal)}", file=sys.stderr)
    return [attached.document.id for attached in report.attached]


def _files(paths: list[str]) -> list[Path]:
    """The paths given, with each folder replaced by the supported files in it and below (in
    name order, hidden ones left out). A file named on its own is taken whatever its type, so
    that one of the wrong type is refused in its own line."""
    from docchat.documents.registry import reads

    found = []
    for name in paths:
        path = Path(name)
        if not path.is_dir():
            found.append(path)
            continue
        found += sorted(p for p in path.rglob("*") if p.is_file() and reads(p.name)
                        and not any(part.startswith(".") for part in p.relative_to(path).parts))
    return found


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise DocchatError(f"{path}: {error.strerror or error}") from None


def _scope(services, conversation_id: str) -> list[str]:
    return list(services.conversations.get(conversation_id).settings.document_scope or ())


BAR_WIDTH = 24


def _progress_bar(name: str):
    def show(stage: str, share: float) -> None:
        filled = int(share * BAR_WIDTH)
        sys.stderr.write(f"\r{name[:30]:<30} [{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {share:4.0%} "
                         f"{stage[:40]:<40}")
        sys.stderr.flush()
    return show


def _clear_bar() -> None:
    """Wipes the bar's line, so that what is printed next starts on a clean one (a terminal
    shows both streams on one screen; into a file or pipe the bar's updates stay one line)."""
    sys.stderr.write("\r\033[K" if sys.stderr.isatty() else "\r")
    sys.stderr.flush()


def list_documents(args) -> None:
    documents = open_services().documents.list()
    if args.json:
        print_json([d.__dict__ for d in documents])
        return
    if not documents:
        print("No documents yet. Add some with: docchat ingest FILE...")
    for d in documents:
        print(f"{d.id}  {d.status.value:<8} {d.kind:<8} {size(d.size):>10}  "
              f"{count(d.pages, 'page') if d.pages else '-':>9}  {count(d.chunks, 'chunk'):>12}  "
              f"{d.added_at:%Y-%m-%d}  {shown(d.name)}")


def delete_document(args) -> None:
    documents = open_services().documents
    document_id = documents.resolve_id(args.id)
    documents.delete(document_id)
    print(f"deleted {document_id}")


def reindex_documents(args) -> None:
    done = open_services().index.reindex(progress=_progress_bar("re-indexing"))
    print(f"\rre-indexed {count(done, 'chunk')}" + " " * 90)


def document_usage(args) -> None:
    documents = open_services().documents
    uses = documents.usage(documents.resolve_id(args.id))
    if not uses:
        print("No conversation has cited this document yet.")
    for use in uses:
        print(f"{use.conversation_id}  {use.citations:>3} citations  {shown(use.title)}")


def cleanup(args) -> None:
    report = open_services().trash.cleanup(older_than_days=args.older_than, dry_run=args.dry_run)
    verb = "would remove" if report.dry_run else "removed"
    trashed = [c for c in report.conversations if c.deleted_at is not None]
    print(f"{verb} {len(report.conversations) - len(trashed)} conversation(s) not updated for {args.older_than} days"
          + (f" and {len(trashed)} in the trash for as long" if trashed else ""))
    for c in report.conversations:
        when = f"in the trash since {c.deleted_at:%Y-%m-%d}" if c.deleted_at else f"{c.updated_at:%Y-%m-%d}"
        print(f"  {c.id}  {when}  {shown(c.title)}")


def repair_documents(args) -> int:
    from docchat.services.library_check import problems

    index = open_services().index
    found = index.check()
    if found.agrees:
        print(f"Nothing to repair: {_agreement(found)}.")
        return 0
    for problem in problems(found):
        print(f"found: {problem}")
    done = index.repair(progress=_progress_bar("repairing"))
    _clear_bar()
    print(f"repaired: {count(done.embedded, 'vector')} embedded again, {count(done.dropped, 'stray vector')} dropped"
          + (", the keyword index rebuilt" if done.keyword_index_rebuilt else ""))
    after = index.check()
    if not after.agrees:  # another process changed the library meanwhile
        print("still found: " + "; ".join(problems(after)), file=sys.stderr)
        return 1
    return 0


def doctor(args) -> int:
    """The health report, then the index check; exits 1 when the indexes disagree with the chunks."""
    services = open_services(llm=True)
    parts = services.health.report().as_dict()
    try:
        found = services.index.check()
    except DocchatError as error:  # held by the running app, or its embeddings server is down
        parts["index"] = {"checked": False, "problem": str(error)}
        found = None
    else:
        parts["index"] = _index_figures(found)
    if args.json:
        print_json(parts)
    else:
        for part, figures in parts.items():
            print(part)
            for key, value in figures.items():
                if isinstance(value, (list, tuple)):
                    value = "; ".join(value) or "none"
                print(f"  {key.replace('_', ' '):<22} {value}")
    return 1 if found is not None and not found.agrees else 0


def _index_figures(found) -> dict:
    from docchat.services.library_check import problems

    keywords = ("part of each chunk's row" if found.keyword_text_matches is None
                else "agrees" if not (found.missing_keywords or found.stray_keywords or not found.keyword_text_matches)
                else "differs")
    return {"checked": True, "agrees": found.agrees, "chunks": found.chunks, "vectors": found.vectors,
            "missing_vectors": len(found.missing_vectors), "stray_vectors": len(found.stray_vectors),
            "keyword_index": keywords, "problems": problems(found),
            "fix": "docchat documents repair" if not found.agrees else None}


def _agreement(found) -> str:
    return f"{count(found.chunks, 'chunk')}, {count(found.vectors, 'vector')} and the keyword index agree"


def _conversation_json(c) -> dict:
    return {
        "id": c.id,
        "title": c.title,
        "created_at": c.created_at.isoformat(),
        "updated_at": c.updated_at.isoformat(),
        "pinned": c.pinned,
        "messages": c.message_count,
    }

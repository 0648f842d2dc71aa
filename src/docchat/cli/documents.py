"""`docchat ingest` and `docchat documents ...`: the document library."""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

from docchat.cli.common import clear_bar, open_services, print_json, progress_bar, shown
from docchat.errors import DocchatError
from docchat.text import for_terminal
from docchat.wording import count, size

# Where a help names the kinds of file docchat reads (docchat.cli's help formatter says them).
KINDS_READ = "{kinds read}"


def add_commands(commands) -> None:
    ingesting = commands.add_parser("ingest", help=f"add documents ({KINDS_READ}) to the library")
    ingesting.add_argument("paths", nargs="+", metavar="PATH",
                           help="a file, or a folder: its supported files and those of its subfolders")
    ingesting.add_argument("--conversation", metavar="ID", help="also add them to this conversation's scope")
    ingesting.set_defaults(handler=ingest)

    docs = commands.add_parser("documents", help="the document library: list, delete, usage, reindex, repair")
    doc_verbs = docs.add_subparsers(title="verbs", metavar="VERB", required=True)
    doc_list = doc_verbs.add_parser("list", help="every document with its size, pages and chunks")
    doc_list.add_argument("--json", action="store_true")
    doc_list.set_defaults(handler=list_documents)
    for verb, handler, text in (
            ("delete", delete_document, "remove a document, its chunks and vectors"),
            ("usage", document_usage, "the conversations that cited a document")):
        sub = doc_verbs.add_parser(verb, help=text)
        sub.add_argument("id")
        sub.set_defaults(handler=handler)
    reindexing = doc_verbs.add_parser("reindex", help="embed every chunk again (after changing the embedding model)")
    reindexing.set_defaults(handler=reindex_documents)
    repairing = doc_verbs.add_parser("repair", help="mend what `docchat doctor` finds: chunks without a vector "
                                     "embedded again, stray vectors dropped, the keyword index rebuilt")
    repairing.set_defaults(handler=repair_documents)


def ingest(args) -> int:
    from docchat.services.ingestion import FileToAdd

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
    bar = progress_bar(count(len(files), "file"))
    refused = 0
    added = []
    try:
        for outcome in services.ingestion.add_many(files, progress=bar):
            clear_bar()
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
        clear_bar()
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
    done = open_services().index.reindex(progress=progress_bar("re-indexing"))
    print(f"\rre-indexed {count(done, 'chunk')}" + " " * 90)


def document_usage(args) -> None:
    documents = open_services().documents
    uses = documents.usage(documents.resolve_id(args.id))
    if not uses:
        print("No conversation has cited this document yet.")
    for use in uses:
        print(f"{use.conversation_id}  {use.citations:>3} citations  {shown(use.title)}")


def repair_documents(args) -> int:
    from docchat.services.library_check import problems

    index = open_services().index
    found = index.check()
    if found.agrees:
        print(f"Nothing to repair: {_agreement(found)}.")
        return 0
    for problem in problems(found):
        print(f"found: {problem}")
    done = index.repair(progress=progress_bar("repairing"))
    clear_bar()
    print(f"repaired: {count(done.embedded, 'vector')} embedded again, {count(done.dropped, 'stray vector')} dropped"
          + (", the keyword index rebuilt" if done.keyword_index_rebuilt else "")
          + (f", the tables of {count(done.tables_written, 'document')} read" if done.tables_written else ""))
    after = index.check()
    if not after.agrees:  # another process changed the library meanwhile
        print("still found: " + "; ".join(problems(after)), file=sys.stderr)
        return 1
    return 0


def _agreement(found) -> str:
    return f"{count(found.chunks, 'chunk')}, {count(found.vectors, 'vector')} and the keyword index agree"

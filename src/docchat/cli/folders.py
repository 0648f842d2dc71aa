"""`docchat folders`: follow folders, so that the library keeps in step with them."""

from __future__ import annotations


from pathlib import Path

from docchat.cli.common import clear_bar, open_services, print_json, progress_bar, shown
from docchat.errors import IndexInUse
from docchat.text import for_terminal
from docchat.wording import count

REMOVE_HELP = ("stop following a folder; its files' documents leave the library (answers that cited them "
               "keep their quotes), the files on disk are not touched")


def add_commands(commands) -> None:
    folders = commands.add_parser("folders", help="follow folders: their files stay in the library, in step "
                                  "with the disk (add, list, sync, remove)")
    verbs = folders.add_subparsers(title="verbs", metavar="VERB", required=True)
    adding = verbs.add_parser("add", help="follow a folder and add the files in it and below that docchat reads "
                              "(hidden folders, __pycache__ and node_modules are skipped)")
    adding.add_argument("dir", metavar="DIR")
    adding.add_argument("--conversation", metavar="ID", help="also add its documents to this conversation's scope")
    adding.set_defaults(handler=add_folder)
    listing = verbs.add_parser("list", help="each followed folder: its files by status, the last sync, "
                               "and the files refused with why")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(handler=list_folders)
    syncing = verbs.add_parser("sync", help="one pass over every followed folder: added, changed, removed, "
                               "unchanged, refused")
    syncing.set_defaults(handler=sync_folders)
    removing = verbs.add_parser("remove", help=REMOVE_HELP)
    removing.add_argument("dir", metavar="DIR")
    removing.set_defaults(handler=remove_folder)


def add_folder(args) -> int:
    # Chunks are cut by the served model's tokens, as `docchat ingest` cuts them.
    services = open_services(llm=True)
    conversation_id = services.conversations.resolve_id(args.conversation) if args.conversation else None
    bar = _Bar(Path(args.dir).name)
    try:
        report = services.folders.add(args.dir, conversation_id, progress=bar.show)
    finally:
        bar.clear()
    return _print_report(report)


def sync_folders(args) -> int:
    # No LLM server asked: a pass with nothing changed must stay quick. Chunks of changed files are
    # then cut with the profile's tokenizer, which is the served model's unless a server by URL says otherwise.
    bar = _Bar("syncing")
    try:
        report = open_services().folders.sync(progress=bar.show)
    except IndexInUse as error:
        raise IndexInUse(f"{error} While the app runs, it syncs the followed folders itself.") from None
    finally:
        bar.clear()
    return _print_report(report)


def remove_folder(args) -> None:
    removed = open_services().folders.remove(args.dir)
    print(f"no longer following {shown(args.dir)}; {count(removed, 'document')} left the library")


def list_folders(args) -> None:
    states = open_services().folders.list()
    if args.json:
        print_json([_state_json(state) for state in states])
        return
    if not states:
        print("No folder followed. Follow one with: docchat folders add DIR")
    for state in states:
        folder = state.folder
        files = ", ".join(f"{n} {status}" for status, n in sorted(state.files_by_status.items())) or "no files"
        synced = f"last sync {folder.last_sync_at:%Y-%m-%d %H:%M:%S}" if folder.last_sync_at else "never synced"
        print(f"{shown(folder.path)}  {files}  {synced}")
        for problem in state.problems:
            print(f"  {problem.status.value}: {shown(problem.relative_path)}: {shown(problem.reason)}")


class _Bar:
    """`docchat ingest`'s progress bar on stderr, shown only while files are read: a pass with
    nothing to read, or a refusal, prints nothing but its lines."""

    def __init__(self, name: str):
        self._show = progress_bar(name)
        self._drawn = False

    def show(self, stage: str, share: float) -> None:
        self._drawn = True
        self._show(stage, share)

    def clear(self) -> None:
        if self._drawn:
            clear_bar()


def _print_report(report) -> int:
    counts = report.counts
    line = (f"{counts.added} added, {counts.changed} changed, {counts.removed} removed, "
            f"{counts.unchanged} unchanged, {counts.refused} refused")
    print(line + (f", {counts.failed} failed" if counts.failed else ""))
    for problem in report.problems:
        where = f"{problem.folder}/{problem.relative_path}" if problem.relative_path else problem.folder
        print(f"  {problem.status.value}: {shown(where)}: {for_terminal(shown(problem.reason))}")
    return 1 if counts.failed else 0


def _state_json(state) -> dict:
    folder = state.folder
    return {
        "path": folder.path,
        "conversation_id": folder.conversation_id,
        "added_at": folder.added_at.isoformat(),
        "last_sync_at": folder.last_sync_at.isoformat() if folder.last_sync_at else None,
        "last_sync": folder.last_counts.as_dict() if folder.last_counts else None,
        "files": state.files_by_status,
        "problems": [{"path": p.relative_path, "status": p.status.value, "reason": p.reason} for p in state.problems],
    }


__all__ = ["add_commands"]

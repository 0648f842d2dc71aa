"""`docchat backup` and `docchat restore`: the data dir in one archive, and back."""

from __future__ import annotations

from pathlib import Path

from docchat.cli.common import load_settings, progress_bar
from docchat.wording import count, size


def add_commands(commands) -> None:
    backing = commands.add_parser("backup", help="the database, the documents and the settings in one archive "
                                  "(the app may be running)")
    backing.add_argument("file", metavar="FILE")
    backing.set_defaults(handler=backup_data)

    restoring = commands.add_parser("restore", help="a backup into an empty data dir; the document index is rebuilt")
    restoring.add_argument("file", metavar="FILE")
    restoring.add_argument("--force", action="store_true",
                           help="restore over the data there, moving it aside into before-restore-<time>")
    restoring.set_defaults(handler=restore_backup)


def open_backup():
    from docchat.bootstrap import build_backup

    return build_backup(load_settings())


def backup_data(args) -> None:
    report = open_backup().backup(Path(args.file))
    figures = report.counts
    print(f"backed up {count(figures['conversations'], 'conversation')} "
          f"({count(figures['messages'], 'message')}) and {count(figures['documents'], 'document')} "
          f"({count(report.files, 'file')}) to {report.path}, {size(report.size)}")
    if report.missing_files:
        print(f"{count(len(report.missing_files), 'document file')} went while the backup ran "
              "(deleted meanwhile) and are not in it")


def restore_backup(args) -> None:
    report = open_backup().restore(Path(args.file), force=args.force, progress=progress_bar("re-indexing"))
    figures = report.counts
    print(f"\rrestored {count(figures.get('conversations', 0), 'conversation')} "
          f"({count(figures.get('messages', 0), 'message')}) and {count(figures.get('documents', 0), 'document')} "
          f"from a backup made {report.made_at}; re-indexed {count(report.chunks_indexed, 'chunk')}" + " " * 40)
    if report.put_aside is not None:
        print(f"the data that was there is in {report.put_aside}")

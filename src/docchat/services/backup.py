"""Backup and restore of a data directory; a backup may be made while the app is running.

A backup is one zip: `manifest.json`, `docchat.db` (a copy made with SQLite's online backup API:
the database as of one commit), the stored files of the documents that copy lists, and
`settings.json`. The document index is not in it. Qdrant Edge lets one process open its shard
and the running app holds it; its files are the engine's own format, and a copy taken beside a
writer need not agree with the database copy (a document ingested or
deleted in between). The chunks' text is in the database copy, so a restore embeds it again:
the rebuilt index matches the restored database exactly, made by the embedder the restored
installation uses. That costs about as long as embedding the documents took at ingestion.

Invariants:
- The archive appears whole or not at all (written beside its name, then renamed).
- A restore reads the whole archive into a folder inside the data directory, checks the
  database, upgrades it and rebuilds the index there, and only then moves it into place: a
  refused or failed restore changes nothing. Data already there is never overwritten: a
  restore refuses it, or with `force` moves it aside into a `before-restore-...` folder.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import zipfile
import zlib
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import Any, Callable, Iterator, Protocol

from docchat import __version__
from docchat.atomic import write_atomically
from docchat.domain import utcnow
from docchat.errors import DocchatError, InvalidBackup, InvalidInput
from docchat.upgrade_backups import FOLDER as UPGRADE_BACKUPS, automatic_backups
from docchat.zip_entries import CountedReader, ZipRefused, checked_entries

FORMAT = "docchat-backup"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
DATABASE = "docchat.db"
SETTINGS = "settings.json"
DOCUMENTS = "documents"
INDEX = "vectors"
# Where docchat kept the index before Qdrant Edge: moved aside on a restore like the rest.
OLD_INDEX = "qdrant"
# The keyword index beside a SQLite store: built again from the restored rows at the first search.
WORDS = "words"
LAST_BACKUP = "last-backup.json"
# What a data directory holds besides the database. The models and logs beside them are
# neither backed up nor replaced (the models are converted again, the logs are this machine's);
# the record of the last backup is written anew.
ENTRIES = (DOCUMENTS, INDEX, OLD_INDEX, WORDS, SETTINGS)
# A manifest is a few hundred bytes; a backup holds one entry per stored file, and three more.
MAX_MANIFEST_BYTES = 1024 * 1024
MAX_ENTRIES = 1_000_000

Progress = Callable[[str, float], None]


class Snapshot(Protocol):
    @property
    def revision(self) -> str: ...
    @property
    def counts(self) -> dict[str, int]: ...
    @property
    def files(self) -> tuple[str, ...]: ...


class DatabaseFiles(Protocol):
    """The database as a file (store/backup.py): SQLite only."""

    @property
    def path(self) -> Path: ...

    def snapshot(self, target: Path) -> Snapshot: ...
    def check(self, copy: Path) -> str | None: ...
    def knows(self, revision: str | None) -> bool: ...
    def in_use(self) -> bool: ...


# Upgrades the database in a folder laid out as a data dir and embeds its chunks into that
# folder's index (or the Qdrant server's); returns the chunks indexed.
RebuildIndex = Callable[[Path, Progress], int]


@dataclass(frozen=True)
class BackupReport:
    path: Path
    made_at: datetime
    counts: dict[str, int]
    files: int
    # Stored files gone by the time they were copied: their documents were deleted meanwhile.
    missing_files: tuple[str, ...]
    size: int


@dataclass(frozen=True)
class RestoreReport:
    made_at: str
    counts: dict[str, int]
    chunks_indexed: int
    # Where the data that was in the directory went (a forced restore), else None.
    put_aside: Path | None


@dataclass(frozen=True)
class BackupStatus:
    """What `docchat doctor`, the Settings page and the API's health say about backups."""

    last_backup: str | None  # when the last one was made (ISO 8601, UTC), or None
    file: str | None
    # The newest copy of the database made before a schema upgrade, or None.
    before_upgrade: str | None = None

    @property
    def made_at(self) -> datetime | None:
        """When the last one was made, as a moment in UTC; None if never (or the record is unreadable)."""
        if self.last_backup is None:
            return None
        try:
            moment = datetime.fromisoformat(self.last_backup)
        except ValueError:
            return None
        # Written in UTC; a record edited by hand without an offset is read as UTC too.
        return moment.astimezone(timezone.utc) if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def backup_status(data_dir: Path) -> BackupStatus:
    """When the last backup of `data_dir` was made, and to which file: read from the record a
    backup (or a restore) leaves there. Needs nothing opened, so any front end can ask."""
    automatic = automatic_backups(data_dir / UPGRADE_BACKUPS)
    before_upgrade = str(automatic[-1]) if automatic else None
    try:
        record = json.loads((data_dir / LAST_BACKUP).read_text(encoding="utf-8"))
        return BackupStatus(str(record["made_at"]), str(record["file"]), before_upgrade)
    except (OSError, ValueError, KeyError, TypeError):
        return BackupStatus(None, None, before_upgrade)


class BackupService:
    def __init__(self, data_dir: Path, database: DatabaseFiles | None, rebuild_index: RebuildIndex) -> None:
        self._data_dir = data_dir
        self._database = database
        self._rebuild_index = rebuild_index

    def status(self) -> BackupStatus:
        return backup_status(self._data_dir)

    # backup

    def backup(self, target: Path) -> BackupReport:
        """Writes the archive to `target` (replacing a file there)."""
        database = self._sqlite("backup")
        target = target.expanduser().resolve()
        if not target.parent.is_dir():
            raise InvalidInput(f"cannot write {target}: there is no folder {target.parent}")
        made_at = utcnow().replace(microsecond=0)
        partial = target.with_name(f".{target.name}.partial")
        try:
            with tempfile.TemporaryDirectory(prefix=".docchat-backup-", dir=target.parent) as work:
                copy = Path(work) / DATABASE
                snapshot = database.snapshot(copy)
                with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_DEFLATED) as archive:
                    archive.write(copy, DATABASE)
                    copied, missing = self._add_files(archive, snapshot.files)
                    if (self._data_dir / SETTINGS).is_file():
                        archive.write(self._data_dir / SETTINGS, SETTINGS)
                    archive.writestr(MANIFEST, json.dumps(self._manifest(snapshot, made_at, copied), indent=2))
            os.replace(partial, target)
        finally:
            partial.unlink(missing_ok=True)
        size = target.stat().st_size
        self._record(made_at.isoformat(), target)
        return BackupReport(target, made_at, snapshot.counts, copied, missing, size)

    def _add_files(self, archive: zipfile.ZipFile, files: tuple[str, ...]) -> tuple[int, tuple[str, ...]]:
        copied, missing = 0, []
        for name in files:
            entry = Path(name).as_posix()
            # store_file only ever writes under documents/; a restore accepts nothing else.
            if not _stored_file(entry):
                raise DocchatError(f"a document's stored file lies outside the documents folder: {name}")
            try:
                archive.write(self._data_dir / entry, entry)
            except FileNotFoundError:
                missing.append(name)
                continue
            copied += 1
        return copied, tuple(missing)

    @staticmethod
    def _manifest(snapshot: Snapshot, made_at: datetime, files: int) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "app_version": __version__,
            "schema_revision": snapshot.revision,
            "made_at": made_at.isoformat(),
            "counts": {**snapshot.counts, "files": files},
            "index": "not included: a restore embeds the chunks again",
        }

    # restore

    def restore(self, source: Path, *, force: bool = False,
                progress: Progress = lambda stage, share: None) -> RestoreReport:
        """Restores the archive into the data directory, which must hold no docchat data unless
        `force` (then what it holds is moved aside)."""
        database = self._sqlite("restore")
        present = self._present(database)
        if present and not force:
            raise InvalidInput(f"{self._data_dir} already holds docchat data "
                               f"({', '.join(p.name for p in present)}); restore into an empty data directory, "
                               "or add --force to move it aside and restore over it")
        self._refuse_if_open(database, present)
        with _opened(source) as (archive, manifest):
            revision = manifest["schema_revision"]
            if not database.knows(revision):
                raise InvalidBackup(f"{source.name} was made by a newer docchat (schema {revision}); "
                                    "update docchat to restore it; nothing was restored")
            created = not self._data_dir.exists()
            self._data_dir.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix=".restore-", dir=self._data_dir))
            try:
                _extract(archive, staging, source.name)
                try:
                    found = database.check(staging / DATABASE)
                except InvalidBackup as error:
                    raise InvalidBackup(f"{source.name}: {error}; nothing was restored") from None
                if found != revision:
                    raise InvalidBackup(f"{source.name}: its database is at schema {found}, its manifest "
                                        f"says {revision}; nothing was restored")
                progress("re-indexing", 0.0)
                indexed = self._rebuild_index(staging, progress)
                self._refuse_if_open(database, present)  # again: the app may have started meanwhile
                aside = self._move_into_place(staging, present, database)
            except BaseException:
                shutil.rmtree(staging, ignore_errors=True)
                if created:
                    shutil.rmtree(self._data_dir, ignore_errors=True)
                raise
            shutil.rmtree(staging, ignore_errors=True)
        self._record(manifest["made_at"], source.expanduser().resolve())
        return RestoreReport(manifest["made_at"], manifest["counts"], indexed, aside)

    def _present(self, database: DatabaseFiles) -> list[Path]:
        db = database.path
        found = [db, db.with_name(f"{db.name}-wal"), db.with_name(f"{db.name}-shm"),
                 *(self._data_dir / name for name in ENTRIES)]
        return [path for path in found if path.exists() or path.is_symlink()]

    @staticmethod
    def _refuse_if_open(database: DatabaseFiles, present: list[Path]) -> None:
        # Moved aside under a running app, the database would go on taking its writes there.
        if present and database.in_use():
            raise DocchatError(f"the database {database.path} is open in another docchat process (the app?); "
                               "stop it first")

    def _move_into_place(self, staging: Path, present: list[Path], database: DatabaseFiles) -> Path | None:
        """Moves what is there aside, then the staged data in; undoes the moves made if one fails."""
        aside = self._data_dir / f"before-restore-{utcnow():%Y%m%d-%H%M%S}" if present else None
        moves = [(path, aside / path.name) for path in present] if aside is not None else []
        moves += [(entry, database.path if entry.name == DATABASE else self._data_dir / entry.name)
                  for entry in sorted(staging.iterdir())]
        if aside is not None:
            aside.mkdir()
        done: list[tuple[Path, Path]] = []
        try:
            for origin, destination in moves:
                destination.parent.mkdir(parents=True, exist_ok=True)
                shutil.move(origin, destination)
                done.append((origin, destination))
        except BaseException:
            for origin, destination in reversed(done):
                shutil.move(destination, origin)
            if aside is not None:
                aside.rmdir()
            raise
        return aside

    # both

    def _sqlite(self, command: str) -> DatabaseFiles:
        if self._database is None:
            raise DocchatError(f"{command} works on a SQLite database only; for PostgreSQL (DOCCHAT_DATABASE_URL) "
                               "use pg_dump and pg_restore, and copy the data dir's documents folder")
        return self._database

    def _record(self, made_at: str, file: Path) -> None:
        self._data_dir.mkdir(parents=True, exist_ok=True)
        write_atomically(self._data_dir / LAST_BACKUP,
                         (json.dumps({"made_at": made_at, "file": str(file)}, indent=2) + "\n").encode())


@contextmanager
def _opened(source: Path) -> Iterator[tuple[zipfile.ZipFile, dict[str, Any]]]:
    """The archive and its manifest, once both look like a docchat backup of a known format."""
    name = source.name
    try:
        archive = zipfile.ZipFile(source)
    except zipfile.BadZipFile:
        raise InvalidBackup(f"{name} is not a docchat backup (not a zip archive, or cut short); "
                            "nothing was restored") from None
    with archive:
        try:
            manifest = json.loads(CountedReader(archive, total_bytes=MAX_MANIFEST_BYTES)
                                  .read(archive.getinfo(MANIFEST), max_bytes=MAX_MANIFEST_BYTES))
        except ZipRefused as refused:
            raise InvalidBackup(f"{name} is not a docchat backup ({refused}); nothing was restored") from None
        except KeyError:
            raise InvalidBackup(f"{name} is not a docchat backup (no {MANIFEST}); nothing was restored") from None
        except (zipfile.BadZipFile, zlib.error, EOFError, ValueError) as error:
            raise InvalidBackup(f"{name} is damaged ({MANIFEST}: {error}); nothing was restored") from None
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            raise InvalidBackup(f"{name} is not a docchat backup (its manifest is not docchat's); nothing was restored")
        version = manifest.get("version")
        if not isinstance(version, int) or not isinstance(manifest.get("counts"), dict) \
                or not all(isinstance(manifest.get(key), str) for key in ("made_at", "schema_revision")):
            raise InvalidBackup(f"{name}: its manifest is incomplete; nothing was restored")
        if version > FORMAT_VERSION:
            raise InvalidBackup(f"{name} is a docchat backup of format {version}, newer than this docchat "
                                f"reads ({FORMAT_VERSION}); update docchat to restore it; nothing was restored")
        names = archive.namelist()
        strange = next((entry for entry in names if not _expected(entry)), None)
        if strange is not None:
            raise InvalidBackup(f"{name} is not a docchat backup (unexpected entry {strange!r}); nothing was restored")
        try:
            checked_entries(archive, max_entries=MAX_ENTRIES)  # symbolic links, and their number
        except ZipRefused as refused:
            raise InvalidBackup(f"{name}: refused: {refused}; nothing was restored") from None
        if DATABASE not in names:
            raise InvalidBackup(f"{name} holds no database; nothing was restored")
        yield archive, manifest


def _expected(entry: str) -> bool:
    return entry in (MANIFEST, DATABASE, SETTINGS) or _stored_file(entry)


def _stored_file(entry: str) -> bool:
    """A document's file, under documents/, named without a way out of it."""
    path = PurePosixPath(entry)
    return (len(path.parts) > 1 and path.parts[0] == DOCUMENTS and "\\" not in entry and not entry.endswith("/")
            and all(part not in ("", ".", "..") for part in path.parts))


def _extract(archive: zipfile.ZipFile, folder: Path, name: str) -> None:
    """Every entry but the manifest into `folder`, read in counted pieces: none may unpack to
    more than it declares (zipfile's own check of the CRC comes only at its end), and all of
    them must fit on the disk. The checksums are checked as they are read."""
    entries = [info for info in archive.infolist() if info.filename != MANIFEST]
    declared = sum(info.file_size for info in entries)
    free = shutil.disk_usage(folder).free
    if declared > free:
        raise InvalidBackup(f"{name} unpacks to {declared / 2**30:.1f} GB and the disk has {free / 2**30:.1f} GB free; "
                            "nothing was restored")
    reader = CountedReader(archive, total_bytes=declared)
    for info in entries:
        target = folder.joinpath(*PurePosixPath(info.filename).parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            with open(target, "wb") as copy:
                for piece in reader.pieces(info, max_bytes=info.file_size):
                    copy.write(piece)
        except ZipRefused as refused:
            raise InvalidBackup(f"{name}: refused: {refused}; nothing was restored") from None
        except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError) as error:
            raise InvalidBackup(f"{name} is damaged ({info.filename}: {error}); nothing was restored") from None

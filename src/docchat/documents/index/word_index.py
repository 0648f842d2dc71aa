"""The keyword side of document retrieval with the store on SQLite: the chunks' words in a
Tantivy index in the data dir (`data/words`), ranked by BM25.

The chunk rows stay the truth. Triggers log which chunk changed (`chunk_changes`, migration
0014) in the transaction that changed it; before a search, the index reads the changes it has
not seen, takes those chunks' text from their rows, and commits, then notes the last change it
holds (`synced.json`). Replaying a change twice does the same as once (a chunk is deleted, then
added again if its row is there), so a crash between the commit and the note loses nothing.
One process writes the index at a time (Tantivy's lock); another that finds it busy searches
it as it stands. An index that is missing, unreadable, ahead of the database (one restored
from a backup) or holding another number of chunks than the rows is built again from the rows,
in a folder beside it renamed into place when whole.

Why not FTS5, which did this before: it scores every chunk holding any word of the question,
and a question of fifteen common words took 0.4 s at 200,000 chunks and 2 s at 1,000,000;
Tantivy skips what cannot reach the top, 3.6 and 15 ms (docs/perf/keyword-engines.md). Opening maps the index's files; nothing is read
whole.

Invariant: a search returns chunks of ready documents only, within its scope, best first.
"""

from __future__ import annotations

import fcntl
import json
import logging
import shutil
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import tantivy
from sqlalchemy import Connection, Engine, bindparam, text

from docchat.atomic import write_atomically

log = logging.getLogger(__name__)

FOLDER = "words"
BUILDING = "words.building"
LOCK = "words.lock"
SYNCED = "synced.json"
# A format of our own, beside Tantivy's: another layout of fields is built again.
LAYOUT = 1
WRITER_HEAP = 50_000_000
BUILD_HEAP = 200_000_000
PAGE = 5_000
# The log is pruned, up to the last change the index holds, once that many changes are behind it.
PRUNE_FROM = 50_000

_CHANGES = text("SELECT id, chunk_pk FROM chunk_changes WHERE id > :after ORDER BY id")
_ROWS = text("SELECT pk, document_id, heading, text FROM chunks WHERE pk IN :pks").bindparams(
    bindparam("pks", expanding=True))
_FOUND = text("SELECT c.pk, c.id, c.document_id FROM chunks c JOIN documents d ON d.id = c.document_id "
              "WHERE c.pk IN :pks AND d.status = 'ready'").bindparams(bindparam("pks", expanding=True))


def _told(done: int, total: int) -> None:
    log.warning("building the keyword index: %s of %s chunks", f"{done:,}", f"{total:,}")


class TantivyWordIndex:
    """The chunks of the SQLite store `engine` connects to, by their words, in `folder`."""

    def __init__(self, folder: Path, engine: Engine, *, progress: Callable[[int, int], None] = _told) -> None:
        self._folder = folder
        self._engine = engine
        self._progress = progress
        self._schema = _schema()
        self._analyzer = _analyzer()
        self._lock = threading.Lock()
        self._index: tantivy.Index | None = None
        self._synced = 0  # the last change the index holds
        self._largest = 0  # the largest chunk pk it was ever given: a larger one was never in it

    def search(self, terms: Sequence[str], *, limit: int,
               document_ids: Sequence[str] | None = None) -> list[tuple[str, str]]:
        """(chunk id, document id) of the chunks of ready documents that best match any of the
        terms by BM25, best first; `document_ids=None` searches every document."""
        if not terms or (document_ids is not None and not document_ids):
            return []
        index = self._brought_up_to_date()
        words = [word for term in terms for word in self._analyzer.analyze(term)]
        if not words:
            return []
        query = tantivy.Query.boolean_query([
            (tantivy.Occur.Should, tantivy.Query.term_query(self._schema, "words", word)) for word in dict.fromkeys(words)])
        if document_ids is not None:
            within = tantivy.Query.term_set_query(self._schema, "document", list(document_ids))
            query = tantivy.Query.boolean_query([(tantivy.Occur.Must, query), (
                tantivy.Occur.Must, tantivy.Query.const_score_query(within, 0.0))])
        searcher = index.searcher()
        # Equal scores come out in the order the entries were written, which depends on how the
        # index was built (at once from the rows, or change by change): the ties are put in pk
        # order, as FTS5 did, from twice as many hits as asked for, so that the same library ranks
        # the same way however its index was made (a restored backup finds what the original did).
        hits = searcher.search(query, 2 * limit, count=False).hits
        if not hits:
            return []
        ranked = sorted(zip((score for score, _ in hits), _pks(searcher, hits)), key=lambda hit: (-hit[0], hit[1]))
        pks = [pk for _, pk in ranked[:limit]]
        with self._engine.connect() as connection:
            found = {pk: (chunk_id, document_id) for pk, chunk_id, document_id in connection.execute(_FOUND, {"pks": pks})}
        return [found[pk] for pk in pks if pk in found]

    def prepare(self) -> None:
        """Opens the index, building it or bringing it up to date if need be: at start, on a
        thread, so that the first question does not wait for it."""
        self._brought_up_to_date()

    def check(self) -> tuple[int, int]:
        """(chunks the index does not hold, entries of no chunk), by pk."""
        index = self._brought_up_to_date()
        searcher = index.searcher()
        held = set()
        if searcher.num_docs:
            hits = searcher.search(tantivy.Query.all_query(), searcher.num_docs, count=False).hits
            held = set(_pks(searcher, hits))
        with self._engine.connect() as connection:
            rows = {pk for (pk,) in connection.execute(text("SELECT pk FROM chunks"))}
        return len(rows - held), len(held - rows)

    def rebuild(self) -> None:
        """Builds the index again from the rows."""
        with self._lock, _held(self._folder.with_name(LOCK)):
            self._index = None
            self._build()
            self._load()

    def close(self) -> None:
        with self._lock:
            self._index = None

    def _brought_up_to_date(self) -> tantivy.Index:
        with self._lock:
            if self._index is None:
                self._open()
            else:
                self._sync()
            assert self._index is not None
            return self._index

    def _open(self) -> None:
        # Under a lock on the folder: two processes that find no index build it one after the other.
        with _held(self._folder.with_name(LOCK)):
            try:
                self._load()
            except (OSError, ValueError, KeyError) as error:
                if self._folder.exists():
                    log.warning("building the keyword index again: %s", error)
                self._build()
                self._load()
            if self._newest_change() < self._synced:
                log.warning("building the keyword index again: it holds changes the database does not (restored?)")
                self._build()
                self._load()
            self._sync()
            assert self._index is not None
            held = self._index.searcher().num_docs
            with self._engine.connect() as connection:
                rows = connection.execute(text("SELECT count(*) FROM chunks")).scalar_one()
            if held != rows and self._newest_change() == self._synced:
                log.warning("building the keyword index again: it holds %s entries for %s chunks", held, rows)
                self._build()
                self._load()

    def _newest_change(self) -> int:
        with self._engine.connect() as connection:
            return _newest(connection)

    def _load(self) -> None:
        """Opens the folder's index; raises OSError, ValueError or KeyError when it is not one
        this docchat built whole."""
        about = json.loads((self._folder / SYNCED).read_text())
        if about.get("layout") != LAYOUT:
            raise ValueError(f"its layout is {about.get('layout')}, this docchat's {LAYOUT}")
        index = tantivy.Index(self._schema, path=str(self._folder), reuse=True)
        index.register_tokenizer("docchat", self._analyzer)
        index.reload()
        self._index = index
        self._synced, self._largest = int(about["change"]), int(about["largest"])

    def _sync(self) -> None:
        """Adds what changed since the index's last change, unless another process writes it."""
        assert self._index is not None
        if self._newest_change() <= self._synced:
            return
        try:
            writer = self._index.writer(heap_size=WRITER_HEAP, num_threads=1)
        except ValueError:
            return  # another process is writing it: searched as it stands, brought up to date next time
        try:
            self._write(writer)
        except BaseException:
            del writer  # lets go of Tantivy's lock: nothing was committed, the next search tries again
            raise

    def _write(self, writer: tantivy.IndexWriter) -> None:
        assert self._index is not None
        # Another process may have brought it further since this one looked (its note says so).
        noted = json.loads((self._folder / SYNCED).read_text())
        if int(noted["change"]) > self._synced:
            self._synced, self._largest = int(noted["change"]), int(noted["largest"])
            self._index.reload()
        with self._engine.connect() as connection, connection.begin():
            changes = connection.execute(_CHANGES, {"after": self._synced}).all()
            changed = list(dict.fromkeys(pk for _, pk in changes))
            rows = _rows(connection, changed)
            last = changes[-1][0] if changes else self._synced
        held = [pk for pk in changed if pk <= self._largest]
        for start in range(0, len(held), PAGE):
            writer.delete_documents_by_query(tantivy.Query.term_set_query(self._schema, "pk", held[start:start + PAGE]))
        largest = self._largest
        for row in rows:
            writer.add_document(self._document(row))
            largest = max(largest, row[0])
        writer.commit()
        writer.wait_merging_threads()
        self._note(self._folder, last, largest)
        self._synced, self._largest = last, largest
        self._index.reload()
        with self._engine.connect() as connection:
            oldest = connection.execute(text("SELECT min(id) FROM chunk_changes")).scalar_one()
        if oldest is not None and last - oldest >= PRUNE_FROM:
            self._prune(last)

    def _build(self) -> None:
        """The index from every row, in BUILDING, renamed to the folder when whole."""
        building = self._folder.with_name(BUILDING)
        shutil.rmtree(building, ignore_errors=True)  # left by a build that was stopped
        building.mkdir(parents=True)
        index = tantivy.Index(self._schema, path=str(building), reuse=False)
        index.register_tokenizer("docchat", self._analyzer)
        writer = index.writer(heap_size=BUILD_HEAP, num_threads=2)
        largest = 0
        with self._engine.connect() as connection, connection.begin():  # one snapshot: the rows as of `last`
            last = _newest(connection)
            total = connection.execute(text("SELECT count(*) FROM chunks")).scalar_one()
            done = 0
            rows = connection.execution_options(yield_per=PAGE).execute(
                text("SELECT pk, document_id, heading, text FROM chunks ORDER BY pk"))
            for row in rows:
                writer.add_document(self._document(row))
                largest, done = row[0], done + 1
                if done % 100_000 == 0:
                    self._progress(done, total)
        writer.commit()
        writer.wait_merging_threads()
        self._note(building, last, largest)
        shutil.rmtree(self._folder, ignore_errors=True)
        building.rename(self._folder)

    def _prune(self, upto: int) -> None:
        from docchat.store.engine import WRITE_OPTION

        try:
            with self._engine.connect().execution_options(**{WRITE_OPTION: True}) as connection, connection.begin():
                connection.execute(text("DELETE FROM chunk_changes WHERE id <= :upto"), {"upto": upto})
        except Exception as error:  # a busy database: pruned another time
            log.info("the keyword index's change log was not pruned: %s", error)

    def _document(self, row: Any) -> tantivy.Document:
        pk, document_id, heading, body = row
        document = tantivy.Document()
        document.add_unsigned("pk", pk)
        document.add_text("document", document_id)
        document.add_text("words", f"{heading}\n{body}")
        return document

    @staticmethod
    def _note(folder: Path, change: int, largest: int) -> None:
        write_atomically(folder / SYNCED, json.dumps({"layout": LAYOUT, "change": change, "largest": largest}).encode())


@contextmanager
def _held(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _pks(searcher: tantivy.Searcher, hits: Sequence[tuple[float, tantivy.DocAddress]]) -> list[int]:
    """The chunk pks of these hits, in their order (every entry has one)."""
    return [int(pk) for pk in searcher.fast_field_values("pk", [address for _, address in hits])
            if isinstance(pk, int)]


def _newest(connection: Connection) -> int:
    """The id of the last change ever logged (AUTOINCREMENT keeps it when the log is pruned)."""
    return int(connection.execute(text(
        "SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'chunk_changes'), 0)")).scalar_one())


def _rows(connection: Connection, pks: Sequence[int]) -> Iterable[Any]:
    found: list[Any] = []
    for start in range(0, len(pks), PAGE):
        found += connection.execute(_ROWS, {"pks": list(pks[start:start + PAGE])}).all()
    return found


def _schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_unsigned_field("pk", stored=False, indexed=True, fast=True)
    builder.add_text_field("document", stored=False, tokenizer_name="raw")
    # The chunk's heading (document name and section) and its own words, in one field: ranked
    # apart, a word rare among headings ("Trustee" in one section's name) outweighed a word
    # rare in the whole library, which BM25 is there to find (FTS5 weighed a word by the
    # chunks holding it in either column).
    builder.add_text_field("words", stored=False, tokenizer_name="docchat")
    return builder.build()


def _analyzer() -> tantivy.TextAnalyzer:
    # As FTS5's unicode61 with remove_diacritics cut the text, and as docchat.retrieval.words
    # cuts a question: runs of letters and digits, lowercased, accents folded ("café" is
    # "cafe"). No stemming: this side is there for exact terms.
    return (tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple()).filter(tantivy.Filter.lowercase())
            .filter(tantivy.Filter.ascii_fold()).build())

"""What the crash campaign's processes do: the work that gets killed, and the next start's check.

A worker does one piece of real work through the services, as `docchat ask`, `import` and
`ingest` do, and notes in a journal what it has been told is done (a question `post`ed, each
text delta as it arrived, a document ingested). The journal is written with `os.write` on a file
opened for appending: once the call returns, the line survives the process's SIGKILL.

The check is the next start: services built again over the data dir (which recovers what the
crash left), then the store and the index compared with the journal.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path

from docchat.config import Settings

SCENARIOS = ("ask", "compact", "import", "ingest")
QUESTIONS = (
    "What does the Harbour Street lease say about repairs?",
    "And who pays for them?",
    "Summarise the notice period in one sentence.",
    "Which clause covers the deposit?",
)
IMPORTED_CONVERSATIONS = 12
IMPORTED_MESSAGES = 30
# Enough history to pass the tiny model's 8,192-token window, so the next turn compacts.
LONG_MESSAGES = 36
DOCUMENTS_PER_INGEST = 3


@dataclass(frozen=True)
class Paths:
    root: Path

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def long_conversation(self) -> Path:
        return self.root / "long-conversation.json"

    @property
    def many_conversations(self) -> Path:
        return self.root / "many-conversations.zip"


class Journal:
    def __init__(self, path: Path):
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)

    def note(self, key: str, value: object = "") -> None:
        # CLOCK_MONOTONIC is one clock for every process of the machine: the bench reads when.
        os.write(self._fd, (f"{key} {time.monotonic():.4f} {json.dumps(value)}\n").encode())


def read_journal(path: Path, *, with_times: bool = False) -> list[tuple]:
    """(key, value) of every whole line, or (key, time, value); a line cut by the kill is not a note."""
    lines = path.read_text(encoding="utf-8").split("\n")[:-1] if path.exists() else []
    notes = [(key, float(when), json.loads(value)) for key, when, value in (line.split(" ", 2) for line in lines)]
    return notes if with_times else [(key, value) for key, _, value in notes]


def settings_for(paths: Paths, llm_url: str) -> Settings:
    # Answers long enough to be checkpointed a few times, short enough for many rounds.
    return Settings(data_dir=paths.data, llm_url=llm_url, max_tokens=128, database_url=None, qdrant_url=None,
                    embeddings_url=None)


def prepare(paths: Paths, llm_url: str) -> None:
    """Writes the files the import and compaction work reads: exports made by the services."""
    from docchat.bootstrap import build_services

    services = build_services(settings_for(paths, llm_url), contact_llm=False)
    conversations = services.conversations
    messages = services.messages
    made = []
    for number in range(IMPORTED_CONVERSATIONS):
        conversation = conversations.create(f"Imported lease question {number}")
        for turn in range(IMPORTED_MESSAGES // 2):
            messages.append_message(conversation.id, "user", f"Question {turn} about unit {number}?")
            messages.append_message(conversation.id, "assistant", f"Answer {turn}: see clause {turn + 3}.")
        made.append(conversation.id)
    paths.many_conversations.write_bytes(_zip_of(services, made))
    long = conversations.create("The long lease review")
    clause = ("The tenant keeps the premises in good repair, pays the rent monthly in advance, and gives "
              "three months' notice in writing before leaving; the landlord insures the building. ") * 6
    for turn in range(LONG_MESSAGES // 2):
        messages.append_message(long.id, "user", f"Clause {turn}: what does it mean? {clause}")
        messages.append_message(long.id, "assistant", f"Clause {turn} means this. {clause}")
    paths.long_conversation.write_text(services.transfer.export_json(long.id), encoding="utf-8")
    for conversation_id in [*made, long.id]:
        conversations.delete(conversation_id, purge=True)
    services.close()


def _zip_of(services, conversation_ids: list[str]) -> bytes:
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for conversation_id in conversation_ids:
            archive.writestr(f"{conversation_id}.json", services.transfer.export_json(conversation_id))
    return buffer.getvalue()


def work(scenario: str, number: int, paths: Paths, llm_url: str, journal: Journal) -> None:
    """The work a kill may cut: the services are built, then `ready` is noted and it begins."""
    from docchat.bootstrap import build_services

    services = build_services(settings_for(paths, llm_url), contact_llm=scenario in ("ask", "compact"))
    if scenario == "import":
        journal.note("ready")
        reports = services.transfer.import_bytes(paths.many_conversations.read_bytes(), as_copy=True)
        journal.note("imported", [r.conversation_id for r in reports])
    elif scenario == "ingest":
        journal.note("ready")
        for part in range(DOCUMENTS_PER_INGEST):
            document = services.ingestion.ingest(f"lease-{number}-{part}.txt", _document_text(number, part).encode())
            journal.note("ingested", document.id)
    else:
        conversation_id = _conversation(services, scenario, paths)
        journal.note("ready")
        _ask(services, conversation_id, QUESTIONS[number % len(QUESTIONS)], journal)
    services.chat.wait_for_background(30)
    journal.note("done")
    services.close()


def _conversation(services, scenario: str, paths: Paths) -> str | None:
    """Compaction: a fresh copy of the long conversation, whose next turn must compact. Asking:
    a new conversation now and then, else the latest one."""
    if scenario == "compact":
        raw = paths.long_conversation.read_bytes()
        return services.transfer.import_bytes(raw, as_copy=True)[0].conversation_id
    latest = [c for c in services.conversations.list() if not c.title.startswith(("The long", "Imported"))]
    return latest[0].id if latest and len(services.messages.history(latest[0].id)) < 12 else None


def _ask(services, conversation_id: str | None, question: str, journal: Journal) -> None:
    turn = services.chat.answer(conversation_id, question, progress=lambda stage: journal.note("stage", stage))
    journal.note("posted", turn.question.id)
    journal.note("answering", turn.draft.id)
    for delta in turn:
        journal.note("delta", delta)


def _document_text(number: int, part: int) -> str:
    return "\n\n".join(
        f"Lease {number}-{part}, clause {n}. The tenant of unit {n} keeps it in repair and reports defect "
        f"{number * 100 + n} within {n % 9 + 1} days; the landlord answers in writing. " * 8
        for n in range(12))


@dataclass
class Check:
    """What the next start found; every list names what went wrong (empty when nothing did)."""

    integrity: str = "ok"
    questions_claimed: int = 0
    questions_lost: list[str] = field(default_factory=list)
    answers_recovered: int = 0
    answers_altered: list[str] = field(default_factory=list)
    still_streaming: int = 0
    orphans: list[str] = field(default_factory=list)
    imported: int = 0
    documents_ingested: int = 0

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def check(paths: Paths, llm_url: str, notes: list[tuple[str, object]]) -> Check:
    """Starts again as the app would, then compares the store and the index with the journal."""
    from docchat.bootstrap import build_services

    services = build_services(settings_for(paths, llm_url), contact_llm=False)
    try:
        index = services.index.open()  # opening it clears half-ingested documents
        vectors = {}
        for _, document_id, _ in index.vectors():
            vectors[document_id] = vectors.get(document_id, 0) + 1
        found = Check()
        with sqlite3.connect(paths.data / "docchat.db") as db:
            found.integrity = db.execute("PRAGMA integrity_check").fetchone()[0]
            _check_messages(db, notes, found)
            _check_imports(db, notes, found)
            _check_documents(db, paths.data, notes, vectors, found)
        return found
    finally:
        services.close()


def _check_messages(db, notes, found: Check) -> None:
    claimed = [value for key, value in notes if key == "posted"]
    found.questions_claimed = len(claimed)
    found.questions_lost = [q for q in claimed if not db.execute("SELECT 1 FROM messages WHERE id = ?", (q,)).fetchone()]
    found.still_streaming = db.execute("SELECT COUNT(*) FROM messages WHERE status = 'streaming'").fetchone()[0]
    arrived = "".join(value for key, value in notes if key == "delta")
    for answer_id in (value for key, value in notes if key == "answering"):
        row = db.execute("SELECT status, content FROM messages WHERE id = ?", (answer_id,)).fetchone()
        if row is None:
            found.answers_altered.append(f"answer {answer_id} is gone")
            continue
        status, content = row
        # The last checkpoint may hold one delta more than the journal: it is written before
        # the delta reaches the reader.
        if not (arrived.startswith(content) or content.startswith(arrived)):
            found.answers_altered.append(f"answer {answer_id}: kept {content!r}, arrived {arrived!r}")
        if status == "interrupted" and content:
            found.answers_recovered += 1
    for conversation_id, count, first, last in db.execute(
            "SELECT conversation_id, COUNT(*), MIN(seq), MAX(seq) FROM messages GROUP BY conversation_id"):
        if last - first + 1 != count:
            found.orphans.append(f"conversation {conversation_id}: {count} messages over seq {first}..{last}")
    for summary_id, first, last, low, high in db.execute(
            "SELECT s.id, s.first_seq, s.last_seq, MIN(m.seq), MAX(m.seq) FROM summaries s "
            "LEFT JOIN messages m ON m.conversation_id = s.conversation_id GROUP BY s.id"):
        if low is None or first < low or last > high:
            found.orphans.append(f"summary {summary_id} covers seq {first}..{last} of messages {low}..{high}")
    for problem in db.execute("PRAGMA foreign_key_check"):
        found.orphans.append(f"row {problem[1]} of {problem[0]} names a missing {problem[2]}")


def _check_imports(db, notes, found: Check) -> None:
    """An import is whole or absent: every copy made from the zip has all its messages."""
    for conversation_id, count in db.execute(
            "SELECT c.id, COUNT(m.id) FROM conversations c LEFT JOIN messages m ON m.conversation_id = c.id "
            "WHERE c.title LIKE 'Imported lease question % (copy)' GROUP BY c.id"):
        if count != IMPORTED_MESSAGES:
            found.orphans.append(f"imported conversation {conversation_id} has {count} of {IMPORTED_MESSAGES} messages")
    copies = db.execute("SELECT COUNT(*) FROM conversations WHERE title LIKE 'Imported lease question % (copy)'")
    total = copies.fetchone()[0]
    if total % IMPORTED_CONVERSATIONS:
        found.orphans.append(f"{total} imported conversations: an import was cut part-way")
    found.imported = len([1 for key, _ in notes if key == "imported"])


def _check_documents(db, data_dir: Path, notes, vectors: dict[str, int], found: Check) -> None:
    rows = db.execute("SELECT id, name, status, chunks, path FROM documents").fetchall()
    known = {row[0] for row in rows}
    for document_id, name, status, chunks, path in rows:
        stored = db.execute("SELECT COUNT(*) FROM chunks WHERE document_id = ?", (document_id,)).fetchone()[0]
        if status != "ready" or stored != chunks or vectors.get(document_id, 0) != chunks:
            found.orphans.append(f"document {name}: {status}, {chunks} chunks, {stored} stored, "
                                 f"{vectors.get(document_id, 0)} vectors")
        if not (data_dir / path).is_file():
            found.orphans.append(f"document {name}: its file is missing")
    found.orphans += [f"{count} vectors of a document that is not in the database"
                      for document_id, count in vectors.items() if document_id not in known]
    named = {row[4] for row in rows}
    folder = data_dir / "documents"
    strays = [p for p in folder.glob("*/*") if str(p.relative_to(data_dir)) not in named] if folder.is_dir() else []
    found.orphans += [f"file {p.name} belongs to no document" for p in strays]
    ingested = [value for key, value in notes if key == "ingested"]
    found.documents_ingested = len(ingested)
    found.orphans += [f"ingested document {d} is gone" for d in ingested if d not in known]

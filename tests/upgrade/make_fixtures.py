"""Writes the upgrade fixture of one schema revision with that revision's own docchat.

A fixture is the data folder a docchat of revision R left behind (its SQLite database and its
Qdrant local-mode folder) and what that docchat showed a user of it, recorded by the same code:
the JSON and Markdown export of every conversation, the document library, and the results of a
few searches (conversations by words, documents by a question). tests/upgrade opens a copy with
today's docchat and compares. This module runs under the OLD code: it uses only the services
every revision has had, and asks for a newer feature (edits, ratings, documents) only where the
revision has it. The answers come from the fault tier's fake OpenAI-compatible server, scripted
per question, so no model is needed; the embedder is the revision's own default (MiniLM, offline).

To make the fixture of a revision (say a new 0013, once it ships):

    git worktree add ../docchat-0013 <the last commit whose newest migration is 0013>
    PYTHONPATH=../docchat-0013/src:. .venv/bin/python -m tests.upgrade.make_fixtures 0013 \\
        tests/fixtures/upgrade/0013
    git worktree remove --force ../docchat-0013

The test finds the new folder by itself; a field the new revision adds to the export goes into
tests/upgrade/expected.py with its revision, and the table in tests/fixtures/upgrade/README.md
gets a line. An old revision whose imports today's environment lacks runs with them installed
into a separate folder added to PYTHONPATH (see that README). Fixtures are made once and never
again: a later docchat must read them as they are. `--hold-at R` keeps the schema at R while the
code checked out is newer (0010 was changed after 0011 shipped; see tests/fixtures/upgrade/README.md).
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from tests.fault import fake_server

LEAVE_POLICY = """# Staff handbook: leave

## Annual leave

Every employee gets 25 days of annual leave a year, plus public holidays. Up to five unused
days carry over to the next year; the rest lapse on 31 March.

## Notice period

An employee who resigns gives 30 days of notice in writing to their line manager.

## Parental leave

Parents get 16 weeks of paid parental leave, to be taken within the child's first year.
"""

KETTLE_MANUAL = """Kettle KX-200: care and warranty

Descaling. Fill the kettle halfway with equal parts white vinegar and water, boil, leave it for
an hour, then rinse three times. Descale every month in hard-water areas.

Warranty. The kettle is guaranteed for two years from purchase against defects of the heating
element and the switch. Keep the receipt.
"""

DOCUMENTS = {"leave-policy.md": LEAVE_POLICY, "kettle-manual.txt": KETTLE_MANUAL}

CONVERSATION_SEARCHES = ["notice", "vinegar", "parental leave", "warranty"]
DOCUMENT_QUERIES = ["How long is the notice period?", "How do I descale the kettle?",
                    "parental leave weeks"]


def _say(answer: str) -> None:
    """The fake server's next answers: every request until the next call streams this text, in
    the pieces its '|' marks."""
    fake_server.ANSWER[:] = answer.split("|")


def _consume(turn) -> object:
    for _ in turn:
        pass
    return turn.answer


def _ask(services, conversation_id, question: str, answer: str):
    _say(answer)
    return _consume(services.chat.answer(conversation_id, question))


def _has(obj, name: str) -> bool:
    return callable(getattr(obj, name, None))


def _messages(services):
    """The service that reads a conversation's messages: its own since issue 36."""
    return getattr(services, "messages", services.conversations)


def populate(services) -> None:
    """Documents, then three conversations with what this revision can do with them."""
    documents = getattr(services, "documents", None)
    if documents is not None:
        ingestion = getattr(services, "ingestion", documents)  # its own service since issue 36
        for name, text in DOCUMENTS.items():
            ingestion.ingest(name, text.encode())

    leave = _ask(services, None, "How many days of annual leave do I get?",
                 "You get 25 days of annual leave |a year [1].")
    leave_id = leave.conversation_id
    _ask(services, leave_id, "And the notice period if I resign?",
         "The notice period is |30 days, in writing [1].")
    _say("Thirty days' notice, |given to your line manager [1].")
    _consume(services.chat.retry(leave_id))
    if _has(_messages(services), "rate"):  # 0004
        from docchat.domain import Rating

        _messages(services).rate(leave_id, leave.id, Rating.UP)
    if _has(services.chat, "edit"):  # 0005
        first_question = next(m for m in _messages(services).history(leave_id) if m.role == "user")
        _say("Paid annual leave is |25 days a year [1].")
        _consume(services.chat.edit(leave_id, first_question.id, "How many days of paid leave do I get?"))

    kettle = _ask(services, None, "How do I descale the kettle?",
                  "Boil equal parts |white vinegar and water [1].")
    services.conversations.rename(kettle.conversation_id, "Kettle care")
    services.conversations.pin(kettle.conversation_id)

    long_talk = _ask(services, None, "Tell me about parental leave.",
                     "Parents get 16 weeks |of paid leave [1].")
    # Enough turns to fill the history's share of the small window, which is larger when no
    # passages take theirs (0001 had no documents): then the condenser writes a summary.
    for n in range(1, 10 if documents is not None else 16):
        _ask(services, long_talk.conversation_id, f"Question {n} about the parental leave rules: "
             + "when, how and who decides, in detail. " * 12,
             f"Answer {n}: |within the child's first year [1].")


def scripted_programs():
    """The revision's DSPy programs with their model calls replaced by fixed outputs, so that
    the long conversation gets a real summary (the fake server streams, DSPy does not) and
    titles and rewrites are the same on every run. Their signatures have not changed since 0001."""
    from docchat.context import programs

    class ScriptedPrograms(programs.Programs):
        def condense(self, previous_summary, conversation, *, max_tokens):
            return programs.Condensed(
                "The user asked how parental leave works: 16 weeks, paid, taken within the child's first year.",
                ["parental leave"], ["When can parental leave be taken?"], ["Plan it within the first year."])

        def rewrite(self, recent_turns, question, *, max_tokens):
            return question

        def title(self, first_exchange, *, max_tokens):
            return next((title for word, title in TITLES.items() if word in first_exchange), "Leave questions")

    return ScriptedPrograms(lambda max_tokens: None)


TITLES = {"kettle": "Descaling the kettle", "parental": "Parental leave rules", "annual": "Annual leave and notice"}


def plain(value):
    """A value as JSON holds it: dataclasses as dicts, the rest of what JSON lacks as text."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple, frozenset, set)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def passage(found) -> dict:
    """A retrieved chunk as the reader sees it (0002 held it under `.hit`)."""
    chunk = getattr(found, "chunk", None) or found.hit.chunk
    return {"document": found.document, "label": chunk.label, "page": chunk.page, "text": chunk.text}


def cited_sources(services, conversations) -> dict[str, list[dict]]:
    """Each conversation's last answer's citations as its source view opens them: the
    document, the section around the passage, and the original file (by its digest)."""
    sources = {}
    for conversation in conversations:
        answers = [m for m in _messages(services).history(conversation.id) if m.role == "assistant"]
        # An answer's citations are among its facts since issue 36.
        given = getattr(answers[-1], "facts", answers[-1]).citations if answers else []
        if given:
            sources[conversation.id] = [source_view(services.documents.source(c)) for c in given]
    return sources


def source_view(view) -> dict:
    original = getattr(view, "original", None)
    return {"document": view.document.name if view.document else None,
            "section": [list(part) for part in getattr(view, "section", ())],
            "original": hashlib.sha256(original).hexdigest() if original else None}


def record(services, out: Path) -> None:
    """What this revision shows a user, written beside its data folder."""
    exports = out / "exports"
    exports.mkdir(parents=True, exist_ok=True)
    conversations = services.conversations.list()
    for conversation in conversations:
        (exports / f"{conversation.id}.json").write_text(services.transfer.export_json(conversation.id))
        (exports / f"{conversation.id}.md").write_text(services.transfer.export_markdown(conversation.id))
    shown = {
        "conversations": [plain(c) for c in conversations],
        "search": {q: [{k: v for k, v in plain(hit).items() if k != "rank"}
                       for hit in _messages(services).search(q)] for q in CONVERSATION_SEARCHES},
    }
    documents = getattr(services, "documents", None)
    if documents is not None:
        shown["library"] = [plain(d) for d in documents.list()]
        retrieval = getattr(services, "retrieval", documents)  # its own service since issue 36
        shown["retrieval"] = {q: [passage(r) for r in retrieval.retrieve(q, top_k=3)] for q in DOCUMENT_QUERIES}
        shown["usage"] = {d.id: [plain(use) for use in documents.usage(d.id)] for d in documents.list()}
        if _has(documents, "source"):  # 0004
            shown["sources"] = cited_sources(services, conversations)
        close = getattr(documents, "close", None)
        if close:
            close()
    (out / "shown.json").write_text(json.dumps(shown, indent=1, sort_keys=True) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revision")
    parser.add_argument("out", type=Path)
    parser.add_argument("--hold-at", help="keep the schema at this revision (the code is newer)")
    args = parser.parse_args(argv)

    import docchat

    print(f"docchat from {Path(docchat.__file__).parent}", file=sys.stderr)
    # A small window, so that the long conversation is condensed into a summary.
    fake_server.MAX_MODEL_LEN = 1536
    server = fake_server.FakeLLMServer().start()
    scratch = Path(tempfile.mkdtemp(prefix="upgrade-fixture-"))
    data = scratch / "data"
    os.environ.update(DOCCHAT_DATA_DIR=str(data), DOCCHAT_LLM_URL=f"{server.url}/v1",
                      HF_HUB_OFFLINE="1", DOCCHAT_MAX_TOKENS="64", LITELLM_LOCAL_MODEL_COST_MAP="True")
    os.environ.pop("DOCCHAT_DATABASE_URL", None)
    try:
        if args.hold_at:
            _hold_schema_at(data, args.hold_at)
        from docchat.bootstrap import build_services
        from docchat.config import Settings

        services = build_services(Settings(), programs=scripted_programs())
        populate(services)
        shutil.rmtree(args.out, ignore_errors=True)
        args.out.mkdir(parents=True)
        record(services, args.out)
        _check_revision(data, args.revision)
        _keep_data(data, args.out / "data")
    finally:
        server.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


def _hold_schema_at(data: Path, revision: str) -> None:
    """Migrates a new database to `revision` and makes start-up's upgrade stop there."""
    from docchat.store import migrate
    from docchat.store.engine import make_engine

    data.mkdir(parents=True)
    engine = make_engine(f"sqlite:///{data / 'docchat.db'}")
    migrate.upgrade(engine, revision)
    engine.dispose()
    held = migrate.upgrade
    migrate.upgrade = lambda engine, target="head": held(engine, revision)
    import docchat.bootstrap as bootstrap

    if hasattr(bootstrap, "upgrade"):
        bootstrap.upgrade = migrate.upgrade


def _check_revision(data: Path, revision: str) -> None:
    import sqlite3

    with sqlite3.connect(data / "docchat.db") as db:
        found = db.execute("SELECT version_num FROM alembic_version").fetchone()[0]
    if found != revision:
        raise SystemExit(f"the database is at {found}, not {revision}: wrong checkout")


def _keep_data(data: Path, target: Path) -> None:
    """The database (copied into one file), the vector index and the stored originals; not
    models or logs."""
    import sqlite3

    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    with sqlite3.connect(data / "docchat.db") as source, sqlite3.connect(target / "docchat.db") as copy:
        source.backup(copy)
        copy.execute("PRAGMA journal_mode=DELETE")
        copy.execute("VACUUM")
    for folder in ("qdrant", "vectors", "documents"):
        if (data / folder).is_dir():
            shutil.copytree(data / folder, target / folder, ignore=shutil.ignore_patterns("*.lock", ".lock"))


if __name__ == "__main__":
    raise SystemExit(main())

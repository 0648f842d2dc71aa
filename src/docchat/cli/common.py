"""What the `docchat` commands share: the services, JSON output, the LLM server."""

from __future__ import annotations

import json
import sys

from docchat.text import one_line


def open_services(*, llm: bool = False, documents_early: bool = False):
    """The services; `llm=True` for commands that ask the model or count tokens for it (the
    others do not wait on the LLM server at start-up). `documents_early=True` opens the document
    index on a thread meanwhile: worth it when the process then waits for the user (a chat's
    first question), not in a command that goes straight on (on two cores the two threads
    slowed `docchat ask` by a few tenths of a second)."""
    from docchat.bootstrap import build_services

    services = build_services(contact_llm=llm, open_documents_early=documents_early)
    say_upgraded(services.upgraded)
    return services


def say_upgraded(line: str | None) -> None:
    """The start-up line of a start that upgraded the database (where its backup is); on stderr,
    so a command's --json output stays one document."""
    if line:
        print(f"docchat: {line}", file=sys.stderr, flush=True)


def shown(text: str) -> str:
    """A title, name or snippet from outside on one line of the terminal: its control and format
    characters (escape sequences, line breaks, bidi overrides) become spaces."""
    return one_line(text, limit=200)


def print_json(value) -> None:
    print(json.dumps(value, ensure_ascii=False, indent=2, default=str))



def load_settings():
    from docchat import preferences

    return preferences.load()


def embedded_server(settings):
    from docchat.llm.profiles import embedded_model_dir
    from docchat.llm.launcher import EmbeddedServer

    return EmbeddedServer(venv=settings.resolved_llm_venv, model_dir=embedded_model_dir(settings),
                          port=settings.served_port, log_path=settings.resolved_data_dir / "logs" / "vllm.log",
                          key_path=settings.llm_key_path)


BAR_WIDTH = 24


def progress_bar(name: str):
    """A progress bar on stderr, named, for `progress(stage, share)`."""
    def show(stage: str, share: float) -> None:
        filled = int(share * BAR_WIDTH)
        sys.stderr.write(f"\r{name[:30]:<30} [{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {share:4.0%} "
                         f"{stage[:40]:<40}")
        sys.stderr.flush()
    return show


def clear_bar() -> None:
    """Wipes the bar's line, so that what is printed next starts on a clean one (a terminal
    shows both streams on one screen; into a file or pipe the bar's updates stay one line)."""
    sys.stderr.write("\r\033[K" if sys.stderr.isatty() else "\r")
    sys.stderr.flush()

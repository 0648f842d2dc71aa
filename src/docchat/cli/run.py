"""`docchat run`: the page and the HTTP API in one process, and the LLM server beside them."""

from __future__ import annotations

import faulthandler
import os
import signal
from pathlib import Path

from docchat import CHECKOUT
from docchat.cli.api import DEFAULT_PORT, serve_api_beside_page
from docchat.cli.common import embedded_server, load_settings, say_upgraded
from docchat.errors import DocchatError


def add_commands(commands) -> None:
    run = commands.add_parser("run", help="start the LLM server and serve the app on 127.0.0.1 (what `make run` does)")
    run.add_argument("--port", type=int, default=8501)
    run.add_argument("--no-llm", action="store_true", help="serve the page without starting the embedded LLM")
    run.add_argument("--api-port", type=int, default=DEFAULT_PORT, help="the HTTP API's port (default: %(default)s)")
    run.add_argument("--no-api", action="store_true", help="serve the page without the HTTP API")
    run.set_defaults(handler=run_app)


def run_app(args) -> int:
    """The page and the HTTP API in this one process, sharing one set of services, and the
    embedded LLM server starting beside them (unless DOCCHAT_LLM_URL names a server that is
    there, or one elsewhere); Ctrl-C stops them all."""
    from docchat.llm.watchdog import Watchdog

    app = CHECKOUT / "app.py"
    if not app.exists():
        raise DocchatError("app.py not found: run docchat from a checkout (make run)")
    # `kill -USR1 <pid>` prints where each thread of a `docchat run` that hangs is (to its terminal).
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    settings = load_settings()
    _upgrade_first(settings)
    server = api = watchdog = watcher = None
    try:
        # Inside the `try`: a Ctrl-C (or SIGTERM) while the server starts stops it too.
        if _serves_its_own(settings) and not args.no_llm:
            if settings.llm_url:
                print(f"nothing answers at {settings.llm_url}: starting docchat's own LLM server there")
            server = embedded_server(settings)
            if not server.already_running():
                # On a thread, so the page and the API serve at once and say what it is doing.
                watchdog = Watchdog(server, say=lambda line: print(line, flush=True)).start(first_launch=True)
        elif settings.llm_url:
            print(f"using the LLM server at {settings.llm_url}")
        if not args.no_api:
            api = serve_api_beside_page(args.api_port)
            print(f"the API: http://127.0.0.1:{args.api_port} (docs: http://127.0.0.1:{args.api_port}/docs)")
        watcher = _watch_followed_folders()
        print(f"the page: http://127.0.0.1:{args.port}", flush=True)
        return _serve_page(app, args.port, settings.allowed_hosts)
    except KeyboardInterrupt:
        return 130
    finally:
        if watcher is not None:
            watcher.stop()
        if api is not None:
            print("stopping the API")
            api.stop()
        if watchdog is not None:
            watchdog.stop()
        if server is not None:
            print("stopping the LLM server")
            server.stop()


def _upgrade_first(settings) -> None:
    """The database brought to this version before the LLM server starts: a refused or failed
    upgrade ends `run` with its one line and nothing started; the page's services then find it
    up to date."""
    from docchat.bootstrap.database import upgraded_database

    say_upgraded(upgraded_database(settings))


def _watch_followed_folders():
    """The followed folders, watched in this process (it holds the document index), over the
    services the page and the API share (the page may rebuild them: each sync takes the current)."""
    from docchat import shared
    from docchat.documents.folders.watcher import FolderWatcher

    return FolderWatcher(lambda: shared.services().folders).start()


def _serves_its_own(settings) -> bool:
    """One address decides where docchat looks and serves: with none given, or one on this
    machine where nothing listens, docchat starts its own server (the cpu profile's) there.
    Any server already listening, vLLM or not, is used as it is."""
    from docchat.llm.discovery import listening

    return settings.llm_profile == "cpu" and settings.llm_on_this_machine and (
        settings.llm_url is None or not listening(settings.llm_url))


def _serve_page(app: Path, port: int, extra_hosts: list[str]) -> int:
    """Streamlit in this process (not a child): the page's script runs in threads here, beside
    the API, and both use `docchat.shared`'s services."""
    from docchat.cli.page import serve_page

    # Streamlit reads .streamlit/config.toml (the theme) from the working directory.
    os.chdir(CHECKOUT)
    serve_page(app, port, extra_hosts)
    return 0

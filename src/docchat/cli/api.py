"""`docchat api`: the HTTP API on uvicorn, over the same data and settings as the page."""

from __future__ import annotations

import os
import sys

from docchat import STOP_GRACE_S
from docchat.cli.common import load_settings, say_upgraded

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8502


def add_commands(commands) -> None:
    api = commands.add_parser("api", help="serve the HTTP API (and its OpenAI-compatible /v1) on 127.0.0.1")
    api.add_argument("--host", default=DEFAULT_HOST, help="another address than 127.0.0.1 needs DOCCHAT_API_TOKEN")
    api.add_argument("--port", type=int, default=DEFAULT_PORT)
    api.set_defaults(handler=serve_api)


def serve_api(args) -> int:
    from docchat.api.guard import refuse_open_bind
    from docchat.web.guard import is_loopback

    token = os.environ.get("DOCCHAT_API_TOKEN") or None
    # Before anything is opened: a refused bind must not cost a start-up.
    refuse_open_bind(args.host, token)
    import uvicorn

    from docchat.api import create_app
    from docchat.bootstrap import build_services

    services = build_services(load_settings())
    say_upgraded(services.upgraded)
    print(f"docchat API on http://{_shown(args.host)}:{args.port} (docs: /docs)"
          + ("; token required" if token else ""), file=sys.stderr, flush=True)
    if not is_loopback(args.host):
        # Reached from elsewhere under a name or address it was not told: 403, and this says why.
        print("it answers to the names 127.0.0.1, localhost, [::1], the address it is bound to and "
              "DOCCHAT_ALLOWED_HOSTS", file=sys.stderr, flush=True)
    # The followed folders are watched by the process that holds the document index: this one.
    from docchat.documents.folders.watcher import FolderWatcher

    watcher = FolderWatcher(lambda: services.folders).start()
    try:
        uvicorn.run(create_app(services, token=token, host=args.host), host=args.host, port=args.port, log_level="warning",
                    # The page's Ctrl-C reaches us too; a stream left open must not hold the exit.
                    timeout_graceful_shutdown=STOP_GRACE_S)
    finally:
        watcher.stop()
        services.close()
    return 0


def serve_api_beside_page(port: int):
    """The API in a thread of the page's process, over the services the page uses."""
    from docchat import shared
    from docchat.api import create_app
    from docchat.api.background import BackgroundServer

    return BackgroundServer(create_app(shared.services, token=os.environ.get("DOCCHAT_API_TOKEN") or None),
                            port).start()


def _shown(host: str) -> str:
    return f"[{host}]" if ":" in host else host

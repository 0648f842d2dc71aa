"""The app factory: the API over a built `Services` (tests pass one over fakes)."""

from __future__ import annotations

from fastapi import Depends, FastAPI
from fastapi.security import HTTPBearer

from docchat import __version__
from docchat.api import errors, openai_compat, routes_answers, routes_conversations, routes_documents, \
    routes_folders, routes_health, routes_transfer
from docchat.api.guard import Guard
from docchat.api.schemas import ERRORS
from docchat.web.guard import Door, DoorGuard, allowed_hosts

DESCRIPTION = """Chat with your documents, over HTTP: the same services as the page and the `docchat` command.

* `/api/v1/...`: answers (stateless, or in a stored conversation; `"stream": true` for
  server-sent events), conversations, export and import, documents, followed folders, health.
* `/v1/models`, `/v1/chat/completions`: OpenAI-compatible; the model is `docchat`.

When the server has a token (`DOCCHAT_API_TOKEN`), every request but these docs needs
`Authorization: Bearer <token>`. Errors are `{"detail": ...}`. The server answers only to the
names it was started for (127.0.0.1, localhost, [::1], `--host`, `DOCCHAT_ALLOWED_HOSTS`), and
refuses requests that other web sites' pages send (a foreign `Origin`, `Sec-Fetch-Site:
cross-site`); clients that send no `Origin` (curl, the `openai` package) are not affected.
"""

# Only documents the scheme in /docs (its Authorize button); the Guard does the checking.
bearer = HTTPBearer(auto_error=False, description="DOCCHAT_API_TOKEN, when the server has one")


def create_app(services, *, token: str | None = None, host: str | None = None) -> FastAPI:
    """`services`: a built `docchat.bootstrap.Services`, or a function that returns the current
    ones (beside the page, which may rebuild them when its settings change); `token`: required
    of every client when given; `host`: the address the server is bound to, a name it answers
    to besides loopback's and the settings' `allowed_hosts`."""
    app = FastAPI(title="docchat", version=__version__, description=DESCRIPTION)
    app.state.services = services if callable(services) else (lambda: services)
    services = app.state.services()
    errors.install(app)

    secured = [Depends(bearer)]
    for module in (routes_answers, routes_conversations, routes_transfer, routes_documents, routes_folders,
                   routes_health, openai_compat):
        app.include_router(module.router, dependencies=secured, responses=ERRORS)
    routes_documents.name_the_kinds(app, services.ingestion.kinds_in_words())
    app.add_middleware(Guard, token=token or None, upload_bytes=services.settings.max_upload_mb * 1024 * 1024,
                       upload_paths=frozenset({routes_documents.UPLOAD_PATH, routes_transfer.IMPORT_PATH}))
    # Added last, so it runs first: a request from a web page or under a rebound name is
    # refused before the token is checked or a byte of its body read.
    door = Door(allowed_hosts(host, services.settings.allowed_hosts))
    app.add_middleware(DoorGuard, door=door, as_json=True)
    return app

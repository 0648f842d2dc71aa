"""The door of the API: the bearer token, and how large a request body may be.

Both are checked before any route reads the body: an upload from a client without the token
is refused before a byte of it is spooled, and a body over its limit is cut off as it arrives
(a Content-Length over the limit is refused at once). The schema and its docs (/docs,
/openapi.json) stay open: they describe the API and hold no data.
"""

from __future__ import annotations

import hmac

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from docchat.api.errors import error_response
from docchat.errors import DocchatError
from docchat.web.guard import is_loopback
from docchat.wording import size

MB = 1024 * 1024
# A 262,144-token history is about 1 MB of text; JSON escaping may double it.
MAX_JSON_BYTES = 4 * MB
# Multipart framing around an uploaded file (boundaries, part headers).
MULTIPART_SLACK = 64 * 1024
OPEN_PATHS = frozenset({"/docs", "/docs/oauth2-redirect", "/redoc", "/openapi.json"})


class BodyTooLarge(HTTPException):
    """An HTTPException, so that FastAPI, reading the body, answers it (rather than a 400 of its own)."""

    def __init__(self, detail: str):
        super().__init__(413, detail)


def refuse_open_bind(host: str, token: str | None) -> None:
    """Anyone who can reach a non-loopback address could read every conversation: not without a token."""
    if not token and not is_loopback(host):
        raise DocchatError(f"refusing to serve the API on {host} without a token: set DOCCHAT_API_TOKEN, "
                           "or bind to 127.0.0.1")


class Guard:
    """ASGI middleware: 401 without the token (when one is set), 413 past the body limit."""

    def __init__(self, app: ASGIApp, *, token: str | None, upload_bytes: int, upload_paths: frozenset[str]):
        self.app = app
        self.token = token
        self.upload_bytes = upload_bytes
        self.upload_paths = upload_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        if self.token and path not in OPEN_PATHS and not self._authorised(scope):
            response = error_response(path, 401, "a bearer token is required: send Authorization: Bearer <token> "
                                      "(DOCCHAT_API_TOKEN)", {"WWW-Authenticate": "Bearer"})
            await response(scope, receive, send)
            return
        limit = self.upload_bytes + MULTIPART_SLACK if path in self.upload_paths else MAX_JSON_BYTES
        declared = _content_length(scope)
        too_large = self._too_large(path, limit)
        if declared is not None and declared > limit:
            await error_response(path, 413, too_large)(scope, receive, send)
            return
        received = 0
        started = False

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(too_large)
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except BodyTooLarge:
            if started:
                raise
            await error_response(path, 413, too_large)(scope, receive, send)

    def _authorised(self, scope: Scope) -> bool:
        given = dict(scope["headers"]).get(b"authorization", b"")
        scheme, _, credentials = given.partition(b" ")
        return scheme.lower() == b"bearer" and hmac.compare_digest(credentials.strip(), self.token.encode())

    def _too_large(self, path: str, limit: int) -> str:
        what = f"a file can be at most {size(self.upload_bytes)}" if path in self.upload_paths else \
            f"the limit is {size(limit)}"
        return f"the request body is too large: {what}"


def _content_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None

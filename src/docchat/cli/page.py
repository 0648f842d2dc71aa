"""How `docchat run` serves the page: Streamlit's own ASGI app (`st.App`), with docchat's door
in front of it and a Content-Security-Policy on every reply.

Streamlit has no Host allow-list, and its websocket accepts an Origin of any port of localhost.
Since 1.5x it runs on Starlette and takes middleware through `st.App(middleware=...)`, its public
API for this: the door (`docchat.web.guard`) then sees every request, the websocket handshake
and the upload endpoint included, before Streamlit does. A proxy of our own in front of it would
have had to relay websockets and uploads for nothing.

The policy lets the page load and connect to itself only: an image, a font or a fetch to
anywhere else is refused by the browser, whatever an answer or a document holds (the renderer
already shows such images as text; this is the net under it). Streamlit's index.html has one
inline script: its hash is allowed, read from the file, so no other inline script runs.
"""

from __future__ import annotations

import base64
import hashlib
import re
import sys
from functools import cache
from pathlib import Path

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from docchat import STOP_GRACE_S
from docchat.web.guard import Door, DoorGuard, allowed_hosts

_INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)


@cache
def content_policy() -> str:
    inline = " ".join(f"'sha256-{base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()}'"
                      for script in _INLINE_SCRIPT.findall(_index_html()))
    return "; ".join((
        "default-src 'self'",
        f"script-src 'self' {inline}".strip(),
        # Streamlit's components style themselves at run time (emotion's <style> tags).
        "style-src 'self' 'unsafe-inline'",
        # data: and blob: are the page's own (icons, st.image, downloads), never a request.
        "img-src 'self' data: blob:",
        "font-src 'self' data:",
        "media-src 'self' data: blob:",
        "connect-src 'self'",
        "worker-src 'self' blob:",
        "frame-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        # No other site may frame the page (and trick a click on it).
        "frame-ancestors 'none'",
    ))


class ContentPolicy:
    """ASGI middleware: the policy above on every HTTP reply."""

    def __init__(self, app: ASGIApp, *, policy: str):
        self.app = app
        self.header = (b"content-security-policy", policy.encode())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_policy(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), self.header]}
            await send(message)

        await self.app(scope, receive, with_policy)


def page_app(script: Path, extra_hosts: list[str]):
    """The page as an ASGI app: Streamlit's, behind the door and the policy."""
    from starlette.middleware import Middleware
    from streamlit.starlette import App

    door = Door(allowed_hosts("127.0.0.1", extra_hosts))
    return App(str(script), middleware=[Middleware(DoorGuard, door=door),
                                        Middleware(ContentPolicy, policy=content_policy())])


def bound_the_stop() -> None:
    """Gives the page's uvicorn the `timeout_graceful_shutdown` the API has (STOP_GRACE_S), as a
    second Ctrl-C would: in about one full test run in four, a `docchat run` stopped by Ctrl-C was
    still in uvicorn's event loop 30 s later. Streamlit has no option for it; its uvicorn settings
    come from one function of its server module, wrapped here (once)."""
    from streamlit.web.server.starlette import starlette_server

    settings = starlette_server._get_uvicorn_config_kwargs
    if getattr(settings, "bounded_by_docchat", False):
        return

    def bounded() -> dict:
        return {**settings(), "timeout_graceful_shutdown": STOP_GRACE_S}

    bounded.bounded_by_docchat = True  # type: ignore[attr-defined]
    starlette_server._get_uvicorn_config_kwargs = bounded


def serve_page(script: Path, port: int, extra_hosts: list[str]) -> None:
    """Serves the page on 127.0.0.1:port until Ctrl-C (or SIGTERM)."""
    # App.run anchors Streamlit's script-level config and sys.path on sys.argv[0], as
    # `streamlit run app.py` does on the script: that is app.py here, not the `docchat` command.
    sys.argv = [str(script)]
    bound_the_stop()
    page_app(script, extra_hosts).run(config={"server.address": "127.0.0.1", "server.port": port,
                                              "server.headless": True})


def _index_html() -> str:
    import streamlit

    return (Path(streamlit.__file__).parent / "static" / "index.html").read_text(encoding="utf-8")

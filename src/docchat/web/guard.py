"""Who may talk to docchat's servers (the page and the API): the door in front of every route.

Binding to 127.0.0.1 keeps other machines out, not other web pages: any page the user opens can
send requests to 127.0.0.1, and a page whose name is re-pointed at 127.0.0.1 (DNS rebinding)
can read the replies too. So, before any route, token check or body is read:

- the Host header must name this server: 127.0.0.1, localhost, [::1], the address it was
  started on, or a name in DOCCHAT_ALLOWED_HOSTS (a reverse proxy's). A rebound name fails here.
- a request that carries an Origin must come from this very server (the Origin's host and port
  are those of the Host header): a page of another site, of another port of localhost, or one
  that sends `Origin: null` (a sandboxed frame, a file) is refused, whatever the method.
- a state-changing request or a websocket without an Origin is refused when the browser says
  it was sent by another site (`Sec-Fetch-Site`). Clients that send neither header (curl, the
  `openai` package, `docchat chat --url`) are not browsers and go through.

The door answers 403 with one line saying why; no CORS header is ever given, so no other origin
may read a reply either. The same class guards the page (Streamlit's Starlette app) and the API.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from docchat import LOOPBACK

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# Sec-Fetch-Site values a browser sends for a request of the page itself, or one the user made
# (typed, bookmarked): anything else came from another origin.
OWN_FETCH_SITES = frozenset({"same-origin", "none"})
WILDCARD_BINDS = frozenset({"0.0.0.0", "::", ""})


def host_name(value: str) -> str:
    """`127.0.0.1:8502` -> `127.0.0.1`, `[::1]:8502` -> `::1`, `Localhost.` -> `localhost`."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1:value.find("]")] if "]" in value else value
    if value.count(":") == 1:
        value = value.partition(":")[0]
    return value.rstrip(".")


def allowed_hosts(bound_host: str | None, extra: Iterable[str] = ()) -> frozenset[str]:
    """The names a server answers to: loopback's, the address it was bound to (unless a wildcard,
    which names no host), and the configured ones (a name, or host:port, or [v6])."""
    names = set(LOOPBACK)
    if bound_host and host_name(bound_host) not in WILDCARD_BINDS:
        names.add(host_name(bound_host))
    names.update(host_name(name) for name in extra if name.strip())
    return frozenset(names)


@dataclass(frozen=True)
class Door:
    hosts: frozenset[str]

    def refusal(self, method: str, headers: Mapping[str, str], *, websocket: bool = False) -> str | None:
        """Why a request with these (lower-case) headers is refused, or None to let it in."""
        host = headers.get("host")
        if not host:
            return "refused: the request names no Host"
        if host_name(host) not in self.hosts and not is_loopback(host_name(host)):
            return (f"refused: this server does not answer to the name {_shown(host_name(host))}; "
                    "add it to DOCCHAT_ALLOWED_HOSTS if docchat is served under it")
        origin = headers.get("origin")
        if origin is not None:
            if not _same_origin(origin, host):
                return f"refused: a request from another site ({_shown(origin)}) may not use this server"
            return None
        fetch_site = headers.get("sec-fetch-site")
        changes = websocket or method.upper() not in SAFE_METHODS
        if changes and fetch_site is not None and fetch_site not in OWN_FETCH_SITES:
            return f"refused: a {fetch_site} request from a browser may not change anything here"
        return None


class DoorGuard:
    """ASGI middleware: the door in front of an app, for its HTTP requests and websockets.
    `as_json`: the API's `{"detail": ...}`; otherwise plain text (the page)."""

    def __init__(self, app: ASGIApp, *, door: Door, as_json: bool = False):
        self.app = app
        self.door = door
        self.as_json = as_json

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope["headers"]}
        websocket = scope["type"] == "websocket"
        why = self.door.refusal(scope.get("method", "GET"), headers, websocket=websocket)
        if why is None:
            await self.app(scope, receive, send)
        elif websocket:
            # Closed before it is accepted: the server answers the handshake with 403.
            await send({"type": "websocket.close", "code": 1008, "reason": why[:120]})
        else:
            await self._refuse(why, send)

    async def _refuse(self, why: str, send: Send) -> None:
        if self.as_json:
            body, kind = json.dumps({"detail": why}).encode(), b"application/json"
        else:
            body, kind = (why + "\n").encode(), b"text/plain; charset=utf-8"
        await send({"type": "http.response.start", "status": 403,
                    "headers": [(b"content-type", kind), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


def _same_origin(origin: str, host: str) -> bool:
    """The Origin names this server as the Host header does: scheme aside, the same host and
    port as sent (browsers leave a default port out of both). `null` is never this server."""
    parts = urlsplit(origin.strip())
    return parts.scheme in ("http", "https") and bool(parts.netloc) and parts.netloc.lower() == host.strip().lower()


def is_loopback(host: str) -> bool:
    """localhost, or an address of this machine: 127.0.0.2 and the rest of 127/8 too (no name can
    be rebound to an address); `[::1]` with or without its brackets."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _shown(text: str) -> str:
    """An untrusted header value inside a one-line reason: printable, short."""
    clean = "".join(ch if ch.isprintable() else "?" for ch in text)
    return clean if len(clean) <= 80 else clean[:79] + "…"

"""The server's skin: security headers, the request body limit, the same-origin rule for
cookie-authenticated writes, and a connection protocol that does not wait on slow clients.

* :class:`Guard` (ASGI middleware) adds Content-Security-Policy (no framing, scripts only from
  the site), ``nosniff``, ``Referrer-Policy`` and friends to every answer, and answers 413 to
  a body over the limit before reading it into memory.
* :func:`same_origin` refuses a state-changing request that a browser sent from another site
  (the cookie would otherwise ride along): only requests authenticated by the cookie are
  checked; a bearer token is never sent by a browser on its own.
* :class:`GuardedHTTP` is uvicorn's HTTP protocol with a deadline for each request's headers
  and body and a cap on connections from one client, so trickling clients are cut off and
  no single client can hold the server's connections.
* :class:`Proxies` says who a request comes from. No proxy is believed unless the operator
  names it (``GAMMON_TRUSTED_PROXIES``); behind one, the client is the right-most address in
  ``X-Forwarded-For`` that is not a trusted proxy (the one the proxy itself saw), so every
  per-client cap and limit counts the client, never the proxy, and a client cannot name itself.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
from collections import Counter
from typing import Any

from fastapi.responses import JSONResponse
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from .errors import Forbidden
from .settings import Limits, trusted_networks

CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"permissions-policy", b"camera=(), microphone=(), geolocation=()"),
]
HSTS = (b"strict-transport-security", b"max-age=31536000")
_REFUSAL = b'{"detail": "too many connections from your address: close some and try again"}'
TOO_MANY_CONNECTIONS = (b"HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\nretry-after: 5\r\n"
                        b"connection: close\r\ncontent-length: " + str(len(_REFUSAL)).encode() + b"\r\n\r\n" + _REFUSAL)


class Proxies:
    """The reverse proxies whose ``X-Forwarded-For``/``X-Forwarded-Proto`` are believed: none unless named.

    >>> proxies = Proxies("127.0.0.1, 10.0.0.0/8")
    >>> proxies.client("127.0.0.1", [b"203.0.113.9, 198.51.100.7, 10.1.2.3"])  # the right-most hop not a proxy
    '198.51.100.7'
    >>> Proxies(None).client("127.0.0.1", [b"203.0.113.9"])  # nobody named: the header is the client's own words
    '127.0.0.1'
    """

    def __init__(self, spec: str | None) -> None:
        self._networks = trusted_networks(spec)

    def __bool__(self) -> bool:
        return bool(self._networks)

    def trusts(self, host: str | None) -> bool:
        """Whether ``host`` (a peer's address) is one of the proxies."""
        if not self._networks or not host:
            return False
        try:
            address = ipaddress.ip_address(host.strip().strip("[]"))
        except ValueError:
            return False
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        return any(address in network for network in self._networks)

    def client(self, peer: str, forwarded: list[bytes]) -> str:
        """Who a request from ``peer`` with these ``X-Forwarded-For`` values comes from.

        A trusted proxy appends the address it saw to what it was sent, so read from the right:
        the first hop that is not a trusted proxy is the client; whatever is left of it, the
        client wrote itself."""
        if not self.trusts(peer):
            return peer
        hops = [hop.strip() for value in forwarded for hop in value.decode("latin-1").split(",")]
        for hop in reversed([hop for hop in hops if hop]):
            if not self.trusts(hop):
                return hop[:64]
        return peer

    def apply(self, scope: dict[str, Any]) -> None:
        """Make ``scope``'s client (and scheme) the ones a trusted proxy reports (nothing otherwise)."""
        peer = scope.get("client")
        if not self or not peer or not self.trusts(peer[0]):
            return
        headers = scope.get("headers") or ()
        forwarded = [value for name, value in headers if name == b"x-forwarded-for"]
        if forwarded:
            scope["client"] = (self.client(peer[0], forwarded), 0)
        proto = next((value for name, value in headers if name == b"x-forwarded-proto"), None)
        if proto is not None and proto.strip() in (b"http", b"https"):
            secure = proto.strip() == b"https"
            if scope["type"] == "websocket":
                scope["scheme"] = "wss" if secure else "ws"
            else:
                scope["scheme"] = "https" if secure else "http"


class Guard:
    """ASGI middleware: the client behind a trusted proxy, security headers on every answer, and
    bodies over ``limit`` bytes refused (413)."""

    def __init__(self, app: Any, limit: int, proxies: Proxies | None = None) -> None:
        self.app, self.limit, self.proxies = app, limit, proxies or Proxies(None)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            self.proxies.apply(scope)
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        secure = scope.get("scheme") == "https"

        async def send_guarded(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                headers.extend(HEADERS)
                if secure:
                    headers.append(HSTS)
                message = {**message, "headers": headers}
            await send(message)

        declared = dict(scope.get("headers") or ()).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await self._too_large(scope, receive, send_guarded)
            return
        seen = 0

        async def limited() -> Any:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                raise _TooLarge
            return message

        try:
            await self.app(scope, limited, send_guarded)
        except _TooLarge:
            await self._too_large(scope, receive, send_guarded)

    async def _too_large(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        await JSONResponse({"detail": f"the request body is over {self.limit} bytes"}, status_code=413)(
            scope, receive, send)


class _TooLarge(Exception):
    pass


async def _too_many_connections(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The answer to a request through a proxy from a client over the connection cap."""
    await send({"type": "http.response.start", "status": 429,
                "headers": [(b"content-type", b"application/json"), (b"retry-after", b"5"), (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": _REFUSAL})


def same_origin(method: str, headers: Any, host_url: str) -> None:
    """Refuse (403) a cookie-authenticated write that a browser sent from another site."""
    if method in ("GET", "HEAD", "OPTIONS"):
        return
    origin = headers.get("origin")
    if origin is not None:
        if origin.rstrip("/") != host_url.rstrip("/"):
            raise Forbidden("this request came from another site: it is refused (log in on this site)")
        return
    site = headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        raise Forbidden("this request came from another site: it is refused (log in on this site)")


class GuardedHTTP(HttpToolsProtocol):
    """uvicorn's HTTP protocol with a deadline for headers and body, and a cap per client.

    A connection counts against its peer's address, unless the peer is a trusted proxy
    (:class:`Proxies`): a proxy carries many clients' requests, so each of its requests counts
    against its own client while it is answered, and a client over the cap gets 429. The
    limits come from the ``GAMMON_*`` variables (every worker process reads the same)."""

    header_timeout = float(os.environ.get("GAMMON_LIMIT_HEADER_TIMEOUT", "10"))
    body_timeout = float(os.environ.get("GAMMON_LIMIT_BODY_TIMEOUT", "10"))
    per_address = int(os.environ.get("GAMMON_LIMIT_CONNECTIONS", "256"))
    proxies = Proxies(os.environ.get("GAMMON_TRUSTED_PROXIES"))
    open_by_address: Counter[str] = Counter()  # noqa: RUF012 - one count per process, shared by every connection

    @classmethod
    def configure(cls, limits: Limits, proxies: Proxies) -> None:
        """Take the limits of these settings (a worker process reads the same from its environment)."""
        cls.header_timeout, cls.body_timeout = limits.header_timeout, limits.body_timeout
        cls.per_address = limits.connections_per_address
        cls.proxies = proxies

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]  # as uvicorn's own
        super().connection_made(transport)
        self._deadline: asyncio.TimerHandle | None = None
        self._address: str | None = None
        peer = self.client[0] if self.client else "?"
        self._proxied = self.proxies.trusts(peer)
        self._refused = False if self._proxied else not self._count(peer)
        self._arm(self.header_timeout)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._uncount()
        super().connection_lost(exc)

    def _count(self, address: str) -> bool:
        """Count this connection against ``address`` (and no longer against another); whether it is within the cap."""
        self._uncount()
        self._address = address
        GuardedHTTP.open_by_address[address] += 1
        return GuardedHTTP.open_by_address[address] <= self.per_address

    def _uncount(self) -> None:
        address = getattr(self, "_address", None)
        if address is not None:
            self._address = None
            GuardedHTTP.open_by_address[address] -= 1
            if GuardedHTTP.open_by_address[address] <= 0:
                del GuardedHTTP.open_by_address[address]

    def _arm(self, seconds: float) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(seconds, self._too_slow)

    def _disarm(self) -> None:
        deadline = getattr(self, "_deadline", None)
        if deadline is not None:
            deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        if self._refused:  # over the cap: the request is read, then answered 429 (a close with unread data would reset)
            if not self.transport.is_closing():
                self.transport.write(TOO_MANY_CONNECTIONS)
                self.transport.close()
            return
        if self._deadline is None and (self.cycle is None or self.cycle.response_complete):
            self._arm(self.header_timeout)  # the first bytes of a new request on a kept-alive connection
        super().data_received(data)

    def on_headers_complete(self) -> None:
        app = self.app
        if self._proxied and self.client:  # a proxy's request counts against the client it is for
            forwarded = [value for name, value in self.scope["headers"] if name == b"x-forwarded-for"]
            if not self._count(self.proxies.client(self.client[0], forwarded)):
                self.app = _too_many_connections  # for this request only
        try:
            super().on_headers_complete()
        finally:
            self.app = app
        self._arm(self.body_timeout)

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def on_response_complete(self) -> None:
        if self._proxied:  # the proxy's connection waits for its next request, counted for nobody
            self._uncount()
        super().on_response_complete()

    def handle_websocket_upgrade(self) -> None:
        self._disarm()
        self._uncount()  # a stream is counted by the application's own limit
        super().handle_websocket_upgrade()

"""The server's skin: security headers, the request body limit, the same-origin rule for
cookie-authenticated writes, and a connection protocol that does not wait on slow clients.

* :class:`Guard` (ASGI middleware) adds Content-Security-Policy (no framing, scripts only from
  the site), ``nosniff``, ``Referrer-Policy`` and friends to every answer, and answers 413 to
  a body over the limit before reading it into memory.
* :func:`same_origin` refuses a state-changing request that a browser sent from another site
  (the cookie would otherwise ride along): only requests authenticated by the cookie are
  checked; a bearer token is never sent by a browser on its own.
* :class:`GuardedHTTP` is uvicorn's HTTP protocol with a deadline for each request's headers
  and body and a cap on connections from one address, so trickling clients are cut off and
  no single address can hold the server's connections.
"""

from __future__ import annotations

import asyncio
import os
from collections import Counter
from typing import Any

from fastapi.responses import JSONResponse
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from .errors import Forbidden
from .settings import Limits

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


class Guard:
    """ASGI middleware: security headers on every answer, and bodies over ``limit`` bytes refused (413)."""

    def __init__(self, app: Any, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
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
    """uvicorn's HTTP protocol with a deadline for headers and body, and a cap per address.

    The limits come from the ``GAMMON_LIMIT_*`` variables (every worker process reads the same)."""

    header_timeout = float(os.environ.get("GAMMON_LIMIT_HEADER_TIMEOUT", "10"))
    body_timeout = float(os.environ.get("GAMMON_LIMIT_BODY_TIMEOUT", "10"))
    per_address = int(os.environ.get("GAMMON_LIMIT_CONNECTIONS", "256"))
    open_by_address: Counter[str] = Counter()  # noqa: RUF012 - one count per process, shared by every connection

    @classmethod
    def configure(cls, limits: Limits) -> None:
        """Take the limits of these settings (a worker process reads the same from its environment)."""
        cls.header_timeout, cls.body_timeout = limits.header_timeout, limits.body_timeout
        cls.per_address = limits.connections_per_address

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]  # as uvicorn's own
        super().connection_made(transport)
        self._deadline: asyncio.TimerHandle | None = None
        self._address = self.client[0] if self.client else "?"
        self._counted = True
        GuardedHTTP.open_by_address[self._address] += 1
        self._refused = GuardedHTTP.open_by_address[self._address] > self.per_address
        self._arm(self.header_timeout)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._uncount()
        super().connection_lost(exc)

    def _uncount(self) -> None:
        if getattr(self, "_counted", False):
            self._counted = False
            GuardedHTTP.open_by_address[self._address] -= 1
            if GuardedHTTP.open_by_address[self._address] <= 0:
                del GuardedHTTP.open_by_address[self._address]

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
        super().on_headers_complete()
        self._arm(self.body_timeout)

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def handle_websocket_upgrade(self) -> None:
        self._disarm()
        self._uncount()  # a stream is counted by the application's own limit
        super().handle_websocket_upgrade()

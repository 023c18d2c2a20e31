"""The server's errors: each maps to one HTTP status, with a message that says what was expected."""

from __future__ import annotations

from typing import Any

from ..errors import GammonError


class ServerError(GammonError):
    """Base of the errors a request can meet; ``status`` is the HTTP answer."""

    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.message,))


class ServerConfigError(ServerError):
    """A setting that cannot work (a bad database URL, a port in use): the message names it."""


class Unauthorized(ServerError):
    status = 401


class Forbidden(ServerError):
    status = 403


class NotFound(ServerError):
    status = 404


class Conflict(ServerError):
    """A taken name, or an action submitted against a version that has moved on."""

    status = 409


class NotAcceptable(ServerError):
    """An answer the client does not take in a form the server will send (a huge page refused gzip)."""

    status = 406


class Unprocessable(ServerError):
    """A request the rules refuse: an illegal play or action, a bad option."""

    status = 422


class TooManyRequests(ServerError):
    """A limit reached: ``retry_after`` says in how many seconds the client may try again."""

    status = 429

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.message, self.retry_after))


class Unavailable(ServerError):
    """The server cannot take this on now (too busy, or the database did not save it): nothing
    was changed, and the same request may be sent again."""

    status = 503

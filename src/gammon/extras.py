"""The optional parts of gammon: which extra installs each package, and the one line that says so.

``pip install gammon`` brings the library, its notations, bots, engine client and command
line. The server and its clients, PNG pictures, Ray and training plots come as extras
(``gammon[server]``, ``gammon[png]``, ``gammon[ray]``, ``gammon[train]``). Code that needs
one imports it through :func:`require`, or lets the ``ImportError`` rise to the command,
which turns it into one line with :func:`missing_extra`: no traceback.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from .errors import GammonError

#: Each optional top-level package, and the extra of pyproject.toml that installs it.
EXTRAS: dict[str, str] = {
    "fastapi": "server",
    "starlette": "server",
    "pydantic": "server",
    "uvicorn": "server",
    "sqlalchemy": "server",
    "alembic": "server",
    "argon2": "server",
    "psycopg": "server",
    "redis": "server",
    "aiosmtpd": "server",
    "httpx": "server",
    "websockets": "server",
    "prompt_toolkit": "server",
    "cairosvg": "png",
    "ray": "ray",
    "matplotlib": "train",
}

#: The server's packages: imported by ``gammon.server`` and by no other part of the library
#: but the terminal's client of a server (see docs/architecture.md).
SERVER_PACKAGES = frozenset(package for package, extra in EXTRAS.items() if extra == "server")


class MissingExtraError(GammonError, ImportError):
    """An optional package is not installed; the message names the extra that brings it."""

    def __init__(self, package: str, purpose: str) -> None:
        self.package = package
        self.extra = EXTRAS.get(package, "")
        install = f"pip install 'gammon[{self.extra}]'" if self.extra else f"pip install {package}"
        super().__init__(f"{purpose} needs {package}, which is not installed: {install}")


def require(package: str, purpose: str) -> ModuleType:
    """The module ``package``, or :class:`MissingExtraError` saying what needs it and how to install it."""
    try:
        return importlib.import_module(package)
    except ModuleNotFoundError as error:
        if error.name is None or error.name.partition(".")[0] != package.partition(".")[0]:
            raise  # the package is there but one of its own imports is not: not a missing extra
        raise MissingExtraError(package.partition(".")[0], purpose) from None


def missing_extra(error: ImportError, purpose: str) -> MissingExtraError | None:
    """The :class:`MissingExtraError` an ``ImportError`` means, when it is an optional package
    of :data:`EXTRAS` that is missing; None for any other import error (a bug to show in full)."""
    if isinstance(error, MissingExtraError):
        return error
    top = (error.name or "").partition(".")[0]
    if isinstance(error, ModuleNotFoundError) and top in EXTRAS:
        return MissingExtraError(top, purpose)
    return None

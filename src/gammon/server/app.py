"""The ``gammon serve`` application: FastAPI wired to the runtime and the routers (docs/server.md).

This module only wires: the runtime (:mod:`gammon.server.runtime`) starts and stops with
the app, the routers (:mod:`gammon.server.routes`) answer, and the errors of every layer
become ``{"detail": "..."}`` answers with their status (a malformed body: 422 naming the
field; a busy or failing database: 503, nothing changed).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import DBAPIError

from .errors import ServerError, TooManyRequests
from .routes import accounts, analysis, lists, lobby, matches, pages, pbm, streams
from .runtime import Runtime
from .security import Guard, Proxies
from .settings import Settings

log = logging.getLogger("gammon.server")
MAX_BODY = 64 * 1024  #: the largest request body read: every request of the API is far smaller


def create_app(settings: Settings | None = None) -> FastAPI:
    """The server as an ASGI application (``uvicorn`` runs it; tests may too)."""
    settings = settings or Settings()
    runtime = Runtime(settings)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await runtime.start()
        try:
            yield
        finally:
            await runtime.stop()

    app = FastAPI(title="gammon", version="2", lifespan=lifespan, openapi_url="/api/openapi.json",
                  docs_url=None, redoc_url=None)
    app.state.runtime = runtime
    app.add_middleware(Guard, limit=MAX_BODY, proxies=Proxies(settings.trusted_proxies))

    @app.exception_handler(ServerError)
    async def _server_error(request: Request, error: ServerError) -> JSONResponse:
        headers = {}
        if isinstance(error, TooManyRequests) and error.retry_after is not None:
            headers["Retry-After"] = str(int(error.retry_after) + 1)
        return JSONResponse({"detail": error.message}, status_code=error.status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        problems = []
        for item in error.errors():
            if item.get("type") == "json_invalid":
                problems.append(f"body: not valid JSON ({item.get('ctx', {}).get('error', 'decode error')})")
                continue
            where = ".".join(str(part) for part in item.get("loc", ()) if part != "body")
            problems.append(f"{where or 'body'}: {item.get('msg', 'invalid')}")
        return JSONResponse({"detail": "; ".join(problems) or "invalid request"}, status_code=422)

    @app.exception_handler(DBAPIError)
    async def _database(request: Request, error: DBAPIError) -> JSONResponse:
        log.warning("database error: %s", str(error).splitlines()[0])
        return JSONResponse({"detail": "the database did not answer: nothing was changed; try again"}, status_code=503)

    for module in (accounts, matches, analysis, streams, lists, lobby, pbm, pages):
        app.include_router(module.router)
    app.mount("/static", StaticFiles(directory=pages.WEB), name="static")
    return app


def app_from_environment() -> FastAPI:
    """The app configured by ``GAMMON_*`` variables alone (``uvicorn --factory``, each worker process)."""
    return create_app(Settings.from_environment())

"""The web client's pages and files, and the health check."""

from __future__ import annotations

import pathlib
from typing import Any

from fastapi import APIRouter
from fastapi.responses import FileResponse, JSONResponse
from sqlalchemy import text

from .common import Server

router = APIRouter()
WEB = pathlib.Path(__file__).resolve().parent.parent / "web"  #: the web client: static files, no build step


@router.get("/", include_in_schema=False)
async def web_client() -> FileResponse:
    return FileResponse(WEB / "index.html", media_type="text/html")


@router.get("/api/health", tags=["health"])
async def health(server: Server) -> Any:
    """200 while the server answers and its database does (``status`` says ``degraded`` when
    news from other servers is not arriving); 503 when the database does not answer."""
    await server.readers.run(lambda connection: connection.execute(text("SELECT 1")).scalar())
    return JSONResponse(server.health)

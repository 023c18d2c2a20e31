"""Lists: the top lists (established people; bots apart)."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Query

from ..profiles import toplist
from .common import Server

router = APIRouter(tags=["lists"])


@router.get("/api/toplist")
async def top(server: Server, period: Literal["all", "week"] = "all", kind: Literal["people", "bots"] = "people",
              limit: int = Query(default=50, ge=1, le=500)) -> list[dict[str, Any]]:
    """Established people (or bots) by rating (``all``), or by rating gained in the last 7 days (``week``)."""
    provisional = server.settings.limits.provisional_matches
    return await server.readers.run(lambda connection: toplist(connection, period, limit, provisional, kind == "bots"))

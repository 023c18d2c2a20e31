"""The lobby: the bots on offer, who is online, and a player's invitations and matches."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from ..matches import store
from ..matches.ratings import START
from ..matches.views import summary
from ..profiles import online, ratings_by_name
from ..seats import DEFAULT_BOT, bot_choices
from .common import Server, Viewer

router = APIRouter(tags=["lobby"])
LISTED = 50  #: matches of each kind in the lobby


@router.get("/api/bots")
async def bots(server: Server) -> list[dict[str, Any]]:
    """The bots a player may challenge, weakest first, with their ratings (``default``: seed 004's)."""
    choices = bot_choices(server.settings.external_bots)
    names = [choice.name for choice in choices]
    ratings = await server.readers.run(lambda connection: ratings_by_name(connection, names))
    return [{"name": choice.name, "title": choice.title, "strength": choice.strength,
             "rating": round(ratings.get(choice.name, START), 2), "default": choice.player == DEFAULT_BOT}
            for choice in choices]


@router.get("/api/lobby")
async def lobby(server: Server, viewer: Viewer) -> dict[str, Any]:
    """Who is online; for a logged-in player, invitations to and from them and their matches."""

    def read(connection: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"online": online(connection), "invitations": {"to_me": [], "from_me": []},
                               "playing": [], "finished": []}
        if viewer is None:
            return out
        for info in store.list_matches(connection, viewer.id, "invited", LISTED):
            out["invitations"]["from_me" if info.white.id == viewer.id else "to_me"].append(summary(info))
        out["playing"] = [summary(info) for info in store.list_matches(connection, viewer.id, "playing", LISTED)]
        out["finished"] = [summary(info)
                           for info in store.list_matches(connection, viewer.id, "finished", LISTED // 5)]
        return out

    return await server.readers.run(read)


def lobby_summary(info: store.MatchInfo) -> dict[str, Any]:
    return {**summary(info), "options": info.options}

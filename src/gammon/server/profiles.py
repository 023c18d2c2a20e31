"""Players as others see them: a player's page, and the top lists.

Top lists rank established people (docs/server.md: provisional players are not ranked, so
throw-away accounts cannot climb them); bots have a list of their own.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from sqlalchemy import Connection, exists, func, select

from .matches import store
from .matches.ratings import Rated
from .matches.views import summary
from .models import SESSIONS, USERS, utcnow

WEEK = dt.timedelta(days=7)
ONLINE = dt.timedelta(minutes=15)  #: a person whose log-in was used this recently is shown online


def online(connection: Connection, limit: int = 200) -> list[dict[str, Any]]:
    """People seen lately (a log-in used in the last 15 minutes), by name; whether each is in a match."""
    seen = utcnow() - ONLINE
    rows = connection.execute(
        select(USERS.c.id, USERS.c.name, USERS.c.rating)
        .where(USERS.c.is_bot.is_(False),
               exists().where(SESSIONS.c.user_id == USERS.c.id, SESSIONS.c.last_used >= seen))
        .order_by(func.lower(USERS.c.name)).limit(limit)).all()
    playing = store.playing(connection, [row.id for row in rows])
    return [{"name": row.name, "rating": round(row.rating, 2), "playing": row.id in playing} for row in rows]


def profile(connection: Connection, name: str, provisional_matches: int) -> dict[str, Any] | None:
    """A player's page: rating, experience, record, recent matches, rating history (None: no such player)."""
    row = connection.execute(select(USERS).where(func.lower(USERS.c.name) == name[:64].lower())).first()
    if row is None:
        return None
    won, lost = store.record_of(connection, row.id)
    return {**card(row, provisional_matches), "record": {"won": won, "lost": lost},
            "recent_matches": [summary(info) for info in store.list_matches(connection, row.id, None, 20)],
            "rating_history": store.rating_history(connection, row.id)}


def ratings_by_name(connection: Connection, names: list[str]) -> dict[str, float]:
    """The ratings of the accounts named (those that exist)."""
    rows = connection.execute(select(USERS.c.name, USERS.c.rating).where(USERS.c.name.in_(names)))
    return {row.name: float(row.rating) for row in rows}


def card(row: Any, provisional_matches: int) -> dict[str, Any]:
    """What every view of a player shows."""
    established = Rated(bool(row.is_bot), row.opponents).established(provisional_matches)
    return {"name": row.name, "bot": bool(row.is_bot), "rating": round(row.rating, 2), "experience": row.experience,
            "provisional": not established, "created": row.created.isoformat() + "Z"}


def toplist(connection: Connection, period: Literal["all", "week"], limit: int, provisional_matches: int,
            bots: bool = False) -> list[dict[str, Any]]:
    """The ranked players of ``period``: established people (or, ``bots``, the bots) with a rated match."""
    chosen: Any = USERS.c.is_bot.is_(True) if bots else \
        (USERS.c.is_bot.is_(False)) & (USERS.c.opponents >= provisional_matches)
    if period == "all":
        ranked = connection.execute(select(USERS).where(chosen, USERS.c.experience > 0)
                                    .order_by(USERS.c.rating.desc(), USERS.c.name).limit(limit))
        return [{"rank": rank, "name": row.name, "rating": round(row.rating, 2), "experience": row.experience,
                 "bot": bool(row.is_bot)} for rank, row in enumerate(ranked, 1)]
    rows = store.gains_since(connection, utcnow() - WEEK, chosen, limit)
    return [{"rank": rank, "name": row.name, "rating": round(row.rating, 2), "gained": round(float(row.gained), 2),
             "matches": row.matches, "won": int(row.won or 0), "bot": bool(row.is_bot)}
            for rank, row in enumerate(rows, 1)]

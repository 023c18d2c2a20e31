"""The top lists: by rating over all time, and by rating gained in the last seven days."""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from sqlalchemy import Integer, cast, func, select
from sqlalchemy.orm import Session as DbSession

from .models import RatingChange, User, utcnow

WEEK = dt.timedelta(days=7)


def toplist(db: DbSession, period: Literal["all", "week"], limit: int) -> list[dict[str, Any]]:
    """The ranked players of ``period`` (people and bots; only those who finished a rated match)."""
    if period == "all":
        users = db.scalars(select(User).where(User.experience > 0).order_by(User.rating.desc(), User.name).limit(limit))
        return [{"rank": rank, "name": user.name, "rating": round(user.rating, 2), "experience": user.experience,
                 "bot": user.is_bot} for rank, user in enumerate(users, 1)]
    gained = func.sum(RatingChange.after - RatingChange.before)
    rows = db.execute(
        select(User, gained.label("gained"), func.count().label("matches"),
               func.sum(cast(RatingChange.won, Integer)).label("won"))
        .join(RatingChange, RatingChange.user_id == User.id).where(RatingChange.at >= utcnow() - WEEK)
        .group_by(User.id).order_by(gained.desc(), User.name).limit(limit)).all()
    return [{"rank": rank, "name": user.name, "rating": round(user.rating, 2), "gained": round(float(g), 2),
             "matches": n, "won": int(w or 0), "bot": user.is_bot}
            for rank, (user, g, n, w) in enumerate(rows, 1)]

"""The match store: the only module that issues SQL about matches, their events and ratings.

Everything here takes a SQLAlchemy Core connection that the caller got from the readers'
pool or from the writer (:mod:`gammon.server.database`, :mod:`gammon.server.writer`); the
store never commits: the writer owns every transaction.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from sqlalchemy import (
    Connection,
    DateTime,
    Integer,
    and_,
    bindparam,
    case,
    cast,
    distinct,
    exists,
    func,
    insert,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.orm import aliased

from ..models import (
    COMMITMENTS,
    EVENTS,
    HEARTBEAT,
    MATCH_RECORDS,
    MATCHES,
    NETWORKS,
    RATING_CHANGES,
    USERS,
    MatchRow,
    User,
    utcnow,
)

WHITE_USER = aliased(User, name="white_user")
BLACK_USER = aliased(User, name="black_user")


#: What a match's ``status`` may be: an invitation, one that ended unplayed, a match under way or over.
STATUSES = ("invited", "declined", "withdrawn", "expired", "playing", "finished")
UNPLAYED = ("declined", "withdrawn", "expired")  #: invitations that ended without a match


@dataclass(frozen=True, slots=True)
class Seat:
    """A player of a match: their account's number and name, and whether the server plays it."""

    id: int
    name: str
    is_bot: bool


@dataclass(frozen=True)
class MatchInfo:
    """A match row as committed at ``version`` (what every reader of a match starts from)."""

    id: int
    status: str
    white: Seat
    black: Seat
    length: int
    options: dict[str, Any]
    version: int
    next_seq: int
    game_number: int
    game_start: dict[str, Any]
    seed: str
    commitment: str
    challenger_seed: str | None
    opponent_seed: str | None
    dice_scheme: int
    digest: str | None
    rolls_drawn: int
    score_white: int
    score_black: int
    winner_id: int | None
    to_act_id: int | None
    pbm_modes: dict[str, Any] | None
    challenger_confirmed: bool
    rated: bool | None
    created: dt.datetime
    updated: dt.datetime
    finished: dt.datetime | None = None
    clock: dict[str, Any] | None = None  #: the time left, with a time control (:mod:`.clock`)
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def seat(self, user_id: int) -> Seat | None:
        return self.white if user_id == self.white.id else self.black if user_id == self.black.id else None

    def name_of(self, user_id: int | None) -> str | None:
        seat = self.seat(user_id) if user_id is not None else None
        return seat.name if seat is not None else None


class EventRow(NamedTuple):
    """One stored event: its number, game, kind, side, referee action line, data and time."""

    seq: int
    game: int
    kind: str
    color: str | None
    action: str | None
    data: dict[str, Any]
    at: dt.datetime
    description: str

    @classmethod
    def of(cls, row: dict[str, Any]) -> EventRow:
        """The stored form of a row the service has just written."""
        return cls(*(row[name] for name in cls._fields))


_MATCH_COLUMNS = [column for column in MATCHES.c if column.key not in ("white_id", "black_id", "state")]


def _info_query() -> Any:
    return (select(*_MATCH_COLUMNS, WHITE_USER.id.label("w_id"), WHITE_USER.name.label("w_name"),
                   WHITE_USER.is_bot.label("w_bot"), BLACK_USER.id.label("b_id"), BLACK_USER.name.label("b_name"),
                   BLACK_USER.is_bot.label("b_bot"))
            .join(WHITE_USER, WHITE_USER.id == MatchRow.white_id).join(BLACK_USER, BLACK_USER.id == MatchRow.black_id))


def _info(row: Any) -> MatchInfo:
    values = {column.key: row._mapping[column.key] for column in _MATCH_COLUMNS}
    values["white"] = Seat(row.w_id, row.w_name, bool(row.w_bot))
    values["black"] = Seat(row.b_id, row.b_name, bool(row.b_bot))
    values["challenger_confirmed"] = bool(values["challenger_confirmed"])
    return MatchInfo(**values)


def read_info(connection: Connection, match_id: int) -> MatchInfo | None:
    row = connection.execute(_info_query().where(MatchRow.id == match_id)).first()
    return None if row is None else _info(row)


def read_version(connection: Connection, match_id: int) -> int | None:
    return connection.execute(select(MATCHES.c.version).where(MATCHES.c.id == match_id)).scalar()


def read_game_actions(connection: Connection, info: MatchInfo) -> list[str]:
    """The referee's action lines of the current game, in order (what rebuilds it)."""
    return list(connection.execute(
        select(EVENTS.c.action).where(EVENTS.c.match_id == info.id, EVENTS.c.game == info.game_number,
                                      EVENTS.c.seq < info.next_seq, EVENTS.c.action.is_not(None),
                                      EVENTS.c.kind != "new_game")  # the game's start is the snapshot
        .order_by(EVENTS.c.seq)).scalars())


def read_events(connection: Connection, match_id: int, after: int = -1, before: int | None = None,
                limit: int | None = None) -> list[EventRow]:
    """The events numbered after ``after`` (and below ``before``), in order."""
    query = select(EVENTS.c.seq, EVENTS.c.game, EVENTS.c.kind, EVENTS.c.color, EVENTS.c.action, EVENTS.c.data,
                   EVENTS.c.at, EVENTS.c.description).where(EVENTS.c.match_id == match_id, EVENTS.c.seq > after)
    if before is not None:
        query = query.where(EVENTS.c.seq < before)
    query = query.order_by(EVENTS.c.seq)
    if limit is not None:
        query = query.limit(limit)
    return [EventRow(*row) for row in connection.execute(query)]


class ActionRow(NamedTuple):
    """An event as a replay needs it: its number, kind and the referee's action line."""

    seq: int
    kind: str
    action: str | None


def read_actions(connection: Connection, match_id: int, before: int) -> list[ActionRow]:
    """The events numbered below ``before`` as a replay needs them (no data, no sentences: a long
    match has thousands)."""
    query = (select(EVENTS.c.seq, EVENTS.c.kind, EVENTS.c.action)
             .where(EVENTS.c.match_id == match_id, EVENTS.c.seq < before).order_by(EVENTS.c.seq))
    return [ActionRow(*row) for row in connection.execute(query)]


def count_plays(connection: Connection, match_id: int, before: int) -> int:
    return int(connection.execute(select(func.count()).select_from(EVENTS).where(
        EVENTS.c.match_id == match_id, EVENTS.c.kind == "play", EVENTS.c.seq < before)).scalar() or 0)


def first_opener(connection: Connection, match_id: int) -> str | None:
    """The side that made the match's first opening play (``white``/``black``), if it has one."""
    return connection.execute(select(EVENTS.c.color).where(EVENTS.c.match_id == match_id, EVENTS.c.kind == "opening")
                              .order_by(EVENTS.c.seq).limit(1)).scalar()


def list_matches(connection: Connection, user_id: int | None, status: str | None, limit: int) -> list[MatchInfo]:
    query = _info_query().order_by(MatchRow.updated.desc()).limit(limit)
    if user_id is not None:
        query = query.where(or_(MatchRow.white_id == user_id, MatchRow.black_id == user_id))
    if status is not None:
        query = query.where(MatchRow.status == status)
    return [_info(row) for row in connection.execute(query)]


def record_of(connection: Connection, user_id: int) -> tuple[int, int]:
    """(matches won, matches lost) of a user."""
    finished = and_(or_(MATCHES.c.white_id == user_id, MATCHES.c.black_id == user_id), MATCHES.c.status == "finished")
    played = connection.execute(select(func.count()).select_from(MATCHES).where(finished)).scalar() or 0
    won = connection.execute(select(func.count()).select_from(MATCHES)
                             .where(finished, MATCHES.c.winner_id == user_id)).scalar() or 0
    return int(won), int(played - won)


def rating_history(connection: Connection, user_id: int, limit: int = 50) -> list[dict[str, Any]]:
    rows = connection.execute(select(RATING_CHANGES).where(RATING_CHANGES.c.user_id == user_id)
                              .order_by(RATING_CHANGES.c.at.desc(), RATING_CHANGES.c.id.desc()).limit(limit))
    return [{"match": row.match_id, "before": round(row.before, 2), "after": round(row.after, 2), "won": row.won,
             "at": row.at.isoformat() + "Z"} for row in rows]


def gains_since(connection: Connection, since: dt.datetime, chosen: Any, limit: int) -> list[Any]:
    """The players ``chosen`` (a condition on users) by rating gained in rated matches since ``since``."""
    gained = func.sum(RATING_CHANGES.c.after - RATING_CHANGES.c.before)
    return list(connection.execute(
        select(USERS.c.name, USERS.c.rating, USERS.c.is_bot, gained.label("gained"), func.count().label("matches"),
               func.sum(cast(RATING_CHANGES.c.won, Integer)).label("won"))
        .join(RATING_CHANGES, RATING_CHANGES.c.user_id == USERS.c.id)
        .where(chosen, RATING_CHANGES.c.at >= since)
        .group_by(USERS.c.id, USERS.c.name, USERS.c.rating, USERS.c.is_bot)
        .order_by(gained.desc(), USERS.c.name).limit(limit)).all())


def playing(connection: Connection, user_ids: list[int]) -> set[int]:
    """Those of ``user_ids`` who play in a match under way."""
    if not user_ids:
        return set()
    rows = connection.execute(select(MATCHES.c.white_id, MATCHES.c.black_id).where(
        MATCHES.c.status == "playing", or_(MATCHES.c.white_id.in_(user_ids), MATCHES.c.black_id.in_(user_ids))))
    wanted = set(user_ids)
    return {user for row in rows for user in (row.white_id, row.black_id) if user in wanted}


def clocked(connection: Connection) -> list[Any]:
    """Matches under way with a time control: their number, clock, options and version."""
    return list(connection.execute(
        select(MATCHES.c.id, MATCHES.c.clock, MATCHES.c.options, MATCHES.c.version)
        .where(MATCHES.c.status == "playing", MATCHES.c.clock.is_not(None))).all())


def idle(connection: Connection, invited_before: dt.datetime, playing_before: dt.datetime) -> list[int]:
    """Invitations unanswered since ``invited_before`` and matches untouched since ``playing_before``."""
    return list(connection.execute(
        select(MATCHES.c.id).where(or_(and_(MATCHES.c.status == "invited", MATCHES.c.updated < invited_before),
                                       and_(MATCHES.c.status == "playing", MATCHES.c.updated < playing_before)))
        .limit(500)).scalars())


def bot_turns(connection: Connection, waiting_since: dt.datetime) -> list[int]:
    """Matches where a bot has been the side to act since before ``waiting_since``."""
    return list(connection.execute(
        select(MATCHES.c.id).join(USERS, USERS.c.id == MATCHES.c.to_act_id)
        .where(MATCHES.c.status == "playing", USERS.c.is_bot.is_(True), MATCHES.c.updated <= waiting_since)
        .limit(500)).scalars())


# -- writes (in the writer's transaction) -------------------------------------------------------
def insert_match(connection: Connection, values: dict[str, Any]) -> int:
    return int(connection.execute(insert(MATCHES).values(**values).returning(MATCHES.c.id)).scalar_one())


def update_match(connection: Connection, match_id: int, version: int, values: dict[str, Any]) -> bool:
    """Move the match on from ``version`` only; False when it has moved on already (nothing changed)."""
    changed = connection.execute(update(MATCHES).where(MATCHES.c.id == match_id, MATCHES.c.version == version)
                                 .values(**values))
    return changed.rowcount == 1


def set_match(connection: Connection, match_id: int, **values: Any) -> None:
    """Columns of a match row that its own write decided after moving it on (its digest, whether rated)."""
    connection.execute(update(MATCHES).where(MATCHES.c.id == match_id).values(**values))


def insert_events(connection: Connection, rows: list[dict[str, Any]]) -> None:
    if rows:
        connection.execute(insert(EVENTS), rows)


def heartbeat(connection: Connection, now: dt.datetime) -> dt.datetime | None:
    """Note that a server serves at ``now``; the beat this one replaced (None: there was none, or
    another server is beating at this moment or has beaten since, so the server serves)."""
    row = connection.execute(select(HEARTBEAT.c.beat).where(HEARTBEAT.c.id == 1)
                             .with_for_update(skip_locked=True)).first()  # PostgreSQL: one server beats at a time
    if row is None:
        if connection.execute(select(HEARTBEAT.c.id)).first() is None:
            connection.execute(insert(HEARTBEAT).values(id=1, beat=now))
        return None
    last: dt.datetime = row.beat
    if last >= now:
        return None
    connection.execute(update(HEARTBEAT).where(HEARTBEAT.c.id == 1).values(beat=now))
    return last


def take_commitment(connection: Connection, user_id: int, token_hash: str, not_before: dt.datetime) -> str | None:
    """The server seed ``user_id`` was shown the commitment of (used once, by them alone), or None."""
    row = connection.execute(select(COMMITMENTS.c.id, COMMITMENTS.c.seed).where(
        COMMITMENTS.c.token_hash == token_hash, COMMITMENTS.c.user_id == user_id,
        COMMITMENTS.c.created >= not_before)).first()
    if row is None:
        return None
    if connection.execute(COMMITMENTS.delete().where(COMMITMENTS.c.id == row.id)).rowcount != 1:
        return None  # taken by another request at the same moment
    return str(row.seed)


def add_commitment(connection: Connection, user_id: int, token_hash: str, seed: str) -> None:
    connection.execute(insert(COMMITMENTS).values(user_id=user_id, token_hash=token_hash, seed=seed, created=utcnow()))


def open_commitments(connection: Connection, user_id: int, not_before: dt.datetime) -> int:
    """How many commitments ``user_id`` holds that can still be used."""
    return int(connection.execute(select(func.count()).select_from(COMMITMENTS).where(
        COMMITMENTS.c.user_id == user_id, COMMITMENTS.c.created >= not_before)).scalar_one())


def sweep_commitments(connection: Connection, before: dt.datetime) -> int:
    """Drop the commitments made before ``before`` (they can no longer be used); how many."""
    return int(connection.execute(COMMITMENTS.delete().where(COMMITMENTS.c.created < before)).rowcount or 0)


def ratings_of(connection: Connection, user_ids: tuple[int, int]) -> dict[int, Any]:
    """The rows of the two players, locked for the rest of the transaction on PostgreSQL."""
    query = select(USERS.c.id, USERS.c.rating, USERS.c.experience, USERS.c.opponents, USERS.c.is_bot) \
        .where(USERS.c.id.in_(user_ids)).order_by(USERS.c.id)
    if connection.dialect.name == "postgresql":
        query = query.with_for_update()
    return {row.id: row for row in connection.execute(query)}


def match_ratings(connection: Connection, match_id: int) -> dict[int, tuple[float, float]]:
    """Each player's rating before and after a finished rated match (by account number)."""
    rows = connection.execute(select(RATING_CHANGES.c.user_id, RATING_CHANGES.c.before, RATING_CHANGES.c.after)
                              .where(RATING_CHANGES.c.match_id == match_id))
    return {row.user_id: (float(row.before), float(row.after)) for row in rows}


def rated_between(connection: Connection, first: int, second: int, since: dt.datetime) -> int:
    """Rated matches the two players finished against each other since ``since``."""
    pair = or_(and_(MATCHES.c.white_id == first, MATCHES.c.black_id == second),
               and_(MATCHES.c.white_id == second, MATCHES.c.black_id == first))
    return int(connection.execute(select(func.count()).select_from(MATCHES).where(
        pair, MATCHES.c.rated.is_(True), MATCHES.c.finished >= since)).scalar() or 0)


def set_rating(connection: Connection, user_id: int, match_id: int, before: float, after: float, won: bool,
               points: int) -> None:
    """Record one player's rating change."""
    now = utcnow()
    connection.execute(insert(RATING_CHANGES).values(user_id=user_id, match_id=match_id, before=before, after=after,
                                                     won=won, at=now))
    connection.execute(update(USERS).where(USERS.c.id == user_id)
                       .values(rating=after, experience=USERS.c.experience + points))


def count_opponents(connection: Connection, user_ids: list[int]) -> None:
    """Count afresh the opponents each of ``user_ids`` has finished a match under the rating rules
    against (docs/server.md, "Ratings nobody can farm"): each person once, every bot together once,
    and nobody ever seen on a network of theirs."""
    them, mine, theirs = USERS.alias("them"), NETWORKS.alias("mine"), NETWORKS.alias("theirs")
    for user_id in user_ids:
        other = case((MATCHES.c.white_id == user_id, MATCHES.c.black_id), else_=MATCHES.c.white_id)
        shared = exists().where(mine.c.user_id == user_id, theirs.c.user_id == them.c.id,
                                theirs.c.network == mine.c.network)
        count = connection.execute(
            select(func.count(distinct(case((them.c.is_bot.is_(True), 0), else_=them.c.id))))
            .select_from(MATCHES.join(them, them.c.id == other))
            .where(or_(MATCHES.c.white_id == user_id, MATCHES.c.black_id == user_id), MATCHES.c.status == "finished",
                   MATCHES.c.rated.is_not(None), them.c.id != user_id, ~shared)).scalar_one()
        connection.execute(update(USERS).where(USERS.c.id == user_id).values(opponents=int(count)))


def add_experience(connection: Connection, user_ids: tuple[int, ...], points: int) -> None:
    connection.execute(update(USERS).where(USERS.c.id.in_(user_ids)).values(experience=USERS.c.experience + points))


# -- finished matches' records, made once ---------------------------------------------------------
_KEEP_RECORD = text("INSERT INTO match_records (match_id, mat, created) VALUES (:match_id, :mat, :now) "
                    "ON CONFLICT (match_id) DO NOTHING").bindparams(bindparam("now", type_=DateTime()))


def finished_record(connection: Connection, match_id: int) -> str | None:
    """A finished match's ``.mat`` record, when it was made before."""
    return connection.execute(select(MATCH_RECORDS.c.mat).where(MATCH_RECORDS.c.match_id == match_id)).scalar()


def keep_record(connection: Connection, match_id: int, mat: str) -> None:
    """Keep a finished match's record (two servers making it at once: the first one is kept)."""
    connection.execute(_KEEP_RECORD, {"match_id": match_id, "mat": mat, "now": utcnow()})

"""The server's tables: accounts, log-ins, devices, limits, matches and each match's event log.

A match's truth is its event log: every applied action is a row, written in the same
transaction as the match row's new ``version``, so an acknowledged action is never lost and
two conflicting submissions cannot both apply (the second finds the version moved on).
Queries use these tables through SQLAlchemy Core (``User.__table__``), not ORM sessions.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, cast

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Table,
    Text,
    UniqueConstraint,
    func,
    true,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


class Base(DeclarativeBase):
    pass


class User(Base):
    """A person (name and argon2id hash) or a bot (``bot:NAME``, no password); both are rated.

    Names are unique without regard to case in the database itself (an index on ``lower(name)``),
    and so are confirmed e-mail addresses.
    """

    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    password_hash: Mapped[str | None] = mapped_column(String(255))
    is_bot: Mapped[bool] = mapped_column(Boolean, default=False)
    email: Mapped[str | None] = mapped_column(String(255))  #: a confirmed address: the only one mail goes to
    email_pending: Mapped[str | None] = mapped_column(String(255))  #: an address waiting for its code
    email_code: Mapped[str | None] = mapped_column(String(64))  #: SHA-256 of the code mailed to it
    email_code_at: Mapped[dt.datetime | None] = mapped_column(DateTime)
    mail_on_turn: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    rating: Mapped[float] = mapped_column(Float, default=1500.0)
    experience: Mapped[int] = mapped_column(Integer, default=0)
    rated_matches: Mapped[int] = mapped_column(Integer, default=0, server_default="0")  #: against established players
    created: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


Index("ux_users_name_lower", func.lower(User.name), unique=True)
Index("ux_users_email_lower", func.lower(User.email), unique=True)


class Session(Base):
    """A log-in: the SHA-256 of its bearer token (the token itself is never stored)."""

    __tablename__ = "sessions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    last_used: Mapped[dt.datetime | None] = mapped_column(DateTime)
    expires: Mapped[dt.datetime | None] = mapped_column(DateTime, index=True)
    address: Mapped[str | None] = mapped_column(String(64))
    agent: Mapped[str | None] = mapped_column(String(200))


class Device(Base):
    """A browser or program that has logged in to an account: its log-ins are limited apart from
    strangers', so a stranger guessing passwords cannot lock the owner out."""

    __tablename__ = "devices"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    last_used: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow, index=True)


class LimitCounter(Base):
    """How many times ``key`` (a limit and who it limits) was used since ``window_start``:
    incremented atomically, so every server on the database shares one count."""

    __tablename__ = "limit_counters"

    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    window_start: Mapped[dt.datetime] = mapped_column(DateTime, index=True)
    count: Mapped[int] = mapped_column(Integer)


class Commitment(Base):
    """A dice seed drawn and committed before a player chooses theirs (``POST /api/commitments``)."""

    __tablename__ = "commitments"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    seed: Mapped[str] = mapped_column(String(64))
    created: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow, index=True)


class MatchRow(Base):
    """A challenge and then a match: who plays, the rules, where it stands, and its dice seeds."""

    __tablename__ = "matches"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    white_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    black_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    length: Mapped[int] = mapped_column(Integer)
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(16), index=True)  # invited, declined, playing, finished
    version: Mapped[int] = mapped_column(Integer, default=0)
    seed: Mapped[str] = mapped_column(String(64))  # the server's seed, hex; revealed when the match ends
    commitment: Mapped[str] = mapped_column(String(64))  # SHA-256 of the server's seed
    challenger_seed: Mapped[str | None] = mapped_column(String(64))  # each player's own seed, shown from the start
    opponent_seed: Mapped[str | None] = mapped_column(String(64))
    dice_scheme: Mapped[int] = mapped_column(Integer, default=2, server_default="1")  # 1: the server's seed alone
    digest: Mapped[str | None] = mapped_column(String(64))  # SHA-256 chain over the events written so far
    rolls_drawn: Mapped[int] = mapped_column(Integer, default=0)
    next_seq: Mapped[int] = mapped_column(Integer, default=0)  # events written so far: a read sees only these
    game_number: Mapped[int] = mapped_column(Integer, default=1)
    game_start: Mapped[dict[str, Any]] = mapped_column(JSON)  # score and Crawford flag before the current game
    state: Mapped[str | None] = mapped_column(String(128))  # the position now (BPN), for lists
    score_white: Mapped[int] = mapped_column(Integer, default=0)
    score_black: Mapped[int] = mapped_column(Integer, default=0)
    winner_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    to_act_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), index=True)  # who must act now
    #: by mail: {"white": {"greedy": .., "manual": ..}, "black": ..}
    pbm_modes: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    challenger_confirmed: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    rated: Mapped[bool | None] = mapped_column(Boolean)  # decided when the match ends
    #: with a time control: {"white": reserve left, "black": .., "running": side or null, "since": ISO time}
    clock: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    created: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    updated: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow, index=True)
    finished: Mapped[dt.datetime | None] = mapped_column(DateTime, index=True)


class Event(Base):
    """One event of a match, in order: ``kind`` and ``data`` are a :mod:`gammon.events` event;
    ``action`` is the referee's one-line form of its action (for replay); ``description`` the
    sentence a spectator hears, kept for people reading the table."""

    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("match_id", "seq"), Index("ix_events_match_seq", "match_id", "seq"))

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)
    game: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(16))
    color: Mapped[str | None] = mapped_column(String(8))
    action: Mapped[str | None] = mapped_column(Text)
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
    description: Mapped[str] = mapped_column(Text)
    at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class RatingChange(Base):
    """A rating before and after a rated match: the user's history and the weekly top list."""

    __tablename__ = "rating_changes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id"))
    before: Mapped[float] = mapped_column(Float)
    after: Mapped[float] = mapped_column(Float)
    won: Mapped[bool] = mapped_column(Boolean)
    at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow, index=True)


class AnalysisRow(Base):
    """A match judged after it ended (or an uploaded ``.mat`` record), in the bots' worker pool:
    queued, running, then done (the results, and the HTML report gzip-compressed) or failed."""

    __tablename__ = "analyses"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    match_id: Mapped[int | None] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), unique=True)
    requested_by: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    status: Mapped[str] = mapped_column(String(16), index=True)  # queued, running, done, failed
    analyst: Mapped[str] = mapped_column(String(300))
    record: Mapped[str] = mapped_column(Text)  # the .mat text judged
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    html: Mapped[bytes | None] = mapped_column(LargeBinary)
    error: Mapped[str | None] = mapped_column(Text)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    created: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    started: Mapped[dt.datetime | None] = mapped_column(DateTime)
    finished: Mapped[dt.datetime | None] = mapped_column(DateTime)


USERS = cast(Table, User.__table__)  # the tables as Core sees them (the queries use these)
SESSIONS = cast(Table, Session.__table__)
DEVICES = cast(Table, Device.__table__)
LIMITS = cast(Table, LimitCounter.__table__)
COMMITMENTS = cast(Table, Commitment.__table__)
MATCHES = cast(Table, MatchRow.__table__)
EVENTS = cast(Table, Event.__table__)
RATING_CHANGES = cast(Table, RatingChange.__table__)
ANALYSES = cast(Table, AnalysisRow.__table__)

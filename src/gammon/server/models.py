"""The server's tables: accounts, sessions, matches and each match's event log.

A match's truth is its event log: every applied action is a row, written in the same
transaction as the match row's new ``version``, so an acknowledged action is never lost and
two conflicting submissions cannot both apply (the second finds the version moved on).
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import JSON, BigInteger, Boolean, DateTime, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint, true
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


class Base(DeclarativeBase):
    pass


class User(Base):
    """A person (name and argon2id hash) or a bot (``bot:NAME``, no password); both are rated."""

    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    password_hash: Mapped[str | None] = mapped_column(String(255))
    is_bot: Mapped[bool] = mapped_column(Boolean, default=False)
    email: Mapped[str | None] = mapped_column(String(255))
    mail_on_turn: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())  #: a mail with the board when it is your turn
    rating: Mapped[float] = mapped_column(Float, default=1500.0)
    experience: Mapped[int] = mapped_column(Integer, default=0)
    created: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class Session(Base):
    """A log-in: the SHA-256 of its bearer token (the token itself is never stored)."""

    __tablename__ = "sessions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    user: Mapped[User] = relationship()


class LoginFailure(Base):
    """A wrong password, kept for the rate limit (shared by every server on the database)."""

    __tablename__ = "login_failures"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), index=True)
    at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow, index=True)


class MatchRow(Base):
    """A challenge and then a match: who plays, the rules, where it stands, and its dice seed."""

    __tablename__ = "matches"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    white_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    black_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    length: Mapped[int] = mapped_column(Integer)
    options: Mapped[dict] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(16), index=True)  # invited, declined, playing, finished
    version: Mapped[int] = mapped_column(Integer, default=0)
    seed: Mapped[str] = mapped_column(String(64))  # hex; revealed when the match ends
    commitment: Mapped[str] = mapped_column(String(64))  # SHA-256 of the seed
    rolls_drawn: Mapped[int] = mapped_column(Integer, default=0)
    next_seq: Mapped[int] = mapped_column(Integer, default=0)  # events written so far: a read sees only these
    game_number: Mapped[int] = mapped_column(Integer, default=1)
    game_start: Mapped[dict] = mapped_column(JSON)  # score and Crawford flag before the current game
    state: Mapped[str | None] = mapped_column(String(128))  # the position now (BPN), for lists
    score_white: Mapped[int] = mapped_column(Integer, default=0)
    score_black: Mapped[int] = mapped_column(Integer, default=0)
    winner_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    to_act_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), index=True)  # who must act now
    pbm_modes: Mapped[dict | None] = mapped_column(JSON)  # {"white": {"greedy": .., "manual": ..}, "black": ..}: by mail
    created: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    updated: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow, index=True)
    finished: Mapped[dt.datetime | None] = mapped_column(DateTime, index=True)

    white: Mapped[User] = relationship(foreign_keys=[white_id], lazy="joined", innerjoin=True)
    black: Mapped[User] = relationship(foreign_keys=[black_id], lazy="joined", innerjoin=True)


class Event(Base):
    """One event of a match, in order: ``action`` is the match action's text (for replay)."""

    __tablename__ = "events"
    __table_args__ = (UniqueConstraint("match_id", "seq"), Index("ix_events_match_seq", "match_id", "seq"))

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)
    game: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(16))
    color: Mapped[str | None] = mapped_column(String(8))
    action: Mapped[str | None] = mapped_column(Text)
    data: Mapped[dict] = mapped_column(JSON)
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

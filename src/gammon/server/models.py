"""The server's tables: accounts, log-ins, devices, limits, matches and each match's event log.

A match's truth is its event log: every applied action is a row, written in the same
transaction as the match row's new ``version``, so an acknowledged action is never lost and
two conflicting submissions cannot both apply (the second finds the version moved on).
Queries use these tables through SQLAlchemy Core (``User.__table__``), not ORM sessions.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import re
import unicodedata
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


#: Characters of a name that look alike, after NFKC and case folding (which already make ``I`` an
#: ``i`` and ``O`` an ``o``), each class written as one: i I l L 1 | as ``l``; o O 0 as ``o``;
#: s S 5 as ``s``; z Z 2 as ``z``; b B 8 as ``b``. Then the pairs that read as one letter:
#: ``rn`` as ``m``, ``vv`` as ``w``, ``cl`` as ``d`` (docs/server.md).
_LOOK_ALIKE = str.maketrans({"i": "l", "1": "l", "|": "l", "0": "o", "5": "s", "2": "z", "8": "b"})
_PAIRS = {"rn": "m", "vv": "w", "cl": "d"}
_PAIR = re.compile("|".join(_PAIRS))


def skeleton(name: str) -> str:
    """What a name looks like, for telling names apart: two names with one skeleton are one name
    to a reader, so only the first may be registered (``users.skeleton`` is unique).

    >>> skeleton("aIice") == skeleton("alice") == skeleton("ALICE")
    True
    >>> skeleton("a1234I") == skeleton("a1234l"), skeleton("rnary") == skeleton("Mary")
    (True, True)
    """
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return _PAIR.sub(lambda pair: _PAIRS[pair.group()], folded.translate(_LOOK_ALIKE))


def network(address: str) -> str:
    """The network a client's address is part of (an IPv4 /24, an IPv6 /64, the loopback as one;
    anything that is not an address as it is): accounts seen on one network are not told apart
    when a rating counts its opponents (docs/server.md, "Ratings nobody can farm").

    >>> network("203.0.113.77"), network("::ffff:203.0.113.9"), network("127.0.5.1"), network("2001:db8::1")
    ('203.0.113.0/24', '203.0.113.0/24', 'loopback', '2001:db8::/64')
    """
    try:
        ip = ipaddress.ip_address(address.strip().strip("[]"))
    except ValueError:
        return address.strip().lower()[:64]
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.is_loopback:
        return "loopback"
    return str(ipaddress.ip_network(f"{ip}/{24 if ip.version == 4 else 64}", strict=False))


class Base(DeclarativeBase):
    pass


class User(Base):
    """A person (name and argon2id hash) or a bot (``bot:NAME``, no password); both are rated.

    Names are unique without regard to case in the database itself (an index on ``lower(name)``),
    and so are their skeletons (:func:`skeleton`: no two names that look alike) and confirmed
    e-mail addresses. ``skeleton`` is empty only for an account older than the rule whose name
    looks like an older account's (both were kept).
    """

    __tablename__ = "users"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    skeleton: Mapped[str | None] = mapped_column(String(64))  #: :func:`skeleton` of the name
    password_hash: Mapped[str | None] = mapped_column(String(255))
    is_bot: Mapped[bool] = mapped_column(Boolean, default=False)
    email: Mapped[str | None] = mapped_column(String(255))  #: a confirmed address: the only one mail goes to
    email_pending: Mapped[str | None] = mapped_column(String(255))  #: an address waiting for its code
    email_code: Mapped[str | None] = mapped_column(String(64))  #: SHA-256 of the code mailed to it
    email_code_at: Mapped[dt.datetime | None] = mapped_column(DateTime)
    mail_on_turn: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    rating: Mapped[float] = mapped_column(Float, default=1500.0)
    experience: Mapped[int] = mapped_column(Integer, default=0)
    #: distinct opponents of finished matches that count (docs/server.md): people once each, bots together once
    opponents: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    created: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


Index("ux_users_name_lower", func.lower(User.name), unique=True)
Index("ux_users_email_lower", func.lower(User.email), unique=True)
Index("ux_users_skeleton", User.skeleton, unique=True)


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


class Network(Base):
    """A network (:func:`network`) an account logged in or registered from: people seen on one
    network do not count as each other's opponents for a rating (docs/server.md)."""

    __tablename__ = "networks"

    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    network: Mapped[str] = mapped_column(String(64), primary_key=True, index=True)
    last_seen: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow, index=True)


class LimitCounter(Base):
    """How many times ``key`` (a limit and who it limits) was used since ``window_start``:
    incremented atomically, so every server on the database shares one count."""

    __tablename__ = "limit_counters"

    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    window_start: Mapped[dt.datetime] = mapped_column(DateTime, index=True)
    count: Mapped[int] = mapped_column(Integer)


class Commitment(Base):
    """A dice seed drawn and committed before a player chooses theirs (``POST /api/commitments``):
    the account that asked for it alone may use it, and an unused one is swept after a while."""

    __tablename__ = "commitments"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
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
    # the dice scheme the match was made under (gammon.server.matches.fair_dice): 3 since 0009, so a row
    # written without one is never read under an older scheme; 1 (the server's seed alone) only before 0003
    dice_scheme: Mapped[int] = mapped_column(Integer, default=3, server_default="3")
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
    #: the server process running it (host, boot, process): a restarted server knows its own leftovers
    runner: Mapped[str | None] = mapped_column(String(200))


class FinishedRecord(Base):
    """A finished match's ``.mat`` record, made once from its events (a long match takes seconds to
    replay) and read from here by every later request, on every server."""

    __tablename__ = "match_records"

    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    mat: Mapped[str] = mapped_column(Text)
    created: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class Heartbeat(Base):
    """When a server last said it serves (one row, every server process writes it each second):
    a gap between two beats is time the server was down or frozen, which no clock counts."""

    __tablename__ = "heartbeat"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    beat: Mapped[dt.datetime] = mapped_column(DateTime)


USERS = cast(Table, User.__table__)  # the tables as Core sees them (the queries use these)
SESSIONS = cast(Table, Session.__table__)
DEVICES = cast(Table, Device.__table__)
NETWORKS = cast(Table, Network.__table__)
LIMITS = cast(Table, LimitCounter.__table__)
COMMITMENTS = cast(Table, Commitment.__table__)
MATCHES = cast(Table, MatchRow.__table__)
EVENTS = cast(Table, Event.__table__)
RATING_CHANGES = cast(Table, RatingChange.__table__)
ANALYSES = cast(Table, AnalysisRow.__table__)
MATCH_RECORDS = cast(Table, FinishedRecord.__table__)
HEARTBEAT = cast(Table, Heartbeat.__table__)

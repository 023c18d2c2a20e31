"""Limits on what one client may do: counters in the database, and buckets in memory.

Log-ins, registrations and invitations are counted in the database
(:func:`count_in_window`): the counter is raised *before* the work it limits, in one atomic
statement, so every server on the database shares the count and twenty guesses sent at
once are counted one by one — the sixth is refused before its password is even hashed.
Cheaper things (play-by-mail commands, mails) are limited per process by
:class:`Buckets`, whose memory is bounded.
"""

from __future__ import annotations

import datetime as dt
import time
from collections import OrderedDict

from sqlalchemy import Connection, DateTime, Integer, bindparam, text

from .models import LIMITS, utcnow

_UPSERT = text("""
INSERT INTO limit_counters (key, window_start, count) VALUES (:key, :now, 1)
ON CONFLICT (key) DO UPDATE SET
    count = CASE WHEN limit_counters.window_start < :cutoff THEN 1 ELSE limit_counters.count + 1 END,
    window_start = CASE WHEN limit_counters.window_start < :cutoff THEN :now ELSE limit_counters.window_start END
RETURNING count, window_start
""").bindparams(bindparam("now", type_=DateTime()), bindparam("cutoff", type_=DateTime())).columns(
    count=Integer(), window_start=DateTime())


def count_in_window(connection: Connection, key: str, window: float) -> int:
    """Count one more use of ``key`` in its window of ``window`` seconds; the count so far, this one included."""
    count, _ = hit(connection, key, window)
    return count


def hit(connection: Connection, key: str, window: float) -> tuple[int, float]:
    """Count one more use of ``key``: (the count in the window, seconds until the window ends)."""
    now = utcnow()
    cutoff = now - dt.timedelta(seconds=window)
    count, start = connection.execute(_UPSERT, {"key": key[:200], "now": now, "cutoff": cutoff}).one()
    left = max(1.0, window - (now - start).total_seconds())
    return int(count), left


def forget(connection: Connection, key: str) -> None:
    """Start ``key``'s count afresh (a device that logged in correctly)."""
    connection.execute(LIMITS.delete().where(LIMITS.c.key == key[:200]))


def sweep(connection: Connection, older_than: dt.datetime) -> int:
    """Drop counters whose window ended before ``older_than``; how many."""
    return int(connection.execute(LIMITS.delete().where(LIMITS.c.window_start < older_than)).rowcount or 0)


class Buckets:
    """Token buckets by key (an address, an account): ``rate`` a minute, bursts up to ``burst``.

    Only the event loop's thread uses them; the least recently used keys are forgotten past
    ``keys``, which only ever gives a forgotten client a full bucket.
    """

    def __init__(self, rate: float, burst: float, keys: int = 100_000) -> None:
        self.rate, self.burst, self.keys = rate / 60.0, burst, keys
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, key: str, cost: float = 1.0) -> float:
        """Take ``cost`` tokens for ``key``: 0 when allowed, else the seconds to wait."""
        now = time.monotonic()
        tokens, then = self._buckets.get(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - then) * self.rate)
        if tokens < cost:
            self._buckets[key] = (tokens, now)
            self._buckets.move_to_end(key)
            return (cost - tokens) / self.rate if self.rate else float("inf")
        self._buckets[key] = (tokens - cost, now)
        self._buckets.move_to_end(key)
        while len(self._buckets) > self.keys:
            self._buckets.popitem(last=False)
        return 0.0

"""Waking the event streams when a match changes, in this process and on every other server.

Actions are applied in worker threads; :meth:`Notifier.publish` may be called from any
thread. With Redis (``--redis URL``) the news goes out on a channel that every ``gammon
serve`` on the same database listens to, so a WebSocket on one instance hears of a move
made on another; on PostgreSQL without Redis, the database's own LISTEN/NOTIFY carries it.
Streams also look at the database every few seconds, so a lost message delays an event but
never loses it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections import defaultdict
from collections.abc import Iterator

CHANNEL = "gammon:matches"
PG_CHANNEL = "gammon_matches"
log = logging.getLogger("gammon.server")


class Notifier:
    def __init__(self, redis_url: str | None = None, postgres: str | None = None) -> None:
        self.redis_url = redis_url
        self.postgres = None if redis_url else postgres  #: a libpq URL: LISTEN/NOTIFY when there is no Redis
        self._pg_lock = threading.Lock()
        self._pg = None
        self._waiters: dict[int, set[asyncio.Event]] = defaultdict(set)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._publisher = None
        self._listener: asyncio.Task | None = None

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        if self.redis_url:
            import redis
            import redis.asyncio

            self._publisher = redis.Redis.from_url(self.redis_url)
            subscriber = redis.asyncio.Redis.from_url(self.redis_url)
            pubsub = subscriber.pubsub()
            await pubsub.subscribe(CHANNEL)
            self._listener = asyncio.create_task(self._listen(pubsub, subscriber))
        elif self.postgres:
            import psycopg

            listener = await psycopg.AsyncConnection.connect(self.postgres, autocommit=True)
            await listener.execute(f"LISTEN {PG_CHANNEL}")
            self._listener = asyncio.create_task(self._listen_postgres(listener))

    async def stop(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._listener
        if self._publisher is not None:
            self._publisher.close()
        if self._pg is not None:
            self._pg.close()

    async def _listen_postgres(self, connection) -> None:  # type: ignore[no-untyped-def]
        try:
            async for notice in connection.notifies():
                with contextlib.suppress(ValueError):
                    self._wake(int(notice.payload))
        except Exception as error:  # the database poll goes on covering
            log.warning("LISTEN %s stopped: %s", PG_CHANNEL, error)
        finally:
            await connection.close()

    def _notify_postgres(self, match_id: int) -> None:
        import psycopg

        with self._pg_lock:
            try:
                if self._pg is None or self._pg.closed:
                    self._pg = psycopg.connect(self.postgres, autocommit=True)
                self._pg.execute("SELECT pg_notify(%s, %s)", (PG_CHANNEL, str(match_id)))
            except psycopg.Error as error:
                log.warning("NOTIFY failed: %s", error)
                self._pg = None

    async def _listen(self, pubsub, subscriber) -> None:  # type: ignore[no-untyped-def]
        try:
            async for message in pubsub.listen():
                if message.get("type") == "message":
                    with contextlib.suppress(ValueError):
                        self._wake(int(message["data"]))
        finally:
            await pubsub.aclose()
            await subscriber.aclose()

    def publish(self, match_id: int) -> None:
        """Tell every stream of ``match_id`` (here and, with Redis, everywhere) to look again."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._wake, match_id)
        if self._publisher is not None:
            try:
                self._publisher.publish(CHANNEL, str(match_id))
            except Exception as error:  # the other servers will see it at their next look
                log.warning("redis publish failed: %s", error)
        elif self.postgres:
            self._notify_postgres(match_id)

    def _wake(self, match_id: int) -> None:
        for event in self._waiters.get(match_id, ()):
            event.set()

    @contextlib.contextmanager
    def listening(self, match_id: int) -> Iterator[asyncio.Event]:
        """An event set whenever ``match_id`` changes: clear it, read the database, then wait on it,
        so a change between the read and the wait is not missed."""
        event = asyncio.Event()
        self._waiters[match_id].add(event)
        try:
            yield event
        finally:
            self._waiters[match_id].discard(event)
            if not self._waiters[match_id]:
                del self._waiters[match_id]

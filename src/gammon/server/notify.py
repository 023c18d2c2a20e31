"""The news of every match, to every event stream of this process, from one listener.

Each process has one :class:`Broadcaster`. A change committed here is handed to it with its
event rows (:meth:`Broadcaster.committed`) and goes straight to the streams watching that
match; a change committed by another server arrives as a note (match and last event number)
through PostgreSQL's LISTEN/NOTIFY (sent in the writing transaction itself) or Redis
pub/sub (``--redis``), and the match's :class:`Feed` reads the new events once for all its
streams. No stream polls the database.

The listener reconnects after any drop, with a growing pause, and then catches every
watched match up from the database; until it is back, :attr:`Broadcaster.health` says it is
degraded (``/api/health`` shows it).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from .matches.store import EventRow

CHANNEL = "gammon:matches"  #: the Redis channel
PG_CHANNEL = "gammon_matches"  #: the PostgreSQL channel (the service NOTIFYs it)
STREAM_QUEUE = 512  #: events a stream may fall behind by before it is closed (it reconnects with ?after=)
log = logging.getLogger("gammon.server")
Reader = Callable[[int, int], Awaitable[list[EventRow]]]


class Feed:
    """The streams of one match in this process, and the last event they were all given."""

    def __init__(self, match_id: int, read: Reader) -> None:
        self.match_id, self.read = match_id, read
        self.queues: set[asyncio.Queue[list[EventRow] | None]] = set()
        self.cursor: int | None = None  #: the last event number handed to the streams
        self._fetching: asyncio.Task[None] | None = None
        self._again = False

    def push(self, rows: list[EventRow]) -> None:
        """Hand new rows (in order) to every stream; a gap before them is read from the database first."""
        if not rows:
            return
        if self.cursor is not None and rows[0].seq > self.cursor + 1:
            self.wake(rows[-1].seq)
            return
        fresh = [row for row in rows if self.cursor is None or row.seq > self.cursor]
        if not fresh:
            return
        self.cursor = fresh[-1].seq
        for queue in list(self.queues):
            try:
                queue.put_nowait(fresh)
            except asyncio.QueueFull:  # a stream too slow to keep up is closed; it can come back
                self.queues.discard(queue)
                while not queue.empty():  # make room for the one closing word
                    queue.get_nowait()
                queue.put_nowait(None)

    def caught_up(self, seq: int) -> None:
        """A stream has read the match up to ``seq`` itself: the feed starts from there at the latest."""
        if self.cursor is None or seq > self.cursor:
            self.cursor = seq

    def wake(self, seq: int | None = None) -> None:
        """Another server wrote up to ``seq`` (None: it may have): read what this process has not handed on."""
        if seq is not None and self.cursor is not None and seq <= self.cursor:
            return
        if self._fetching is not None and not self._fetching.done():
            self._again = True
            return
        self._fetching = asyncio.ensure_future(self._fetch())

    async def _fetch(self) -> None:
        while True:
            self._again = False
            if self.cursor is None:
                return  # the first stream's own catch-up read sets where the feed stands
            try:
                rows = await self.read(self.match_id, self.cursor)
            except Exception as error:  # noqa: BLE001 - the database will answer the next note
                log.warning("events of match %d not read: %s", self.match_id, error)
                return
            self.push(rows)
            if not self._again:
                return


class Broadcaster:
    """Feeds by match, and the one listener that tells them of other servers' writes."""

    def __init__(self, read: Reader, *, redis_url: str | None = None, postgres: str | None = None,
                 on_note: Callable[[int, int | None], None] | None = None) -> None:
        self.read = read
        self.on_note = on_note  #: told of every match another server (or this one) changed
        self.redis_url = redis_url
        self.postgres = None if redis_url else postgres  #: a libpq URL: LISTEN when there is no Redis
        self.feeds: dict[int, Feed] = {}
        self._listener: asyncio.Task[None] | None = None
        self._publisher: Any = None
        self._publishing: set[asyncio.Task[Any]] = set()
        self.connected = not (self.redis_url or self.postgres)  #: the listener is listening (or none is needed)
        self.problem: str | None = None
        self.reconnects = 0

    # -- the listener ---------------------------------------------------------------------------------
    async def start(self) -> None:
        if self.redis_url:
            import redis.asyncio

            self._publisher = redis.asyncio.Redis.from_url(self.redis_url, socket_timeout=5, socket_connect_timeout=5)
            self._listener = asyncio.create_task(self._listen(self._listen_redis))
        elif self.postgres:
            self._listener = asyncio.create_task(self._listen(self._listen_postgres))

    async def stop(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._listener
        for task in list(self._publishing):
            task.cancel()
        if self._publisher is not None:
            with contextlib.suppress(Exception):
                await self._publisher.aclose()
        for feed in self.feeds.values():
            for queue in feed.queues:
                queue.put_nowait(None)

    @property
    def health(self) -> dict[str, Any]:
        kind = "redis" if self.redis_url else "postgresql" if self.postgres else "none"
        return {"listener": kind, "listening": self.connected, "reconnects": self.reconnects,
                **({"problem": self.problem} if self.problem else {})}

    async def _listen(self, listen: Callable[[], Awaitable[None]]) -> None:
        pause = 0.1
        while True:
            started = time.monotonic()
            try:
                await listen()
                raise ConnectionError("the listener's connection ended")
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001 - a fault here must not take the server down
                self.connected = False
                self.problem = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
                log.warning("the event listener lost its connection (%s); reconnecting in %.1f s", self.problem, pause)
            if time.monotonic() - started > 30:
                pause = 0.1  # it had been up a while: a fresh drop starts the pauses over
            await asyncio.sleep(pause)
            pause = min(pause * 2, 5.0)
            self.reconnects += 1

    def _listening(self) -> None:
        """Connected (again): catch every watched match up, since notes may have been missed."""
        self.connected, self.problem = True, None
        for feed in list(self.feeds.values()):
            feed.wake()

    async def _listen_postgres(self) -> None:
        import psycopg

        assert self.postgres is not None
        async with await psycopg.AsyncConnection.connect(self.postgres, autocommit=True, connect_timeout=5) as connection:
            await connection.execute(f"LISTEN {PG_CHANNEL}")
            self._listening()
            while True:
                async for note in connection.notifies(timeout=10.0):
                    self._note(note.payload)
                await connection.execute("SELECT 'gammon listener'")  # a quiet connection must still be alive

    async def _listen_redis(self) -> None:
        import redis.asyncio

        assert self.redis_url is not None
        client = redis.asyncio.Redis.from_url(self.redis_url, socket_connect_timeout=5, health_check_interval=10)
        pubsub = client.pubsub()
        try:
            await pubsub.subscribe(CHANNEL)
            self._listening()
            while True:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=10.0)
                if message is None:
                    await pubsub.ping()
                    continue
                if message.get("type") == "message":
                    data = message["data"]
                    self._note(data.decode() if isinstance(data, bytes) else str(data))
        finally:
            with contextlib.suppress(Exception):
                await pubsub.aclose()  # type: ignore[no-untyped-call]  # redis' own annotation lacks a return
            with contextlib.suppress(Exception):
                await client.aclose()

    def _note(self, payload: str) -> None:
        """A note from the channel: ``id:seq`` of each match changed (comma-separated)."""
        for note in payload.split(","):
            match_text, _, seq_text = note.partition(":")
            try:
                match_id, seq = int(match_text), int(seq_text) if seq_text else None
            except ValueError:
                continue
            if self.on_note is not None:
                self.on_note(match_id, seq)
            feed = self.feeds.get(match_id)
            if feed is not None:
                feed.wake(seq)

    # -- this process's commits ----------------------------------------------------------------------
    def committed(self, match_id: int, rows: list[EventRow]) -> None:
        """A change committed here: its streams get the rows now; other servers a note (Redis)."""
        feed = self.feeds.get(match_id)
        if feed is not None:
            feed.push(rows)
        if self._publisher is not None and rows:
            task = asyncio.ensure_future(self._publish(f"{match_id}:{rows[-1].seq}"))
            self._publishing.add(task)
            task.add_done_callback(self._publishing.discard)

    async def _publish(self, note: str) -> None:
        try:
            await self._publisher.publish(CHANNEL, note)
        except Exception as error:  # noqa: BLE001 - the other servers catch up when their listener reconnects
            log.warning("redis publish failed: %s", error)
            self.problem = f"publish failed: {error}"

    # -- streams -------------------------------------------------------------------------------------
    @contextlib.contextmanager
    def watching(self, match_id: int) -> Iterator[tuple[Feed, asyncio.Queue[list[EventRow] | None]]]:
        """A queue that gets every new batch of the match's events (None: the stream must close)."""
        feed = self.feeds.get(match_id)
        if feed is None:
            feed = self.feeds[match_id] = Feed(match_id, self.read)
        queue: asyncio.Queue[list[EventRow] | None] = asyncio.Queue(STREAM_QUEUE)
        feed.queues.add(queue)
        try:
            yield feed, queue
        finally:
            feed.queues.discard(queue)
            if not feed.queues and self.feeds.get(match_id) is feed:
                del self.feeds[match_id]

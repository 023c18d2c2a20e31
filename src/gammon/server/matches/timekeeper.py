"""The timekeeper: ends what nobody else will, a match whose player's time ran out, an
invitation nobody answered, a match a person stopped playing (docs/server.md).

Every server process runs one; they may race to end the same match, and the match's version
check lets one of them do it. A player acting after their time ran out loses at that moment
too (:meth:`MatchService._act`), so the timekeeper only has to notice the ones who never come back.

Each look begins with the server's heartbeat (:meth:`MatchService.heartbeat`): the first after
an outage or a freeze takes the time nobody was served out of the running turns, and until it
is written no clock counts past the last one, so nobody is ended for time the server lost.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Awaitable, Callable

from ..errors import ServerError
from ..models import utcnow
from . import clock, store
from .service import MatchService

log = logging.getLogger("gammon.server")
TICK = 1.0  #: seconds between looks at the clocks
IDLE_TICKS = 60  #: looks at the clocks between looks for idle invitations and matches (at most)


class Timekeeper:
    """Ends matches out of time and idle ones (see the module)."""

    def __init__(self, service: MatchService, invitation_hours: float, idle_days: float) -> None:
        self.service = service
        self.invitation_age = dt.timedelta(hours=invitation_hours)
        self.idle_age = dt.timedelta(days=idle_days)
        shortest = min(self.invitation_age, self.idle_age).total_seconds()
        self.idle_every = max(1, min(IDLE_TICKS, int(shortest / 4 / TICK)))  # a few looks within the shortest age

    async def run(self) -> None:
        ticks = 0
        while True:
            looks: list[Callable[[], Awaitable[object]]] = [self.service.heartbeat, self.clocks]
            if ticks % self.idle_every == 0:
                looks.append(self.idle)
            for look in looks:
                try:
                    await look()
                except asyncio.CancelledError:
                    raise
                except Exception as error:  # noqa: BLE001 - a fault here must not take the server down
                    log.warning("timekeeper: %s", error)
            ticks += 1
            await asyncio.sleep(TICK)

    async def clocks(self) -> None:
        """End every match whose running player's time is up."""
        now = utcnow()
        rows = await self.service.readers.run(store.clocked)
        for row in rows:
            up = clock.deadline(row.clock, row.options["clock"]) if row.clock and row.options.get("clock") else None
            if up is not None and up < now:
                await self._end(self.service.time_out(row.id))

    async def idle(self) -> None:
        """Expire invitations and end matches nobody has touched for too long."""
        now = utcnow()
        invited, playing = now - self.invitation_age, now - self.idle_age
        for match_id in await self.service.readers.run(lambda connection: store.idle(connection, invited, playing)):
            await self._end(self.service.abandon(match_id, invited, playing))

    async def _end(self, change: Awaitable[object]) -> None:
        try:
            await change
        except ServerError as error:  # moved on meanwhile, or ended by another server: nothing to do
            log.info("timekeeper: %s", error)

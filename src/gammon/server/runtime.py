"""What a server process runs and its routes share, started and stopped with the app.

One database (a SQLAlchemy engine), its readers and its one writer; the accounts and the match service
over them; the broadcaster that feeds the event streams; the bots' seats and their worker
processes; the request jobs' and the analysts' processes (forked after the bots are prepared),
the replays and the analyses over them; the mailer when a relay is set; the play-by-mail doors. :meth:`Runtime.start`
brings them up in that order and :meth:`Runtime.stop` takes them down in reverse, within
the shutdown deadline whatever is open.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections import Counter
from typing import Any

from ..workers import Jobs, Workers, available_cores
from .accounts import Accounts, Passwords
from .analyses import Analyses
from .database import Readers, migrate, open_database
from .limits import Buckets
from .matches.live import LiveMatch
from .matches.service import MatchService, Policy, flush_notes
from .matches.store import EventRow
from .matches.timekeeper import Timekeeper
from .notify import Broadcaster
from .pbm.executor import report
from .pbm.line_server import serve_lines
from .pbm.mail import Mailer, Relay, serve_mail
from .replays import Replays
from .seats import BotSeats
from .settings import Settings
from .warmup import offered, prepare, prepare_worker
from .writer import Writer

log = logging.getLogger("gammon.server")
SWEEP_SECONDS = 600.0  #: how often expired log-ins, finished limit windows and unused commitments are cleared


class Runtime:
    """The parts of a running server (see the module)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.stopping = asyncio.Event()
        self.streams_by_address: Counter[str] = Counter()
        limits = settings.limits
        self.commands = Buckets(rate=limits.commands_per_address, burst=max(10, limits.commands_per_address / 4))
        self.tasks: set[asyncio.Task[Any]] = set()
        self.listeners: list[asyncio.AbstractServer] = []
        self.mailer: Any = None

    async def start(self) -> None:
        settings = self.settings
        limits = settings.limits
        self.database = open_database(settings.db_url)
        if settings.migrate:
            await asyncio.to_thread(migrate, self.database)
        self.readers = Readers(self.database, queue=limits.read_queue)
        self.writer = Writer(self.database, queue_limit=limits.write_queue, before_commit=flush_notes)
        self.writer.start()
        self.passwords = Passwords(limits.hash_workers, limits.hash_queue)
        self.accounts = Accounts(self.readers, self.writer, self.passwords, limits, settings.session_days,
                                 single_process=self.database.dialect.name == "sqlite")
        postgres = None
        dialect = self.database.dialect.name
        if dialect == "postgresql":
            postgres = self.database.url.set(drivername="postgresql").render_as_string(hide_password=False)
        policy = Policy(provisional_matches=limits.provisional_matches, pair_matches_per_day=limits.pair_matches_per_day,
                        challenges_per_hour=limits.challenges_per_user,
                        invitations_per_target=limits.invitations_per_target,
                        notify_postgres=dialect == "postgresql" and not settings.redis_url,
                        single_process=dialect == "sqlite")
        self.service = MatchService(self.readers, self.writer, policy, self._changed)
        self.broadcaster = Broadcaster(self._read_events, redis_url=settings.redis_url, postgres=postgres,
                                       on_note=self.service.forget)
        await self.broadcaster.start()
        bots = offered(settings.hint_player, settings.external_bots)
        await asyncio.to_thread(prepare, bots)  # before the workers fork, so they inherit it (see .warmup)
        bot_workers = settings.bot_workers or min(2, available_cores())
        self.workers = Workers(bot_workers, initializer=prepare_worker, initargs=(bots,))
        # what requests ask to be read, replayed or drawn, and the analyses: never on the event loop,
        # each job in a process killed at its budget (gammon.workers.Jobs)
        memory = limits.job_memory * 2**20
        self.jobs = Jobs(limits.job_workers or min(4, max(2, available_cores())), seconds=limits.job_seconds,
                         memory=memory, queue=limits.job_queue)
        at_once = limits.analyses_at_once or max(1, bot_workers // 2)
        self.analysts = Jobs(at_once, seconds=limits.analysis_seconds, memory=memory, queue=at_once)
        self.replays = Replays(self.readers, self.writer, self.jobs)
        self.seats = BotSeats(self.service, self.workers)
        self.seats.start()
        self.analyses = Analyses(self.readers, self.writer, self.analysts, self.jobs, self.replays, self.service,
                                 analyst=settings.analysis_player, per_hour=limits.analyses_per_user,
                                 waiting=limits.analyses_waiting, single_process=dialect == "sqlite")
        self.analyses.start()
        if settings.smtp_relay:
            self.mailer = Mailer(Relay.parse(settings.smtp_relay, settings.mail_from), self.readers,
                                 limits.mails_per_address, lambda live: report(self, live))
        self._spawn(self._sweep())
        # the time the server was down comes out of the running turns before anyone can act (.matches.clock)
        await self.service.heartbeat()
        self._spawn(Timekeeper(self.service, settings.invitation_hours, settings.idle_days).run())
        if settings.pbm_port is not None:
            self.listeners.append(await serve_lines(self, settings.host, settings.pbm_port,
                                                     shared=settings.workers > 1))
        if settings.smtp_port is not None and self.mailer is not None:
            self.listeners.append(await serve_mail(self, settings.host, settings.smtp_port,
                                                    shared=settings.workers > 1))

    async def stop(self) -> None:
        self.stopping.set()
        for listener in self.listeners:
            listener.close()
        for task in list(self.tasks):
            task.cancel()
        await self.seats.stop()
        await self.analyses.stop()
        await self.broadcaster.stop()
        if self.mailer is not None:
            await self.mailer.stop()
        await asyncio.to_thread(self.workers.close)
        await asyncio.to_thread(self.jobs.close)
        await asyncio.to_thread(self.analysts.close)
        await asyncio.to_thread(self.writer.stop)
        self.readers.close()
        self.passwords.close()
        self.database.dispose()

    # -- wiring ------------------------------------------------------------------------------------
    def _changed(self, live: LiveMatch, rows: list[dict[str, Any]]) -> None:
        """After every committed change of a match: its streams, its bots, its players' mail."""
        self.broadcaster.committed(live.info.id, [EventRow.of(row) for row in rows])
        self.seats.changed(live)
        if self.mailer is not None:
            self.mailer.changed(live)

    async def _read_events(self, match_id: int, after: int) -> list[EventRow]:
        return await self.service.events(match_id, after)

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _sweep(self) -> None:
        while True:
            with contextlib.suppress(Exception):
                await self.accounts.sweep()
            with contextlib.suppress(Exception):
                await self.service.sweep_commitments()
            await asyncio.sleep(SWEEP_SECONDS)

    @property
    def health(self) -> dict[str, Any]:
        notes = self.broadcaster.health
        degraded = not notes["listening"] or "problem" in notes
        return {"ok": True, "status": "degraded" if degraded else "ok", "events": notes,
                "writer": {"waiting": self.writer.waiting, "commits": self.writer.commits},
                "streams": sum(self.streams_by_address.values()), "process": os.getpid(),
                "database": self.database.dialect.name}

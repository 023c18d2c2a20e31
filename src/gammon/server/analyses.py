"""Analysis after the match: a finished match (or an uploaded ``.mat`` record) judged in the bots' worker pool.

The judging is ``gammon analyse``'s own (:func:`gammon.analysis.analyse` and its HTML report,
:func:`gammon.analysis.html.report`), run in a worker process as the bots' turns are
(:class:`gammon.workers.Workers`), by the operator's analyst (``GAMMON_ANALYSIS_PLAYER``, the
net at 0 ply by default: a match in seconds). A match has one analysis, whoever asks first;
asking again answers where it stands. Each person may ask for ``GAMMON_LIMIT_ANALYSES`` an
hour, counted in the database as log-ins are (:mod:`gammon.server.limits`); a failed analysis
is tried again when asked for again.

An analysis is a row that goes queued → running → done or failed, and its record is kept with
it, so nothing is lost when the server stops: a restarted server puts back in the queue what it
was running (a record that stopped its server twice is failed, not tried a third time), and an
analysis left running by a server that is gone (several share a PostgreSQL database) is put
back once it is older than :data:`STALE_SECONDS`, so none stays "running" forever.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import gzip
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, select

from ..analysis import AnalysisError, analyse
from ..analysis.html import report
from ..errors import GammonError
from ..position import Color
from ..record import MatchRecord
from ..record.fields import RecordError
from ..workers import Workers
from .database import Readers
from .errors import Conflict, NotFound, TooManyRequests, Unprocessable
from .limits import hit
from .matches.live import replay
from .matches.service import MatchService
from .models import ANALYSES, utcnow
from .writer import Writer

log = logging.getLogger("gammon.server")

QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
ATTEMPTS = 2  #: runs an analysis may start; one whose server stopped twice under it is failed
TIMEOUT_SECONDS = 900.0  #: an analysis that takes longer is failed (a 25-point match at 0 ply takes a minute)
STALE_SECONDS = 2 * TIMEOUT_SECONDS  #: running this long: the server running it is gone
SWEEP_SECONDS = 30.0  #: how often the queue is looked at without being told (another server's, stale ones)
MAX_RECORD = 64 * 1024  #: the largest ``.mat`` upload, in bytes (the server's body limit: a 25-point match is ~30 KiB)


@dataclass(frozen=True, slots=True)
class AnalysisInfo:
    """An analysis as stored: where it stands, and its results once done."""

    id: int
    match_id: int | None
    requested_by: int
    status: str
    analyst: str
    result: dict[str, Any] | None
    error: str | None

    def view(self) -> dict[str, Any]:
        """The answer of ``GET .../analysis``: the status, and when done the players and the decisions."""
        out: dict[str, Any] = {"id": self.id, "match": self.match_id, "status": self.status, "analyst": self.analyst}
        if self.status == FAILED:
            out["error"] = self.error
        if self.status == DONE and self.result is not None:
            out.update(self.result)
        return out


def _info(row: Any) -> AnalysisInfo:
    return AnalysisInfo(row.id, row.match_id, row.requested_by, row.status, row.analyst, row.result, row.error)


_COLUMNS = (ANALYSES.c.id, ANALYSES.c.match_id, ANALYSES.c.requested_by, ANALYSES.c.status, ANALYSES.c.analyst, ANALYSES.c.result,
            ANALYSES.c.error)


def _by_id(connection: Connection, analysis_id: int) -> AnalysisInfo | None:
    row = connection.execute(select(*_COLUMNS).where(ANALYSES.c.id == analysis_id)).first()
    return None if row is None else _info(row)


def _by_match(connection: Connection, match_id: int) -> AnalysisInfo | None:
    row = connection.execute(select(*_COLUMNS).where(ANALYSES.c.match_id == match_id)).first()
    return None if row is None else _info(row)


# -- in a worker ------------------------------------------------------------------------------------
def analysis_task(mat: str, analyst: str) -> tuple[dict[str, Any], bytes]:
    """In a worker: the record judged by ``analyst``, as the API's results and the HTML report (gzip: a
    7-point match's page is 6 MB of pictures, 300 KB packed, and sent packed to browsers)."""
    record = MatchRecord.from_mat(mat)
    analysis = analyse(record, analyst, workers=1)
    players = []
    for color in (Color.WHITE, Color.BLACK):
        summary = analysis.players[color]
        marks = [d.mark for d in analysis.decisions if d.color == color and not d.forced]
        players.append({
            "name": summary.name, "color": color.name.lower(),
            "error_rate": round(summary.error_rate, 1), "rating_ladder": summary.rating,
            "errors": marks.count("error"), "blunders": marks.count("blunder"), "doubtful": marks.count("doubtful"),
            "checker_decisions": summary.checker_decisions, "checker_error_rate": round(summary.checker_error_rate, 1),
            "cube_decisions": summary.cube_decisions, "cube_error_rate": round(summary.cube_error_rate, 1),
            "luck": round(summary.luck, 3), "result": round(summary.result, 3),
            "luck_adjusted": round(summary.luck_adjusted, 3),
        })
    decisions = []
    for decision in analysis.decisions:
        if decision.forced:
            continue
        decisions.append({
            "game": decision.game, "move": decision.move, "player": decision.player,
            "color": decision.color.name.lower(), "kind": decision.kind, "error": round(decision.error, 4),
            "mark": decision.mark, "played": decision.played, "best": decision.best,
            "dice": list(decision.state.dice) if decision.kind == "checker" and decision.state.dice else None,
            "options": [{"play": text, "equity": round(equity, 4)} for text, equity in decision.options],
            "xgid": decision.state.xgid(),
        })
    result = {"length": record.length, "units": "mEMG per decision", "players": players, "decisions": decisions}
    return result, gzip.compress(report(analysis).encode("utf-8"), 6, mtime=0)


# -- the service ------------------------------------------------------------------------------------
class Analyses:
    """Takes analyses, keeps them in the database, and runs them one at a time in the worker pool."""

    def __init__(self, readers: Readers, writer: Writer, workers: Workers, matches: MatchService, *,
                 analyst: str, per_hour: int, single_process: bool) -> None:
        self.readers, self.writer, self.workers, self.matches = readers, writer, workers, matches
        self.analyst, self.per_hour, self.single_process = analyst, per_hour, single_process
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None

    # -- asking ------------------------------------------------------------------------------------
    async def of_match(self, user_id: int, match_id: int) -> tuple[AnalysisInfo, bool]:
        """The analysis of a finished match, asked for now if it has none (or it failed); and whether
        it was queued now."""
        found = await self.readers.run(lambda connection: _by_match(connection, match_id))
        if found is not None and found.status != FAILED:
            return found, False
        live = await self.matches.current(match_id)
        info = live.info
        if info.status != "finished":
            raise Unprocessable(f"match {match_id} is {info.status}: a match is analysed once it is finished")
        rows = await self.matches.events(match_id, -1, info.next_seq)
        mat = MatchRecord.from_match(replay(info, rows), white=info.white.name, black=info.black.name).mat()
        return await self._queue(user_id, mat, match_id)

    async def upload(self, user_id: int, mat: str) -> AnalysisInfo:
        """An uploaded ``.mat`` record, read and replayed now (422 naming what is wrong), then queued."""
        if len(mat.encode("utf-8")) > MAX_RECORD:
            raise Unprocessable(f"record: over {MAX_RECORD // 1024} KiB")
        try:
            record = await asyncio.to_thread(MatchRecord.from_mat, mat)
        except (GammonError, ValueError) as error:  # RecordError names the line, or the game and move
            raise Unprocessable(f"record: {error}") from None
        if not any(game.actions for game in record.games):
            raise Unprocessable("record: it has no moves to judge")
        created, _ = await self._queue(user_id, mat, None)
        return created

    async def _queue(self, user_id: int, mat: str, match_id: int | None) -> tuple[AnalysisInfo, bool]:
        limit = self.per_hour

        def work(connection: Connection) -> tuple[AnalysisInfo, bool]:
            found = None if match_id is None else _by_match(connection, match_id)
            if found is not None and found.status != FAILED:
                return found, False  # asked meanwhile: that one
            count, wait = hit(connection, f"analysis:{user_id}", 3600)
            if count > limit:
                raise TooManyRequests(f"at most {limit} analyses an hour: try again in {int(wait // 60) + 1} minutes",
                                      retry_after=wait)
            if found is not None:  # failed before: tried again, by today's analyst
                connection.execute(ANALYSES.update().where(ANALYSES.c.id == found.id).values(
                    status=QUEUED, analyst=self.analyst, requested_by=user_id, result=None, html=None, error=None,
                    attempts=0, started=None, finished=None))
                return AnalysisInfo(found.id, match_id, user_id, QUEUED, self.analyst, None, None), True
            made = connection.execute(ANALYSES.insert().values(
                match_id=match_id, requested_by=user_id, status=QUEUED, analyst=self.analyst, record=mat,
                attempts=0, created=utcnow()).returning(ANALYSES.c.id)).scalar_one()
            return AnalysisInfo(made, match_id, user_id, QUEUED, self.analyst, None, None), True

        answer = await self.writer.run(work)
        if answer[1]:
            self._wake.set()
        return answer

    # -- reading -----------------------------------------------------------------------------------
    async def get(self, analysis_id: int) -> AnalysisInfo:
        found = await self.readers.run(lambda connection: _by_id(connection, analysis_id))
        if found is None:
            raise NotFound(f"no analysis {analysis_id}")
        return found

    async def get_for_match(self, match_id: int) -> AnalysisInfo:
        found = await self.readers.run(lambda connection: _by_match(connection, match_id))
        if found is None:
            raise NotFound(f"match {match_id} has not been analysed: POST /api/matches/{match_id}/analysis asks for it")
        return found

    async def html(self, info: AnalysisInfo) -> bytes:
        """The report of a finished analysis, gzip-compressed (409 while it is not done)."""
        if info.status != DONE:
            what = f"match {info.match_id}" if info.match_id is not None else f"record {info.id}"
            raise Conflict(f"the analysis of {what} is {info.status}" +
                           (": ask again when it is done" if info.status in (QUEUED, RUNNING) else ""))
        packed: bytes = await self.readers.run(lambda connection: connection.execute(
            select(ANALYSES.c.html).where(ANALYSES.c.id == info.id)).scalar_one())
        return packed

    # -- running -----------------------------------------------------------------------------------
    async def _run(self) -> None:
        await self._recover(everything=self.single_process)  # one process: all that ran was ours
        while True:
            try:
                claimed = await self.writer.run(_claim)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001 - a busy database: look again later
                log.warning("analysis queue not read: %s", error)
                claimed = None
            if claimed is not None:
                await self._judge(*claimed)
                continue
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), SWEEP_SECONDS)
            await self._recover(everything=False)

    async def _recover(self, *, everything: bool) -> None:
        """Put back in the queue what a stopped server left running (see the module)."""
        cutoff = utcnow() - dt.timedelta(seconds=0 if everything else STALE_SECONDS)

        def work(connection: Connection) -> int:
            stale = ANALYSES.c.status == RUNNING
            if not everything:
                stale = stale & (ANALYSES.c.started < cutoff)
            failed = connection.execute(ANALYSES.update().where(stale & (ANALYSES.c.attempts >= ATTEMPTS)).values(
                status=FAILED, finished=utcnow(),
                error=f"the server stopped during the analysis, {ATTEMPTS} times: it is not tried again")).rowcount
            again = connection.execute(ANALYSES.update().where(stale).values(status=QUEUED)).rowcount
            return int(failed or 0) + int(again or 0)

        try:
            if await self.writer.run(work):
                log.info("analyses left running by a stopped server: queued again or failed")
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 - tried again at the next sweep
            log.warning("analyses not recovered: %s", error)

    async def _judge(self, analysis_id: int, mat: str, analyst: str) -> None:
        try:
            future = self.workers.submit(analysis_task, mat, analyst)
            result, html = await asyncio.wait_for(asyncio.wrap_future(future), TIMEOUT_SECONDS)
        except asyncio.CancelledError:
            raise  # the server stops: the next start queues it again
        except TimeoutError:
            await self._finish(analysis_id, FAILED, error=f"it took longer than {TIMEOUT_SECONDS:.0f} s")
        except (AnalysisError, RecordError) as error:
            await self._finish(analysis_id, FAILED, error=str(error))
        except Exception as error:  # noqa: BLE001 - a failing analyst must not stop the queue
            log.warning("analysis %d failed: %s", analysis_id, error)
            await self._finish(analysis_id, FAILED, error=f"the analyst failed: {error}")
        else:
            await self._finish(analysis_id, DONE, result=result, html=html)

    async def _finish(self, analysis_id: int, status: str, *, result: dict[str, Any] | None = None,
                      html: bytes | None = None, error: str | None = None) -> None:
        def work(connection: Connection) -> None:
            connection.execute(ANALYSES.update().where((ANALYSES.c.id == analysis_id) & (ANALYSES.c.status == RUNNING))
                               .values(status=status, result=result, html=html, error=error, finished=utcnow()))

        try:
            await self.writer.run(work)
        except asyncio.CancelledError:
            raise
        except Exception as problem:  # noqa: BLE001 - left running: recovered as a stale one
            log.warning("analysis %d not saved: %s", analysis_id, problem)


def _claim(connection: Connection) -> tuple[int, str, str] | None:
    """The oldest queued analysis, marked running by this server (another server claims another)."""
    row = connection.execute(select(ANALYSES.c.id, ANALYSES.c.record, ANALYSES.c.analyst)
                             .where(ANALYSES.c.status == QUEUED).order_by(ANALYSES.c.id).limit(1)).first()
    if row is None:
        return None
    claimed = connection.execute(ANALYSES.update().where((ANALYSES.c.id == row.id) & (ANALYSES.c.status == QUEUED))
                                 .values(status=RUNNING, started=utcnow(), attempts=ANALYSES.c.attempts + 1)).rowcount
    return (int(row.id), str(row.record), str(row.analyst)) if claimed else None

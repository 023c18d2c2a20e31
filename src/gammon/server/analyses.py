"""Analysis after the match: a finished match (or an uploaded ``.mat`` record) judged in a process of its own.

The judging is ``gammon analyse``'s own (:func:`gammon.analysis.analyse` and its HTML report,
:func:`gammon.analysis.html.report`), by the operator's analyst (``GAMMON_ANALYSIS_PLAYER``, the
net at 0 ply by default: a match in seconds), in the analysts' processes
(:class:`gammon.workers.Jobs`, ``GAMMON_LIMIT_ANALYSES_AT_ONCE`` of them): one that runs past
``GAMMON_LIMIT_ANALYSIS_SECONDS`` or its memory budget has its process killed (and replaced)
and fails. A match has one analysis, whoever asks first; asking again answers where it stands.

Limits come before any work: a person may have ``GAMMON_LIMIT_ANALYSES_WAITING`` analyses
queued or running, and ask for ``GAMMON_LIMIT_ANALYSES`` an hour (counted in the database as
log-ins are, :mod:`gammon.server.limits`); an upload is counted before it is read, and read in
a request job (:class:`~gammon.workers.Jobs`: its time and memory budget, 422 past them). A
failed analysis is tried again when asked for again. The queue is fair: the next analysis is
the oldest of the person served least recently (round robin), so a few people asking for many
wait behind everyone else's one.

An analysis is a row that goes queued → running → done or failed, and its record is kept with
it, so nothing is lost when the server stops. The row names the server process running it
(:func:`this_process`: host, boot, process and its start), so a restarted server puts back at
once what a server on its machine that is gone left running (a record that stopped its server
twice is failed, not tried a third time); one left by another machine's server (several share
a PostgreSQL database) is put back once it is older than twice the time budget, so none stays
"running" for ever. Results that cannot be saved fail the analysis, saying so.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import gzip
import json
import logging
import os
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, func, select

from ..analysis import AnalysisError, analyse
from ..analysis.html import report
from ..errors import GammonError
from ..position import Color
from ..record import MatchRecord
from ..record.fields import RecordError
from ..workers import JobError, JobMemoryError, Jobs, JobsBusy, JobTimeout
from .database import Readers
from .errors import Conflict, NotFound, TooManyRequests, Unavailable, Unprocessable
from .limits import hit
from .matches.service import MatchService
from .models import ANALYSES, utcnow
from .replays import Kept, Replays
from .writer import Writer

log = logging.getLogger("gammon.server")

QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
ATTEMPTS = 2  #: runs an analysis may start; one whose server stopped twice under it is failed
SWEEP_SECONDS = 30.0  #: how often the queue is looked at without being told (another server's, stale ones)
MAX_RECORD = 64 * 1024  #: the largest ``.mat`` upload, in bytes (the server's body limit: a 25-point match is ~30 KiB)


@dataclass(frozen=True, slots=True)
class AnalysisInfo:
    """An analysis as stored: where it stands (its results, which may be large, are read apart:
    :meth:`Analyses.answer`)."""

    id: int
    match_id: int | None
    requested_by: int
    status: str
    analyst: str
    error: str | None
    finished: dt.datetime | None = None

    def view(self, result: dict[str, Any] | None = None) -> dict[str, Any]:
        """The answer of ``GET .../analysis``: the status, and when done the players and the decisions."""
        out: dict[str, Any] = {"id": self.id, "match": self.match_id, "status": self.status, "analyst": self.analyst}
        if self.status == FAILED:
            out["error"] = self.error
        if self.status == DONE and result is not None:
            out.update(result)
        return out


def _info(row: Any) -> AnalysisInfo:
    return AnalysisInfo(row.id, row.match_id, row.requested_by, row.status, row.analyst, row.error, row.finished)


_COLUMNS = (ANALYSES.c.id, ANALYSES.c.match_id, ANALYSES.c.requested_by, ANALYSES.c.status, ANALYSES.c.analyst,
            ANALYSES.c.error, ANALYSES.c.finished)
KEPT_BYTES = 64 * 2**20  #: finished analyses' answers and reports kept per process (a long match's report is ~2 MB)


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


def upload_task(mat: str) -> int:
    """In a request job: an uploaded record read and replayed (its errors name the line, or the
    game and move); how many actions it has to judge."""
    return sum(len(game.actions) for game in MatchRecord.from_mat(mat).games)


# -- who runs an analysis ---------------------------------------------------------------------------
@cache
def _boot() -> str:
    """This machine's boot (Linux: a new one each time it starts), or nothing where it has none."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text(encoding="ascii").strip()
    except OSError:  # pragma: no cover - not Linux
        return ""


def _started(pid: int) -> str | None:
    """When process ``pid`` started (clock ticks since boot, Linux), "" where that is not known,
    None when there is no such process."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace").rsplit(")", 1)[-1].split()
        return fields[19] if len(fields) > 19 else ""
    except OSError:
        if Path("/proc/self/stat").exists():
            return None  # Linux: no such process
    try:  # pragma: no cover - not Linux
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except OSError:
        pass  # there, and not ours to signal
    return ""


def this_process() -> str:
    """What an analysis records of the server running it: host, boot, process and its start
    (a process number is used again; with its start time it is not)."""
    pid = os.getpid()
    return f"{socket.gethostname()[:100]}/{_boot()}/{pid}/{_started(pid) or ''}"


def gone(runner: str) -> bool:
    """Whether ``runner`` (:func:`this_process`) was a server process on this machine that no
    longer runs (killed, or stopped and started again). Another machine's cannot be known: False."""
    host, _, rest = runner.partition("/")
    boot, _, rest = rest.partition("/")
    pid, _, started = rest.partition("/")
    if host != socket.gethostname()[:100] or not pid.isdigit():
        return False
    if boot != _boot():
        return True  # the machine started again since
    now = _started(int(pid))
    return now is None or (bool(started) and bool(now) and now != started)


# -- the service ------------------------------------------------------------------------------------
class Analyses:
    """Takes analyses, keeps them in the database, and runs them, fairly, in the analysts' processes."""

    def __init__(self, readers: Readers, writer: Writer, analysts: Jobs, jobs: Jobs, replays: Replays,
                 matches: MatchService, *, analyst: str, per_hour: int, waiting: int, single_process: bool) -> None:
        self.readers, self.writer, self.analysts, self.jobs = readers, writer, analysts, jobs
        self.replays, self.matches = replays, matches
        self.analyst, self.per_hour, self.waiting, self.single_process = analyst, per_hour, waiting, single_process
        self.runner = this_process()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._running: set[asyncio.Task[None]] = set()
        self._unsaved: dict[int, str] = {}  # analyses whose end could not be written yet: why they failed
        self._kept: Kept[tuple[str, int, dt.datetime | None], bytes] = Kept(KEPT_BYTES)

    @property
    def seconds(self) -> float:
        """An analysis's time budget."""
        return self.analysts.seconds

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        """Stop taking analyses, and kill those running (the next start puts them back in the queue)."""
        tasks = ([self._task] if self._task is not None else []) + list(self._running)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
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
        await self.readers.run(lambda connection: self._admit(connection, user_id, spend=False))
        mat = await self.replays.record(live)  # made once, away from the event loop
        return await self._queue(user_id, mat, match_id)

    async def upload(self, user_id: int, mat: str) -> AnalysisInfo:
        """An uploaded ``.mat`` record: counted against the person's limits, then read and replayed
        in a request job (422 naming what is wrong, or the budget it ran past), then queued."""
        if len(mat.encode("utf-8")) > MAX_RECORD:
            raise Unprocessable(f"record: over {MAX_RECORD // 1024} KiB")
        await self.writer.run(lambda connection: self._admit(connection, user_id, spend=True))
        try:
            actions = await self.jobs.run(upload_task, mat)
        except JobsBusy:
            raise Unavailable("the server is busy: try again in a moment") from None
        except JobTimeout as error:
            raise Unprocessable(f"record: {error} to read") from None
        except JobMemoryError as error:
            raise Unprocessable(f"record: {error} to read") from None
        except JobError as error:
            log.warning("an upload's reader failed: %s", error)
            raise Unavailable(f"record: not read ({error}): try again later") from None
        except (GammonError, ValueError) as error:  # RecordError names the line, or the game and move
            raise Unprocessable(f"record: {error}") from None
        if not actions:
            raise Unprocessable("record: it has no moves to judge")
        created, _ = await self._queue(user_id, mat, None, spent=True)
        return created

    def _admit(self, connection: Connection, user_id: int, *, spend: bool) -> None:
        """Refuse (429) a person with ``waiting`` analyses queued or running, or (``spend``: counting
        this one) over ``per_hour`` asked for in the hour."""
        open_ = connection.execute(select(func.count()).select_from(ANALYSES).where(
            (ANALYSES.c.requested_by == user_id) & ANALYSES.c.status.in_((QUEUED, RUNNING)))).scalar_one()
        if open_ >= self.waiting:
            raise TooManyRequests(f"at most {self.waiting} analyses of yours queued or running at once: ask again "
                                  "when one is done", retry_after=SWEEP_SECONDS)
        if spend:
            count, wait = hit(connection, f"analysis:{user_id}", 3600)
            if count > self.per_hour:
                raise TooManyRequests(f"at most {self.per_hour} analyses an hour: try again in "
                                      f"{int(wait // 60) + 1} minutes", retry_after=wait)

    async def _queue(self, user_id: int, mat: str, match_id: int | None, *,
                     spent: bool = False) -> tuple[AnalysisInfo, bool]:
        def work(connection: Connection) -> tuple[AnalysisInfo, bool]:
            found = None if match_id is None else _by_match(connection, match_id)
            if found is not None and found.status != FAILED:
                return found, False  # asked meanwhile: that one
            self._admit(connection, user_id, spend=not spent)
            if found is not None:  # failed before: tried again, by today's analyst
                connection.execute(ANALYSES.update().where(ANALYSES.c.id == found.id).values(
                    status=QUEUED, analyst=self.analyst, requested_by=user_id, result=None, html=None, error=None,
                    attempts=0, started=None, finished=None, runner=None))
                return AnalysisInfo(found.id, match_id, user_id, QUEUED, self.analyst, None), True
            made = connection.execute(ANALYSES.insert().values(
                match_id=match_id, requested_by=user_id, status=QUEUED, analyst=self.analyst, record=mat,
                attempts=0, created=utcnow()).returning(ANALYSES.c.id)).scalar_one()
            return AnalysisInfo(made, match_id, user_id, QUEUED, self.analyst, None), True

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

    async def answer(self, info: AnalysisInfo) -> bytes:
        """:meth:`AnalysisInfo.view` as JSON; a finished one's (a long match's decisions are a
        megabyte) read and written once per process."""
        if info.status != DONE:
            return _json(info.view())
        key = ("answer", info.id, info.finished)  # an analysis done again (after it failed) ends at another time
        kept = self._kept.get(key)
        if kept is None:
            result = await self.readers.run(lambda connection: connection.execute(
                select(ANALYSES.c.result).where(ANALYSES.c.id == info.id)).scalar_one())
            kept = _json(info.view(result))
            self._kept.put(key, kept)
        return kept

    async def html(self, info: AnalysisInfo) -> bytes:
        """The report of a finished analysis, gzip-compressed (409 while it is not done)."""
        if info.status != DONE:
            what = f"match {info.match_id}" if info.match_id is not None else f"record {info.id}"
            raise Conflict(f"the analysis of {what} is {info.status}" +
                           (": ask again when it is done" if info.status in (QUEUED, RUNNING) else ""))
        key = ("page", info.id, info.finished)
        kept = self._kept.get(key)
        if kept is None:
            kept = await self.readers.run(lambda connection: bytes(connection.execute(
                select(ANALYSES.c.html).where(ANALYSES.c.id == info.id)).scalar_one()))
            self._kept.put(key, kept)
        return kept

    # -- running -----------------------------------------------------------------------------------
    async def _run(self) -> None:
        await self._recover(everything=self.single_process)  # one process: all that ran was ours
        swept = time.monotonic()
        while True:
            self._wake.clear()
            await self._fill()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), SWEEP_SECONDS)
            if time.monotonic() - swept >= SWEEP_SECONDS:
                swept = time.monotonic()
                await self._recover(everything=False)
                await self._settle_unsaved()

    async def _fill(self) -> None:
        """Start queued analyses, fairly (:func:`_claim`), while an analyst is free."""
        while len(self._running) < self.analysts.count:
            try:
                claimed = await self.writer.run(lambda connection: _claim(connection, self.runner))
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001 - a busy database: look again later
                log.warning("analysis queue not read: %s", error)
                return
            if claimed is None:
                return
            task = asyncio.create_task(self._judge(*claimed))
            self._running.add(task)
            task.add_done_callback(self._judged)

    def _judged(self, task: asyncio.Task[None]) -> None:
        self._running.discard(task)
        self._wake.set()  # an analyst is free

    async def _recover(self, *, everything: bool) -> None:
        """Put back in the queue (or fail, under the attempts rule) what a server that is gone left
        running: one of this machine at once, another machine's once stale (see the module)."""
        cutoff = utcnow() - dt.timedelta(seconds=2 * self.seconds)

        def work(connection: Connection) -> int:
            rows = connection.execute(select(ANALYSES.c.id, ANALYSES.c.runner, ANALYSES.c.started)
                                      .where(ANALYSES.c.status == RUNNING)).all()
            left = [row.id for row in rows
                    if row.id not in self._unsaved and row.runner != self.runner
                    and (everything or (row.runner is not None and gone(row.runner))
                         or row.started is None or row.started < cutoff)]
            if not left:
                return 0
            mine = ANALYSES.c.id.in_(left) & (ANALYSES.c.status == RUNNING)
            failed = connection.execute(ANALYSES.update().where(mine & (ANALYSES.c.attempts >= ATTEMPTS)).values(
                status=FAILED, finished=utcnow(), runner=None,
                error=f"the server stopped during the analysis, {ATTEMPTS} times: it is not tried again")).rowcount
            again = connection.execute(ANALYSES.update().where(mine).values(status=QUEUED, runner=None)).rowcount
            return int(failed or 0) + int(again or 0)

        try:
            if await self.writer.run(work):
                log.info("analyses left running by a stopped server: queued again or failed")
                self._wake.set()
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 - tried again at the next sweep
            log.warning("analyses not recovered: %s", error)

    async def _judge(self, analysis_id: int, mat: str, analyst: str) -> None:
        try:
            result, html = await self.analysts.run(analysis_task, mat, analyst)
        except asyncio.CancelledError:
            raise  # the server stops (its process is killed): the next start queues it again
        except JobTimeout:
            await self._finish(analysis_id, FAILED, error=f"it took longer than {self.seconds:g} s")
        except JobMemoryError as error:
            await self._finish(analysis_id, FAILED, error=f"it {error}")
        except (AnalysisError, RecordError) as error:
            await self._finish(analysis_id, FAILED, error=str(error))
        except Exception as error:  # noqa: BLE001 - a failing analyst must not stop the queue
            log.warning("analysis %d failed: %s", analysis_id, error)
            await self._finish(analysis_id, FAILED, error=f"the analyst failed: {error}")
        else:
            await self._finish(analysis_id, DONE, result=result, html=html)

    async def _finish(self, analysis_id: int, status: str, *, result: dict[str, Any] | None = None,
                      html: bytes | None = None, error: str | None = None) -> None:
        """Write how an analysis ended; results that cannot be written fail it, saying so, and a
        failure that cannot be written either is written at the next sweeps."""
        try:
            await self.writer.run(_ending(analysis_id, status, result, html, error))
            return
        except asyncio.CancelledError:
            raise
        except Exception as problem:  # noqa: BLE001 - the database refused it, or is down
            log.warning("analysis %d not saved: %s", analysis_id, problem)
            why = f"its results could not be saved: {str(problem).splitlines()[0][:300]}" if status == DONE else error
        self._unsaved[analysis_id] = why or "it could not be saved"
        await self._settle_unsaved()

    async def _settle_unsaved(self) -> None:
        for analysis_id, why in list(self._unsaved.items()):
            try:
                await self.writer.run(_ending(analysis_id, FAILED, None, None, why))
            except asyncio.CancelledError:
                raise
            except Exception as problem:  # noqa: BLE001 - tried again at the next sweep
                log.warning("analysis %d still not saved: %s", analysis_id, problem)
                continue
            self._unsaved.pop(analysis_id, None)


def _json(view: dict[str, Any]) -> bytes:
    """An answer as the API writes JSON (as FastAPI's ``JSONResponse`` does)."""
    return json.dumps(view, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")


def _ending(analysis_id: int, status: str, result: dict[str, Any] | None, html: bytes | None,
            error: str | None) -> Callable[[Connection], None]:
    """The writer's work that ends a running analysis."""
    def work(connection: Connection) -> None:
        connection.execute(ANALYSES.update().where((ANALYSES.c.id == analysis_id) & (ANALYSES.c.status == RUNNING))
                           .values(status=status, result=result, html=html, error=error, finished=utcnow()))

    return work


def _claim(connection: Connection, runner: str) -> tuple[int, str, str] | None:
    """The next queued analysis, marked running by ``runner``: round robin between the people
    waiting (those with fewest running first, then whoever was served least recently, then the
    oldest); another server claims another."""
    theirs = ANALYSES.alias("theirs")
    same = theirs.c.requested_by == ANALYSES.c.requested_by
    running = select(func.count()).select_from(theirs).where(same & (theirs.c.status == RUNNING)).scalar_subquery()
    served = select(func.max(theirs.c.started)).where(same).scalar_subquery()
    row = connection.execute(select(ANALYSES.c.id, ANALYSES.c.record, ANALYSES.c.analyst)
                             .where(ANALYSES.c.status == QUEUED)
                             .order_by(running, served.asc().nulls_first(), ANALYSES.c.id).limit(1)).first()
    if row is None:
        return None
    claimed = connection.execute(ANALYSES.update().where((ANALYSES.c.id == row.id) & (ANALYSES.c.status == QUEUED))
                                 .values(status=RUNNING, started=utcnow(), attempts=ANALYSES.c.attempts + 1,
                                         runner=runner)).rowcount
    return (int(row.id), str(row.record), str(row.analyst)) if claimed else None

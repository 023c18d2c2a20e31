"""The one writer of a server process: every write to the database goes through it.

A request hands its write (a function of a connection) to :meth:`Writer.run` and awaits it;
the request holds no thread and no lock meanwhile, so no burst of requests can park every
worker on something that only another worker could release. The writer's own thread takes
the writes waiting, runs them in one transaction (each in a savepoint of its own, so one
refused write does not undo the others), commits, and only then answers each: nothing is
acknowledged before it is durable. A write that fails, or a commit that fails (a full disk),
is answered with its error and changed nothing. Writes waiting together share one commit,
which is what makes many small writes fast on both SQLite and PostgreSQL.

After the commit, each write's ``on_commit`` runs on the event loop, before its request is
answered: that is where the in-memory matches are updated and the news is published, so
nothing in memory ever shows what the database does not hold.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import DBAPIError

from .database import WRITE
from .errors import ServerError, Unavailable

log = logging.getLogger("gammon.server")
T = TypeVar("T")
BATCH = 64  #: writes sharing one transaction at most
RETRIES = 3  #: times a write that lost a deadlock to another server is tried again
_RETRY_STATES = ("40P01", "40001")  # PostgreSQL: deadlock detected, serialization failure
_STOP = object()


@dataclass
class _Job(Generic[T]):
    work: Callable[[Connection], T]
    future: asyncio.Future[T]
    on_commit: Callable[[T], None] | None
    isolated: bool = True
    attempts: int = 0


class Writer:
    """Runs writes one transaction a batch on its own thread (see the module)."""

    def __init__(self, engine: Engine, *, queue_limit: int = 2000, batch: int = BATCH,
                 before_commit: Callable[[Connection], None] | None = None) -> None:
        self.engine, self.queue_limit, self.batch = engine, queue_limit, batch
        self.before_commit = before_commit  #: runs last in every batch's transaction (the notes for other servers)
        self._queue: queue.Queue[Any] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._connection: Connection | None = None
        self.commits = 0  #: transactions committed (a batch each)
        self.writes = 0  #: writes committed

    @property
    def waiting(self) -> int:
        """Writes waiting for the writer's thread."""
        return self._queue.qsize()

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._thread = threading.Thread(target=self._serve, name="gammon-writer", daemon=True)
        self._thread.start()

    async def run(self, work: Callable[[Connection], T], on_commit: Callable[[T], None] | None = None, *,
                  isolated: bool = True) -> T:
        """Run ``work(connection)`` in the writer's transaction; its result once committed.

        ``work`` raises a :class:`ServerError` to refuse (its writes are undone); ``on_commit``
        runs on the event loop after the commit, even if the caller has stopped waiting.
        ``isolated`` False: the work refuses only before it writes anything (a version check
        first), so it needs no savepoint of its own; a database error in it fails its batch.
        """
        if self._thread is None or self._loop is None:
            raise Unavailable("the server is starting or stopping: try again in a moment")
        if self._queue.qsize() >= self.queue_limit:
            raise Unavailable("the server is busy: try again in a moment")
        future: asyncio.Future[T] = self._loop.create_future()
        future.add_done_callback(_retrieved)  # a caller that stopped waiting leaves no unread error behind
        self._queue.put(_Job(work, future, on_commit, isolated))
        return await asyncio.shield(future)

    def stop(self) -> None:
        """Finish the writes already taken, then stop (from the event loop's thread)."""
        if self._thread is not None:
            self._queue.put(_STOP)
            self._thread.join(30)
            self._thread = None

    # -- the writer's thread ----------------------------------------------------------------
    def _serve(self) -> None:
        while True:
            first = self._queue.get()
            if first is _STOP:
                break
            batch = [first]
            stop = False
            while len(batch) < self.batch:
                try:
                    job = self._queue.get_nowait()
                except queue.Empty:
                    break
                if job is _STOP:
                    stop = True
                    break
                batch.append(job)
            self._write(batch)
            if stop:
                break
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _connect(self) -> Connection:
        if self._connection is None or self._connection.invalidated or self._connection.closed:
            if self._connection is not None:
                self._connection.close()
            self._connection = self.engine.connect().execution_options(**{WRITE: True})
        return self._connection

    def _write(self, batch: list[_Job[Any]]) -> None:
        outcomes: list[tuple[_Job[Any], Any, BaseException | None]] = []
        retry: list[_Job[Any]] = []
        try:
            connection = self._connect()
            with connection.begin():
                for job in batch:
                    try:
                        if len(batch) > 1 and job.isolated:
                            with connection.begin_nested():
                                result = job.work(connection)
                        else:
                            result = job.work(connection)
                    except ServerError as error:
                        if len(batch) == 1:
                            raise
                        outcomes.append((job, None, error))
                    except DBAPIError as error:
                        if len(batch) == 1:
                            raise
                        if not job.isolated:  # without a savepoint the transaction cannot go on
                            raise _Spoiled(job, error) from error
                        if _retryable(error) and job.attempts < RETRIES:
                            job.attempts += 1
                            retry.append(job)
                        else:
                            outcomes.append((job, None, _unsaved(error)))
                    else:
                        outcomes.append((job, result, None))
                if self.before_commit is not None:
                    self.before_commit(connection)
        except ServerError as error:  # the only write of the batch refused: its transaction is undone
            outcomes = [(batch[0], None, error)]
        except _Spoiled as spoiled:  # one write broke the batch: it is refused, the others are tried again
            outcomes = [(spoiled.job, None, _unsaved(spoiled.error))]
            retry = [job for job in batch if job is not spoiled.job]
            self._drop_connection()
        except DBAPIError as error:  # the commit (or the lone write) failed: nothing of the batch was saved
            if len(batch) == 1 and _retryable(error) and batch[0].attempts < RETRIES:
                batch[0].attempts += 1
                retry = [batch[0]]
                outcomes = []
            else:
                problem = _unsaved(error)
                outcomes = [(job, None, problem) for job in batch if job not in retry]
            self._drop_connection()
        except Exception:  # a bug in one write must not stop the writer
            log.exception("a batch of writes failed")
            outcomes = [(job, None, Unavailable("the server could not save this: nothing was changed"))
                        for job in batch]
            self._drop_connection()
        else:
            self.commits += 1
            self.writes += sum(1 for _, _, error in outcomes if error is None)
        for job in retry:
            self._queue.put(job)
        if outcomes and self._loop is not None:
            try:
                self._loop.call_soon_threadsafe(_deliver, outcomes)
            except RuntimeError:  # the loop has closed: nobody is waiting any more
                pass

    def _drop_connection(self) -> None:
        if self._connection is not None:
            try:
                self._connection.invalidate()
                self._connection.close()
            except Exception:  # noqa: BLE001 - the connection is gone already
                pass
            self._connection = None


class _Spoiled(Exception):
    """A write without a savepoint failed in the database, taking its batch's transaction with it."""

    def __init__(self, job: _Job[Any], error: DBAPIError) -> None:
        super().__init__(str(error))
        self.job, self.error = job, error

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.job, self.error))


def _retryable(error: DBAPIError) -> bool:
    return getattr(error.orig, "sqlstate", None) in _RETRY_STATES


def _unsaved(error: DBAPIError) -> Unavailable:
    log.warning("a write was not saved: %s", str(error.orig if error.orig is not None else error).splitlines()[0])
    return Unavailable("the database could not save this (nothing was changed): try again in a moment")


def _retrieved(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


def _deliver(outcomes: list[tuple[_Job[Any], Any, BaseException | None]]) -> None:
    """On the event loop: run each committed write's ``on_commit``, then answer its request."""
    for job, result, error in outcomes:
        if error is None and job.on_commit is not None:
            try:
                job.on_commit(result)
            except Exception:
                log.exception("after a commit")
        if job.future.done():
            continue
        if error is not None:
            job.future.set_exception(error)
        else:
            job.future.set_result(result)

"""The database: where it is (SQLite in the user's data folder by default, PostgreSQL by URL),
its schema (Alembic migrations, applied under a lock so any number of servers may start at
once) and the two doors every query goes through: a bounded pool of readers and the one
writer (:mod:`gammon.server.writer`)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError

from .errors import ServerConfigError, Unavailable

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
#: The execution option of a connection that will write: on SQLite it begins with BEGIN IMMEDIATE.
WRITE = "gammon_write"
#: PostgreSQL advisory lock held while the schema is migrated (any number, the same everywhere).
MIGRATION_LOCK = 7_240_731_001
READERS = 8  #: threads reading the database at once (each with its own connection)
log = logging.getLogger("gammon.server")
T = TypeVar("T")


def default_url() -> str:
    """A SQLite file in the user's data folder, so ``gammon serve`` runs with nothing installed."""
    from platformdirs import user_data_path

    folder = user_data_path("gammon", appauthor=False)
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'server.db'}"


def open_database(url: str | None = None, *, pool_size: int = READERS + 2) -> Engine:
    """An engine for ``url``; SQLite gets WAL, a busy timeout and foreign keys."""
    url = url or default_url()
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise ServerConfigError(f"--db: not a database URL: {url!r} (expected e.g. sqlite:///FILE or "
                                "postgresql+psycopg://USER@HOST/DB)") from None
    if parsed.get_backend_name() == "sqlite":
        engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False},
                               pool_size=pool_size, max_overflow=4)

        @event.listens_for(engine, "connect")
        def _pragmas(connection: Any, _record: Any) -> None:
            connection.isolation_level = None  # SQLAlchemy's BEGIN below, not pysqlite's implicit one
            cursor = connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")  # WAL: a commit survives the process being killed
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=30000")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _begin(connection: Connection) -> None:
            # A writing transaction takes SQLite's write lock at its start, so it never fails to
            # upgrade a read lock half-way; readers do not queue behind it (WAL).
            options = connection.get_execution_options()
            if options.get("isolation_level") == "AUTOCOMMIT":
                return  # a reader: each statement on its own
            connection.exec_driver_sql("BEGIN IMMEDIATE" if options.get(WRITE, False) else "BEGIN")

        return engine
    if parsed.get_backend_name() != "postgresql":
        raise ServerConfigError(f"--db: {parsed.get_backend_name()} is not supported (SQLite or PostgreSQL)")
    # No ping before each use: a connection the database dropped fails once, is thrown away, and the
    # request gets 503 (nothing changed); a ping would cost every request a round trip.
    return create_engine(url, pool_size=pool_size, max_overflow=4, pool_recycle=1800, pool_timeout=30)


def migrate(engine: Engine) -> None:
    """Bring the schema up to the newest migration, one server at a time (a new database is
    created from nothing): PostgreSQL's advisory lock, SQLite's write lock."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.connect().execution_options(**{WRITE: True}) as connection, connection.begin():
        if engine.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


class Readers:
    """A bounded pool of threads that read: a request awaits its read without holding a worker
    that anything else needs, and over ``queue`` reads waiting it is refused at once (503).

    Each thread keeps one connection in autocommit: a read is its statements and nothing else
    (no BEGIN and COMMIT around them), which is what makes reads cheap on PostgreSQL.
    """

    def __init__(self, engine: Engine, threads: int = READERS, queue: int = 2000) -> None:
        self.engine = engine
        self._pool = concurrent.futures.ThreadPoolExecutor(threads, thread_name_prefix="gammon-read")
        self._local = threading.local()
        self._connections: list[Connection] = []
        self._lock = threading.Lock()
        self.queue = queue
        self.waiting = 0

    async def run(self, job: Callable[[Connection], T]) -> T:
        """``job(connection)``, awaited."""
        if self.waiting >= self.queue:
            raise Unavailable("the server is busy: try again in a moment")
        self.waiting += 1
        try:
            return await asyncio.wrap_future(self._pool.submit(self._read, job))
        finally:
            self.waiting -= 1

    def _connection(self) -> Connection:
        connection = getattr(self._local, "connection", None)
        if connection is None or connection.closed or connection.invalidated:
            connection = self.engine.connect().execution_options(isolation_level="AUTOCOMMIT")
            self._local.connection = connection
            with self._lock:
                self._connections.append(connection)
        return connection

    def _read(self, job: Callable[[Connection], T]) -> T:
        try:
            return job(self._connection())
        except DBAPIError as error:
            log.warning("a read failed: %s", str(error).splitlines()[0])
            self._drop()
            raise Unavailable("the database did not answer: try again in a moment") from None

    def _drop(self) -> None:
        connection = getattr(self._local, "connection", None)
        self._local.connection = None
        if connection is not None:
            try:
                connection.invalidate()
                connection.close()
            except Exception:  # noqa: BLE001 - the connection is gone already
                pass

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        with self._lock:
            for connection in self._connections:
                try:
                    connection.close()
                except Exception:  # noqa: BLE001 - closing at shutdown: nothing to save
                    pass
            self._connections.clear()

"""The database: where it is (SQLite in the user's data folder by default, PostgreSQL by URL),
its schema (Alembic migrations, applied on start) and its sessions."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.orm import sessionmaker

from .errors import ServerConfigError

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
#: The execution option of a session that will write (see :func:`open_engine`).
WRITE = "gammon_write"


def default_url() -> str:
    """A SQLite file in the user's data folder, so ``gammon serve`` runs with nothing installed."""
    from platformdirs import user_data_path

    folder = user_data_path("gammon", appauthor=False)
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'server.db'}"


def open_engine(url: str | None = None) -> Engine:
    """An engine for ``url``; SQLite gets WAL, a busy timeout and foreign keys."""
    url = url or default_url()
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise ServerConfigError(f"--db: not a database URL: {url!r} (expected e.g. sqlite:///FILE or "
                                "postgresql+psycopg://USER@HOST/DB)") from None
    if parsed.get_backend_name() == "sqlite":
        engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _pragmas(connection, _record) -> None:  # type: ignore[no-untyped-def]
            cursor = connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")  # WAL: a commit survives the process being killed
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=30000")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _begin(connection) -> None:  # type: ignore[no-untyped-def]
            # A writing transaction takes the write lock at its start, so its version check and
            # its update are one step and it waits its turn (busy_timeout) instead of failing
            # to upgrade a read lock; readers do not queue behind writers (WAL).
            write = connection.get_execution_options().get(WRITE, False)
            connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

        return _sqlite_manual_transactions(engine)
    if parsed.get_backend_name() != "postgresql":
        raise ServerConfigError(f"--db: {parsed.get_backend_name()} is not supported (SQLite or PostgreSQL)")
    return create_engine(url, pool_size=10, max_overflow=20, pool_pre_ping=True)


def _sqlite_manual_transactions(engine: Engine) -> Engine:
    """Let SQLAlchemy's BEGIN through: pysqlite's own implicit transactions are turned off."""

    @event.listens_for(engine, "connect", insert=True)
    def _no_implicit(connection, _record) -> None:  # type: ignore[no-untyped-def]
        connection.isolation_level = None

    return engine


def migrate(engine: Engine) -> None:
    """Bring the schema up to the newest migration (a new database is created from nothing)."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def session_factory(engine: Engine) -> sessionmaker:
    return sessionmaker(engine, expire_on_commit=False)

"""Alembic's entry point: migrate the connection the server hands over (or the configured URL)."""

from __future__ import annotations

import warnings

from alembic import context
from sqlalchemy import create_engine
from sqlalchemy.exc import SAWarning

from gammon.server.models import Base

config = context.config
target_metadata = Base.metadata


def run() -> None:
    # SQLite's batch mode reflects tables; the unique indexes on lower(name) and lower(email)
    # are expressions it cannot reflect, and are made by the migrations themselves.
    warnings.filterwarnings("ignore", "Skipped unsupported reflection of expression-based index", SAWarning)
    connection = config.attributes.get("connection")
    if connection is not None:
        context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = create_engine(config.get_main_option("sqlalchemy.url") or "")
    with engine.begin() as connection:
        context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


run()

"""clocks that start when both players are present and pause across outages

The clock JSON gains ``waiting`` (people not yet present; absent in older rows, meaning nobody
waits), which needs no change to the schema; the heartbeat table holds when a server last
said it serves, so the time it was down is known after a restart.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-28 12:00:00
"""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa
from alembic import op

revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    heartbeat = op.create_table('heartbeat',
                                sa.Column('id', sa.Integer(), nullable=False),
                                sa.Column('beat', sa.DateTime(), nullable=False),
                                sa.PrimaryKeyConstraint('id'))
    # its one row, so servers only ever update it (the time now: the upgrade is the last moment known)
    op.bulk_insert(heartbeat, [{"id": 1, "beat": dt.datetime.now(dt.UTC).replace(tzinfo=None)}])


def downgrade() -> None:
    op.drop_table('heartbeat')

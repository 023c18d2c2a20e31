"""clocks: each match's time left (a delay per move, a reserve per match), kept with its row

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-26 18:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.add_column(sa.Column('clock', sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.drop_column('clock')

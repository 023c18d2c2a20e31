"""play by mail: a mail on your turn (on by default), each seat's greedy and manual modes

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-24 05:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op


revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.add_column(sa.Column('mail_on_turn', sa.Boolean(), server_default=sa.true(), nullable=False))
    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.add_column(sa.Column('pbm_modes', sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.drop_column('pbm_modes')
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.drop_column('mail_on_turn')

"""finished matches' records and boards computed once; the analysis queue fair per person

A finished match's ``.mat`` record is kept once made (``match_records``); an analysis names the
server process that runs it (``analyses.runner``), so a restarted server recognises its own
leftovers at once rather than after the stale period.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-28 12:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('match_records',
                    sa.Column('match_id', sa.Integer(), nullable=False),
                    sa.Column('mat', sa.Text(), nullable=False),
                    sa.Column('created', sa.DateTime(), nullable=False),
                    sa.ForeignKeyConstraint(['match_id'], ['matches.id'], ondelete='CASCADE'),
                    sa.PrimaryKeyConstraint('match_id'))
    with op.batch_alter_table('analyses') as batch:
        batch.add_column(sa.Column('runner', sa.String(length=200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('analyses') as batch:
        batch.drop_column('runner')
    op.drop_table('match_records')

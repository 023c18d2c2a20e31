"""analyses: a finished match (or an uploaded record) judged in the bots' worker pool

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-26 18:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('analyses',
                    sa.Column('id', sa.Integer(), nullable=False),
                    sa.Column('match_id', sa.Integer(), nullable=True),
                    sa.Column('requested_by', sa.Integer(), nullable=False),
                    sa.Column('status', sa.String(length=16), nullable=False),
                    sa.Column('analyst', sa.String(length=300), nullable=False),
                    sa.Column('record', sa.Text(), nullable=False),
                    sa.Column('result', sa.JSON(), nullable=True),
                    sa.Column('html', sa.LargeBinary(), nullable=True),
                    sa.Column('error', sa.Text(), nullable=True),
                    sa.Column('attempts', sa.Integer(), nullable=False),
                    sa.Column('created', sa.DateTime(), nullable=False),
                    sa.Column('started', sa.DateTime(), nullable=True),
                    sa.Column('finished', sa.DateTime(), nullable=True),
                    sa.ForeignKeyConstraint(['match_id'], ['matches.id'], ondelete='CASCADE'),
                    sa.ForeignKeyConstraint(['requested_by'], ['users.id'], ondelete='CASCADE'),
                    sa.PrimaryKeyConstraint('id'),
                    sa.UniqueConstraint('match_id'))
    op.create_index('ix_analyses_requested_by', 'analyses', ['requested_by'], unique=False)
    op.create_index('ix_analyses_status', 'analyses', ['status'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_analyses_status', table_name='analyses')
    op.drop_index('ix_analyses_requested_by', table_name='analyses')
    op.drop_table('analyses')

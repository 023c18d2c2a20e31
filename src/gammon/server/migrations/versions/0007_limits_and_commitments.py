"""limits keyed by who they limit; commitments bound to an account

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-28 12:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A commitment belongs to the account that asked for it; the ones made before nobody can
    # be bound to anyone, and each lasts half an hour anyway: they go.
    op.execute("DELETE FROM commitments")
    with op.batch_alter_table('commitments', schema=None) as batch_op:
        batch_op.add_column(sa.Column('user_id', sa.Integer(), nullable=False))
        batch_op.create_foreign_key('fk_commitments_user_id_users', 'users', ['user_id'], ['id'], ondelete='CASCADE')
        batch_op.create_index(batch_op.f('ix_commitments_user_id'), ['user_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('commitments', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_commitments_user_id'))
        batch_op.drop_constraint('fk_commitments_user_id_users', type_='foreignkey')
        batch_op.drop_column('user_id')

"""a server that holds: unique names and addresses without case, expiring log-ins, devices,
shared limits, confirmed addresses, players' dice seeds, event digests, provisional ratings

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-26 09:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade() -> None:
    bind = op.get_bind()
    # Names that differ only by case (made by a race before this index existed) keep the oldest
    # account's spelling; later ones get their number appended, so the unique index can be built.
    users = sa.table('users', sa.column('id', sa.Integer), sa.column('name', sa.String))
    seen: set[str] = set()
    for user_id, name in bind.execute(sa.select(users.c.id, users.c.name).order_by(users.c.id)).all():
        if name.lower() in seen:
            bind.execute(users.update().where(users.c.id == user_id).values(name=f"{name[:12]}-{user_id}"[:20]))
        seen.add(name.lower())
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.add_column(sa.Column('email_pending', sa.String(length=255), nullable=True))
        batch_op.add_column(sa.Column('email_code', sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column('email_code_at', sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column('rated_matches', sa.Integer(), server_default='0', nullable=False))
    # addresses given before they had to be confirmed wait for a confirmation now
    bind.execute(sa.text("UPDATE users SET email_pending = email, email = NULL WHERE email IS NOT NULL"))
    op.create_index('ux_users_name_lower', 'users', [sa.text('lower(name)')], unique=True)
    op.create_index('ux_users_email_lower', 'users', [sa.text('lower(email)')], unique=True)

    with op.batch_alter_table('sessions', schema=None) as batch_op:
        batch_op.add_column(sa.Column('last_used', sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column('expires', sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column('address', sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column('agent', sa.String(length=200), nullable=True))
        batch_op.create_index(batch_op.f('ix_sessions_expires'), ['expires'], unique=False)
    # log-ins from before expiry existed last as long as a new one from now
    bind.execute(sa.text("UPDATE sessions SET last_used = created"))

    op.create_table('devices',
                    sa.Column('id', sa.Integer(), nullable=False),
                    sa.Column('token_hash', sa.String(length=64), nullable=False),
                    sa.Column('user_id', sa.Integer(), nullable=False),
                    sa.Column('created', sa.DateTime(), nullable=False),
                    sa.Column('last_used', sa.DateTime(), nullable=False),
                    sa.ForeignKeyConstraint(['user_id'], ['users.id'], ondelete='CASCADE'),
                    sa.PrimaryKeyConstraint('id'),
                    sa.UniqueConstraint('token_hash'))
    op.create_index('ix_devices_user_id', 'devices', ['user_id'], unique=False)
    op.create_index('ix_devices_last_used', 'devices', ['last_used'], unique=False)
    op.create_table('limit_counters',
                    sa.Column('key', sa.String(length=200), nullable=False),
                    sa.Column('window_start', sa.DateTime(), nullable=False),
                    sa.Column('count', sa.Integer(), nullable=False),
                    sa.PrimaryKeyConstraint('key'))
    op.create_index('ix_limit_counters_window_start', 'limit_counters', ['window_start'], unique=False)
    op.create_table('commitments',
                    sa.Column('id', sa.Integer(), nullable=False),
                    sa.Column('token_hash', sa.String(length=64), nullable=False),
                    sa.Column('seed', sa.String(length=64), nullable=False),
                    sa.Column('created', sa.DateTime(), nullable=False),
                    sa.PrimaryKeyConstraint('id'),
                    sa.UniqueConstraint('token_hash'))
    op.create_index('ix_commitments_created', 'commitments', ['created'], unique=False)
    op.drop_table('login_failures')

    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.add_column(sa.Column('challenger_seed', sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column('opponent_seed', sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column('dice_scheme', sa.Integer(), server_default='1', nullable=False))
        batch_op.add_column(sa.Column('digest', sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column('challenger_confirmed', sa.Boolean(), server_default=sa.true(), nullable=False))
        batch_op.add_column(sa.Column('rated', sa.Boolean(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('matches', schema=None) as batch_op:
        for column in ('rated', 'challenger_confirmed', 'digest', 'dice_scheme', 'opponent_seed', 'challenger_seed'):
            batch_op.drop_column(column)
    op.create_table('login_failures',
                    sa.Column('id', sa.Integer(), nullable=False),
                    sa.Column('name', sa.String(length=64), nullable=False),
                    sa.Column('at', sa.DateTime(), nullable=False),
                    sa.PrimaryKeyConstraint('id'))
    op.drop_table('commitments')
    op.drop_table('limit_counters')
    op.drop_table('devices')
    with op.batch_alter_table('sessions', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_sessions_expires'))
        for column in ('agent', 'address', 'expires', 'last_used'):
            batch_op.drop_column(column)
    op.drop_index('ux_users_email_lower', table_name='users')
    op.drop_index('ux_users_name_lower', table_name='users')
    with op.batch_alter_table('users', schema=None) as batch_op:
        for column in ('rated_matches', 'email_code_at', 'email_code', 'email_pending'):
            batch_op.drop_column(column)

"""look-alike names (a skeleton per name) and ratings nobody can farm

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-28 12:00:00
"""

from __future__ import annotations

import datetime as dt
import logging
from collections import defaultdict

import sqlalchemy as sa
from alembic import op

from gammon.server.models import network, skeleton

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None
log = logging.getLogger("alembic.runtime.migration")


def upgrade() -> None:
    bind = op.get_bind()
    op.add_column('users', sa.Column('skeleton', sa.String(length=64), nullable=True))
    # Existing names that look alike are all kept: the oldest holds the skeleton, later ones none
    # (a new name like either is still refused, since it looks like the oldest).
    users = sa.table('users', sa.column('id', sa.Integer), sa.column('name', sa.String),
                     sa.column('skeleton', sa.String), sa.column('is_bot', sa.Boolean))
    holders: dict[str, str] = {}
    people: set[int] = set()
    for user_id, name, is_bot in bind.execute(sa.select(users.c.id, users.c.name, users.c.is_bot)
                                              .order_by(users.c.id)).all():
        if not is_bot:
            people.add(user_id)
        form = skeleton(name)
        if form in holders:
            log.warning("the name %r looks like the older %r: both are kept, only the older holds the skeleton",
                        name, holders[form])
            continue
        holders[form] = name
        bind.execute(users.update().where(users.c.id == user_id).values(skeleton=form))
    op.create_index('ux_users_skeleton', 'users', ['skeleton'], unique=True)

    # a rename, not batch mode: SQLite's batch mode would rebuild the table without its lower(name) index
    op.execute("ALTER TABLE users RENAME COLUMN rated_matches TO opponents")
    op.create_table('networks',
                    sa.Column('user_id', sa.Integer(), nullable=False),
                    sa.Column('network', sa.String(length=64), nullable=False),
                    sa.Column('last_seen', sa.DateTime(), nullable=False),
                    sa.ForeignKeyConstraint(['user_id'], ['users.id'], ondelete='CASCADE'),
                    sa.PrimaryKeyConstraint('user_id', 'network'))
    op.create_index('ix_networks_network', 'networks', ['network'], unique=False)
    op.create_index('ix_networks_last_seen', 'networks', ['last_seen'], unique=False)

    # the networks that today's log-ins came from, then every person's opponents counted afresh
    sessions = sa.table('sessions', sa.column('user_id', sa.Integer), sa.column('address', sa.String),
                        sa.column('created', sa.DateTime), sa.column('last_used', sa.DateTime))
    seen: dict[tuple[int, str], dt.datetime] = {}
    for user_id, address, created, last_used in bind.execute(sa.select(
            sessions.c.user_id, sessions.c.address, sessions.c.created, sessions.c.last_used)
            .where(sessions.c.address.is_not(None))).all():
        key, when = (user_id, network(address)), last_used or created
        if key not in seen or seen[key] < when:
            seen[key] = when
    networks = sa.table('networks', sa.column('user_id', sa.Integer), sa.column('network', sa.String),
                        sa.column('last_seen', sa.DateTime))
    if seen:
        bind.execute(networks.insert(), [{"user_id": user_id, "network": where, "last_seen": when}
                                         for (user_id, where), when in seen.items()])
    on: dict[int, set[str]] = defaultdict(set)
    for user_id, where in seen:
        on[user_id].add(where)
    matches = sa.table('matches', sa.column('white_id', sa.Integer), sa.column('black_id', sa.Integer),
                       sa.column('rated', sa.Boolean), sa.column('status', sa.String))
    met: dict[int, set[int]] = defaultdict(set)  # a person's opponents that count; every bot as 0
    for white, black in bind.execute(sa.select(matches.c.white_id, matches.c.black_id).where(
            matches.c.status == 'finished', matches.c.rated.is_not(None))).all():
        for one, other in ((white, black), (black, white)):
            if one in people and one != other and not on[one] & on[other]:
                met[one].add(other if other in people else 0)
    counts = sa.table('users', sa.column('id', sa.Integer), sa.column('opponents', sa.Integer))
    bind.execute(counts.update().values(opponents=0))
    for user_id, opponents in met.items():
        bind.execute(counts.update().where(counts.c.id == user_id).values(opponents=len(opponents)))


def downgrade() -> None:
    op.drop_index('ix_networks_last_seen', table_name='networks')
    op.drop_index('ix_networks_network', table_name='networks')
    op.drop_table('networks')
    op.execute("ALTER TABLE users RENAME COLUMN opponents TO rated_matches")
    op.drop_index('ux_users_skeleton', table_name='users')
    op.execute("ALTER TABLE users DROP COLUMN skeleton")

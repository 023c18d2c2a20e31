"""the dice scheme fixed when the match is created

A match's scheme is written when it is made (scheme 3 from now on: its commitment names the
scheme, gammon.server.matches.fair_dice). The column's default follows, so a row written
without a scheme is read under scheme 3, never under scheme 1 (the server's seed alone), which
was the default before: nothing silently falls back to dice the players' seeds take no part in.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-28 12:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def _default(value: str) -> None:
    # SQLite cannot change a column's default in place: batch mode would rebuild ``matches``, and
    # dropping the old table cascades into every event, analysis and record of every match. There
    # the default stays as it was; the server writes every match's scheme itself, and a scheme
    # changed behind its back is refused by the commitment (fair_dice.checked_key), not by this.
    if op.get_bind().dialect.name == "sqlite":
        return
    op.alter_column('matches', 'dice_scheme', existing_type=sa.Integer(), existing_nullable=False,
                    server_default=value)


def upgrade() -> None:
    _default('3')


def downgrade() -> None:
    _default('1')

"""Cubeful values from cubeless probabilities: Janowski's interpolation, for money and match.

A position's cubeful value is a blend of two limits (Janowski, "Take-points in money
games", 1993): the *dead cube* line, where nobody ever doubles and the value is the
cubeless one, and the *live cube* curve, where the game's winning chance moves without
jumps and each side doubles exactly at its opponent's take point. The live value is
piecewise linear in the winning chance ``p``: from the value of losing at ``p = 0``,
through the opponent's cash (at my take point) and my cash (at my cash point), to the
value of winning at ``p = 1``; gammon and backgammon rates are held at the position's
ratios. The cube efficiency ``x`` weights the two: ``x * live + (1 - x) * dead``.

The same recursion serves money and match play. Take and cash points at cube ``c`` come
from the live curves at ``2c`` (the taker then owns the cube), so the curves are built
from the deepest cube level upwards. In a match, outcomes are valued in match winning
chance from the table, so gammon values, dead cubes (a side that wins the match with a
single game cannot gain by doubling), the Crawford game (no cube) and post-Crawford play
fall out of the outcome values; in money play they are points, with the Jacoby rule
(gammons count single while the cube is centred) and an optional cube limit.

Efficiencies by position class are GNU Backgammon's published values: 0.68 in contact,
and in a race ``0.55 + 0.00125 * pips`` (pips of the side on roll) clamped to [0.6, 0.7].
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .. import movegen
from .context import CubeContext
from ..compiled import kernel

CONTACT_EFFICIENCY = 0.68
RACE_EFFICIENCY = (0.55, 0.00125, 0.6, 0.7)  # base, per pip, min, max


@kernel("(readonly(int8[::1]),)")
def _efficiency(board):
    kind = movegen.board_class(board)
    if kind == movegen.CONTACT:
        return CONTACT_EFFICIENCY
    pips = 0
    for point in range(1, 26):
        if board[point] > 0:
            pips += point * board[point]
    x = RACE_EFFICIENCY[0] + RACE_EFFICIENCY[1] * pips
    return min(max(x, RACE_EFFICIENCY[2]), RACE_EFFICIENCY[3])


@kernel("(readonly(int8[:, ::1]),)")
def cube_efficiencies(boards):
    """Cube efficiency of each kernel board, for the side on roll (the board's owner)."""
    out = np.empty(boards.shape[0])
    for i in range(boards.shape[0]):
        out[i] = _efficiency(boards[i])
    return out


@kernel("(readonly(float64[::1]), readonly(float64[::1]), int64, float64)")
def _interpolate(px, vx, n, p):
    """Value at ``p`` of the piecewise linear curve through ``(px[j], vx[j])``, j < n."""
    for j in range(n - 1):
        if p <= px[j + 1]:
            width = px[j + 1] - px[j]
            if width <= 1e-12:
                return vx[j + 1]
            return vx[j] + (vx[j + 1] - vx[j]) * (p - px[j]) / width
    return vx[n - 1]


@kernel("(readonly(float64[::1]), readonly(float64[::1]), int64, float64)")
def _solve(px, vx, n, target):
    """Where an increasing piecewise linear curve reaches ``target``, clamped to [0, 1]."""
    if target <= vx[0]:
        return 0.0
    for j in range(n - 1):
        if target <= vx[j + 1]:
            rise = vx[j + 1] - vx[j]
            if rise <= 1e-15:
                return px[j]
            return px[j] + (px[j + 1] - px[j]) * (target - vx[j]) / rise
    return 1.0


@kernel("(float64[::1], float64[::1], float64, float64, float64, float64, boolean)")
def _set_curve(px, vx, low, mid_p, mid_v, high, has_mid):
    px[0] = 0.0
    vx[0] = low
    if has_mid:
        px[1] = mid_p
        vx[1] = mid_v
    else:
        px[1] = 0.5
        vx[1] = 0.5 * (low + high)
    px[2] = 1.0
    vx[2] = high


@kernel("(readonly(float64[:, ::1]), readonly(float64[::1]), readonly(float64[:, ::1]), readonly(boolean[:, ::1]), int64, "
        "float64[::1])")
def cubeful_kernel(probabilities, efficiency, table, flags, owner, out):
    """Cubeful value, for the side on roll, of each row of ``probabilities`` (that side's).

    ``table[k, j]`` values the six outcomes at cube level ``k`` (see
    :meth:`CubeContext.outcome_table`); ``flags[k]`` says whether I / the opponent may
    double at level ``k``; ``owner`` is the cube's owner at level 0 (:class:`Owner`).
    """
    levels = table.shape[0]
    own_p = np.empty((levels, 3))
    own_v = np.empty((levels, 3))
    opp_p = np.empty((levels, 3))
    opp_v = np.empty((levels, 3))
    cp = np.empty(4)
    cv = np.empty(4)
    for i in range(probabilities.shape[0]):
        w = min(max(probabilities[i, 0], 0.0), 1.0)
        lose = 1.0 - w
        rg = probabilities[i, 1] / w if w > 1e-12 else 0.0
        rbg = probabilities[i, 2] / w if w > 1e-12 else 0.0
        sg = probabilities[i, 3] / lose if lose > 1e-12 else 0.0
        sbg = probabilities[i, 4] / lose if lose > 1e-12 else 0.0
        rg, rbg, sg, sbg = min(rg, 1.0), min(rbg, rg), min(sg, 1.0), min(sbg, sg)
        for k in range(levels - 1, -1, -1):
            win_k = (1.0 - rg) * table[k, 0] + (rg - rbg) * table[k, 1] + rbg * table[k, 2]
            lose_k = (1.0 - sg) * table[k, 3] + (sg - sbg) * table[k, 4] + sbg * table[k, 5]
            can = flags[k, 0] and k + 1 < levels
            cash = _solve(opp_p[k + 1], opp_v[k + 1], 3, table[k, 0]) if can else 0.0
            _set_curve(own_p[k], own_v[k], lose_k, cash, table[k, 0], win_k, can)
            can = flags[k, 1] and k + 1 < levels
            take = _solve(own_p[k + 1], own_v[k + 1], 3, table[k, 3]) if can else 0.0
            _set_curve(opp_p[k], opp_v[k], lose_k, take, table[k, 3], win_k, can)
        win_0 = (1.0 - rg) * table[0, 0] + (rg - rbg) * table[0, 1] + rbg * table[0, 2]
        lose_0 = (1.0 - sg) * table[0, 3] + (sg - sbg) * table[0, 4] + sbg * table[0, 5]
        dead = w * win_0 + lose * lose_0
        if owner == 1:
            live = _interpolate(own_p[0], own_v[0], 3, w)
        elif owner == 2:
            live = _interpolate(opp_p[0], opp_v[0], 3, w)
        else:
            # Centred: the opponent cashes below my take point, I cash above my cash point.
            n = 0
            cp[n] = 0.0
            cv[n] = lose_0
            n += 1
            take = -1.0
            cash = 2.0
            if flags[0, 1] and levels > 1:
                take = _solve(own_p[1], own_v[1], 3, table[0, 3])
            if flags[0, 0] and levels > 1:
                cash = _solve(opp_p[1], opp_v[1], 3, table[0, 0])
            if take >= 0.0 and cash <= 1.0 and take > cash:  # cannot both hold: meet halfway
                take = cash = 0.5 * (take + cash)
            if take >= 0.0:
                cp[n] = take
                cv[n] = table[0, 3]
                n += 1
            if cash <= 1.0:
                cp[n] = cash
                cv[n] = table[0, 0]
                n += 1
            cp[n] = 1.0
            cv[n] = win_0
            n += 1
            live = _interpolate(cp, cv, n, w)
        x = efficiency[i]
        value = x * live + (1.0 - x) * dead
        if owner != 1 and flags[0, 1] and levels > 1:
            # The opponent may double at its next turn. Janowski's curve has it wait for its
            # cash point, which is right while my recube keeps value; when it does not (my
            # cube would be dead, as at 2-away), doubling at once costs the opponent nothing.
            win_1 = (1.0 - rg) * table[1, 0] + (rg - rbg) * table[1, 1] + rbg * table[1, 2]
            lose_1 = (1.0 - sg) * table[1, 3] + (sg - sbg) * table[1, 4] + sbg * table[1, 5]
            taken = x * _interpolate(own_p[1], own_v[1], 3, w) + (1.0 - x) * (w * win_1 + lose * lose_1)
            value = min(value, max(taken, table[0, 3]))
        out[i] = value


@lru_cache(maxsize=4096)
def _arrays(context: CubeContext, met: object) -> tuple[np.ndarray, np.ndarray]:
    levels = context.levels()
    return context.outcome_table(levels), context.double_flags(levels)


def cubeful_values(probabilities: np.ndarray, context: CubeContext, efficiency: np.ndarray | float) -> np.ndarray:
    """Cubeful values ``(N,)`` for the side whose probabilities ``(N, 5)`` are given, in
    ``context`` (that side's view, no cube action now): points for money, MWC for a match."""
    probabilities = np.ascontiguousarray(probabilities, np.float64).reshape(-1, 5)
    efficiency = np.broadcast_to(np.asarray(efficiency, np.float64), (probabilities.shape[0],)).copy()
    # The table is part of the key (contexts compare equal whatever their table).
    table, flags = _arrays(context, context.met)
    out = np.empty(probabilities.shape[0])
    if context.crawford or not flags.any():
        # No cube in play at all: the dead value is exact.
        efficiency[:] = 0.0
    cubeful_kernel(probabilities, efficiency, table, flags, int(context.owner), out)
    return out


def cubeless_values(probabilities: np.ndarray, context: CubeContext) -> np.ndarray:
    """The dead-cube value: what the probabilities are worth if nobody ever doubles."""
    return cubeful_values(probabilities, context, 0.0)

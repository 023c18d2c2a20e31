"""A match equity table from first principles, built with gammon's own cube arithmetic.

The classic constructions (Zadeh 1977, Kazaross, Rockwell-Kazaross) model every game of a
match as an *average game*: even chances, fixed gammon and backgammon rates, a cube that is
turned with a fixed efficiency. The post-Crawford row follows from a short recursion, the
Crawford game is played without a cube, and every earlier score is the cubeful value, with
the cube centred, of an average game whose outcomes lead to scores already known. Here the
cubeful value comes from :func:`gammon.cube.janowski.cubeful_kernel` and the outcome values
and dead-cube rules from :class:`gammon.cube.context.CubeContext`, so the table and the cube
decisions it feeds share one implementation of the rules.
"""

from __future__ import annotations

import math

import numpy as np

from .context import CubeContext
from .janowski import CONTACT_EFFICIENCY, cubeful_kernel
from .met import MAX_AWAY, MatchEquityError, MatchEquityTable

#: Published value of the leader's free drop at 2-away post-Crawford (Kazaross-XG2: 1.197%).
FREE_DROP_2AWAY = 0.012


def _average_game(gammon_rate: float, backgammon_rate: float) -> np.ndarray:
    """Probabilities (win, win gammon, win backgammon, lose gammon, lose backgammon) of a game
    at even chances in which each side's wins are gammons (backgammons) at the given rates."""
    return np.array([[0.5, 0.5 * gammon_rate, 0.5 * backgammon_rate, 0.5 * gammon_rate, 0.5 * backgammon_rate]])


def _game_value(context: CubeContext, probabilities: np.ndarray, efficiency: float) -> float:
    """Cubeful MWC, cube centred and no cube action now, for the context's side on roll."""
    levels = 1 if context.crawford else context.levels()
    table, flags = context.outcome_table(levels), context.double_flags(levels)
    out = np.empty(1)
    cubeful_kernel(probabilities, np.array([efficiency if flags.any() else 0.0]), table, flags, 0, out)
    return float(out[0])


def _expected_min(scale: float, cap: float, spread: float) -> float:
    """``E[min(scale * X, cap)]`` for the trailer's winning chance ``X ~ Normal(0.5, spread)``."""
    if spread <= 0.0:
        return min(0.5 * scale, cap)
    if scale <= 0.0:
        return min(0.0, cap)
    threshold = cap / scale
    z = (0.5 - threshold) / spread
    above = ((0.5 - threshold) * 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))
             + spread * math.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi))
    return scale * (0.5 - above)


def post_crawford_row(gammon_rate: float, backgammon_rate: float, free_drop: float = FREE_DROP_2AWAY) -> np.ndarray:
    """Trailer's MWC needing ``n`` (index ``n - 1``) against a 1-away leader after the Crawford game.

    The trailer doubles at its first turn of every game (the leader's gammons are worth
    nothing and the trailer's cube is dead once doubled), so each game is worth two points
    to it: ``P(n) = p * [(1-g) P(n-2) + (g-bg) P(n-4) + bg P(n-6)]``, ``P(<=0) = 1``,
    ``P(1) = 1/2``. The leader drops when that is better, which pays at even scores (the
    *free drop*: dropping at 2-away leaves a 1-away/1-away game, worth 1/2 to each). Model:
    when doubled, the trailer's game winning chance ``X`` is normal around ``p = 1/2`` with a
    spread set by the opening rolls; the leader takes iff ``X * W(n) < P(n-1)``, so
    ``P(n) = E[min(X * W(n), P(n-1))]``. At 2-away that is ``1/2 - spread / sqrt(2 pi)``:
    ``free_drop`` (the published ~1.2%) fixes the spread (~3% winning chance), and the same
    model then gives the smaller free drops at 4-, 6-away... and ~0 at odd scores.
    """
    spread = free_drop * math.sqrt(2.0 * math.pi)
    value = np.ones(MAX_AWAY + 6)  # value[n + 5] = P(n); P(<= 0) = 1
    for n in range(1, MAX_AWAY + 1):
        if n == 1:
            value[n + 5] = 0.5
            continue
        win = (1 - gammon_rate) * value[n + 3] + (gammon_rate - backgammon_rate) * value[n + 1] + backgammon_rate * value[n - 1]
        value[n + 5] = _expected_min(win, value[n + 4], spread)
    return value[6:].copy()


def construct_met(
    gammon_rate: float = 0.27,
    backgammon_rate: float = 0.01,
    efficiency: float = CONTACT_EFFICIENCY,
    free_drop: float = FREE_DROP_2AWAY,
    crawford_gammon_rate: float = 0.29,
    name: str = "gammon constructed",
) -> MatchEquityTable:
    """A 25-point match equity table built from a model of the average game.

    Model and assumptions:

    * Every game starts at even chances (``p = 1/2``); ``gammon_rate`` is the share of games
      that end in a gammon or backgammon and ``backgammon_rate`` in a backgammon. With even,
      symmetric chances that is also the share of each side's wins (rollouts of money play
      give about 27% and 1%; the score's effect on gammon play is ignored).
    * The cube ``efficiency`` is the one the cube decisions use in contact (0.68), so the
      table and the decisions it feeds rest on the same cube model.
    * Crawford and post-Crawford games use ``crawford_gammon_rate`` for the trailer's wins
      (backgammons in the same proportion): the leader's gammons are worthless, so the
      trailer plays for them and the leader saves them. About 29% matches the rolled-out
      1-away/2-away Crawford entry (0.677).
    * Post-Crawford: see :func:`post_crawford_row` (``free_drop`` is the leader's free drop
      at 2-away, from which the others follow).
    * The Crawford game has no cube: its value is the dead-cube MWC of the average game
      whose outcomes lead to post-Crawford scores.
    * Before Crawford, ``M(a, b)`` is the cubeful MWC of the average game with the cube
      centred (:func:`~gammon.cube.janowski.cubeful_kernel`, Janowski with cube
      ``efficiency``), valued from entries already built, in order of ``a + b``; a side that
      wins the match with one game at the current cube may not double (dead cube). The
      kernel values a position for the side on roll (its opponent's next-turn double is
      modelled one-sidedly), so the two sides' views differ slightly (under 0.1%);
      ``M(a, b) = (v(a, b) + 1 - v(b, a)) / 2`` makes the table exactly symmetric.
    """
    _check(gammon_rate, backgammon_rate, efficiency, free_drop, crawford_gammon_rate)
    crawford_bg = crawford_gammon_rate * backgammon_rate / gammon_rate if gammon_rate > 0 else 0.0
    post = post_crawford_row(crawford_gammon_rate, crawford_bg, free_drop)
    pre = np.full((MAX_AWAY, MAX_AWAY), 0.5)

    def table() -> MatchEquityTable:
        notice = _notice(gammon_rate, backgammon_rate, efficiency, free_drop, crawford_gammon_rate)
        return MatchEquityTable(name, pre, post, notice)

    # The Crawford game: I am 1-away, the opponent needs n; no cube, outcomes lead to post-Crawford.
    known = table()
    crawford_game = _average_game(crawford_gammon_rate, crawford_bg)
    for n in range(2, MAX_AWAY + 1):
        pre[0, n - 1] = _game_value(CubeContext(away=(1, n), crawford=True, met=known), crawford_game, 0.0)
        pre[n - 1, 0] = 1.0 - pre[0, n - 1]

    # Before the Crawford game, by increasing a + b: each game's outcomes reach smaller sums.
    game = _average_game(gammon_rate, backgammon_rate)
    for total in range(4, 2 * MAX_AWAY + 1):
        known = table()
        cells = [(a, total - a) for a in range(max(2, total - MAX_AWAY), min(MAX_AWAY, total - 2) + 1)]
        for a, b in cells:
            if a > b:
                continue
            mine = _game_value(CubeContext(away=(a, b), met=known), game, efficiency)
            theirs = _game_value(CubeContext(away=(b, a), met=known), game, efficiency)
            pre[a - 1, b - 1] = 0.5 * (mine + 1.0 - theirs)
            pre[b - 1, a - 1] = 1.0 - pre[a - 1, b - 1]
    return table()


def _check(gammon_rate: float, backgammon_rate: float, efficiency: float, free_drop: float, crawford_gammon_rate: float) -> None:
    """Reject parameters that describe no game, naming the offending one."""
    for label, value, high in (("gammon_rate", gammon_rate, 1.0), ("crawford_gammon_rate", crawford_gammon_rate, 1.0),
                               ("efficiency", efficiency, 1.0), ("free_drop", free_drop, 0.25)):
        if not 0.0 <= value <= high:
            raise MatchEquityError(f"{label} must lie in [0, {high:g}], got {value!r}")
    if not 0.0 <= backgammon_rate <= gammon_rate:
        raise MatchEquityError(f"backgammon_rate must lie in [0, gammon_rate={gammon_rate:g}] (backgammons are gammons), "
                               f"got {backgammon_rate!r}")


def _notice(gammon_rate: float, backgammon_rate: float, efficiency: float, free_drop: float, crawford_gammon_rate: float) -> str:
    return (f"Constructed by gammon: average game, gammon rate {gammon_rate:g}, backgammon rate {backgammon_rate:g}, "
            f"cube efficiency {efficiency:g}, Crawford/post-Crawford gammon rate {crawford_gammon_rate:g}, "
            f"free drop at 2-away {free_drop:g}.")


def compare(ours: MatchEquityTable, reference: MatchEquityTable) -> dict[str, float]:
    """Summary of ``ours - reference`` in MWC: max and mean absolute difference over the
    pre-Crawford table up to 25-away and up to 11-away (Crawford entries included), and over
    the post-Crawford row; plus the largest signed difference's cell for orientation."""
    diff = ours.pre - reference.pre
    post = ours.post - reference.post
    i, j = np.unravel_index(int(np.argmax(np.abs(diff))), diff.shape)
    return {
        "pre_max": float(np.abs(diff).max()),
        "pre_mean": float(np.abs(diff).mean()),
        "pre11_max": float(np.abs(diff[:11, :11]).max()),
        "pre11_mean": float(np.abs(diff[:11, :11]).mean()),
        "post_max": float(np.abs(post).max()),
        "post_mean": float(np.abs(post).mean()),
        "worst_me": float(i + 1),
        "worst_opponent": float(j + 1),
        "worst": float(diff[i, j]),
    }

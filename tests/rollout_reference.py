"""The rollout trial as it was before it was compiled: a Python loop per turn, kept only to test the
compiled trial (:mod:`gammon.rollout.kernel`) against it, trial by trial.

What a trial is (its luck adjustment and quasi-random dice) is told once, in
:mod:`gammon.rollout.trial`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from gammon import movegen
from gammon.bots import Bot, CompositeEvaluator, CubefulSearch, Evaluator, Search, load_bearoff
from gammon.bots.evaluator import BEAROFF, board_class
from gammon.bots.search import ROLL_WEIGHTS, ROLLS, SearchInterrupted, best_replies
from gammon.cube.context import CubeContext, Owner
from gammon.dice import DiceStream
from gammon.evaluation import Response, flip_probabilities
from gammon.referee import CubeState, points_won

#: The 36 ordered rolls in the fixed order quasi-random dice take them.
ORDERED_ROLLS = tuple((a, b) for a in range(1, 7) for b in range(1, 7))
#: Step between second rolls of consecutive trials: coprime with 36, so each block of 36
#: trials sees every second roll once (and 1,296 trials every pair of first and second roll).
SECOND_STEP = 7
#: Turns after which an untruncated trial stops anyway (no real game comes near).
MAX_TURNS = 5000
#: Index in :data:`gammon.bots.search.ROLLS` of each ordered roll.
_ROLL_INDEX = {(int(a), int(b)): i for i, (a, b) in enumerate(ROLLS)} | {
    (int(b), int(a)): i for i, (a, b) in enumerate(ROLLS)}
#: Columns of a trial's samples: the five probabilities, cubeless equity, cubeful equity.
COLUMNS = 7


def quasi_random_rolls(trial: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """The first two rolls of trial ``trial`` (see the module docstring).

    >>> quasi_random_rolls(0), quasi_random_rolls(37)
    (((1, 1), (1, 1)), ((1, 2), (2, 3)))
    """
    first = trial % 36
    second = (trial // 36 + SECOND_STEP * first) % 36
    return ORDERED_ROLLS[first], ORDERED_ROLLS[second]


def _flip_value(value: float, context: CubeContext) -> float:
    """A value in context units seen by the other side (money: minus; match: one minus)."""
    return -value if context.is_money else 1.0 - value


def _cube_state(context: CubeContext) -> CubeState:
    return CubeState(context.cube, None if context.owner is Owner.CENTRED else 0)


class ReferenceRoller:
    """Plays trials from a position with one bot: its plays, its cube decisions, its evaluator's luck.

    ``truncate`` ends a trial after that many turns, valued by the evaluator, with the exact
    bear-off tables where they cover the position; cubeless trials also stop, exactly, as
    soon as the tables cover a position.
    """

    def __init__(self, bot: Bot, truncate: int | None = None, variance_reduction: bool = True) -> None:
        if truncate is not None and truncate < 1:
            raise ValueError(f"truncate is a number of turns >= 1, got {truncate}")
        self.bot = bot
        self.truncate = truncate
        self.variance_reduction = variance_reduction
        evaluator: Evaluator = bot.evaluator
        self.luck = CubefulSearch(Search(evaluator, cache_size=0), cache_size=0)
        if isinstance(evaluator, CompositeEvaluator):
            exact = evaluator
        else:
            exact = CompositeEvaluator(evaluator, load_bearoff())
        self.bearoff = exact.bearoff
        self.exact = CubefulSearch(Search(exact, cache_size=0), cache_size=0)
        # At 0 ply without noise the bot's play is the luck's best play of the roll: no second search.
        self._shortcut = bot.ply == 0 and bot.noise == 0.0

    # -- values ---------------------------------------------------------------------------------
    def _exact_bearoff(self, board: np.ndarray) -> np.ndarray | None:
        """The side on roll's exact probabilities, when the tables cover ``board``."""
        if self.bearoff is None or board_class(board) != BEAROFF or not self.bearoff.covers(board):
            return None
        return np.asarray(self.bearoff.on_roll_batch(board[None, :]), np.float64)[0]

    def _truncated(self, board: np.ndarray, context: CubeContext | None) -> tuple[np.ndarray, float]:
        """Probabilities and cubeful value (context units) of the side on roll, at 0 ply."""
        if context is None:
            after = movegen.flip_board(board)[None, :]
            return flip_probabilities(self.exact.evaluator.evaluate_batch(after))[0], float("nan")
        value, probabilities = self.exact.value(board, context, 0)
        return probabilities, value

    # -- a trial ----------------------------------------------------------------------------------
    def trial(self, board: np.ndarray, context: CubeContext | None, seed: int, number: int) -> np.ndarray:
        """Samples of trial ``number`` for the side on roll of ``board`` (before its roll).

        Returns :data:`COLUMNS` values: the five probabilities, the cubeless equity and the
        cubeful equity per cube in ``context`` (NaN for a cubeless trial), each less the luck.
        """
        board = np.ascontiguousarray(board, np.int8)
        bot = self.bot
        bot.reseed(np.random.SeedSequence([seed, number]))
        stream = DiceStream(seed, number)
        first, second = quasi_random_rolls(number)
        root = context
        cube = context  # the cube from the root side's view; None: cubeless
        mine = True  # whether the side on roll is the root's side
        luck = np.zeros(5)
        cube_luck = 0.0
        probabilities: np.ndarray | None = None
        value = float("nan")
        for turn in range(MAX_TURNS):
            roller = None if cube is None else (cube if mine else cube.flip())
            if cube is None:
                exact = self._exact_bearoff(board)
                if exact is not None:
                    probabilities = exact
                    break
            if self.truncate is not None and turn >= self.truncate:
                probabilities, value = self._truncated(board, roller)
                break
            if roller is not None and bot.should_double(board, roller):
                answer = bot.answer_double(board, roller)
                if answer is Response.PASS:
                    probabilities, _ = self._truncated(board, None)
                    value = roller.cash
                    break
                roller = roller.beavered() if answer is Response.BEAVER else roller.doubled()
                cube = roller if mine else roller.flip()
            d1, d2 = first if turn == 0 else second if turn == 1 else stream.roll()
            chosen = None
            if self.variance_reduction:
                chosen = best_replies(self.luck.evaluator, board[None, :])
                r = _ROLL_INDEX[(d1, d2)]
                if roller is None:
                    outcomes = self.luck.evaluator.evaluate_batch(chosen)
                else:
                    values, outcomes = self.luck.mover_values(chosen, [roller], 0)
                    swing = float(values[r, 0] - ROLL_WEIGHTS @ values[:, 0])
                    cube_luck += swing if mine else -swing
                seen = outcomes if mine else flip_probabilities(outcomes)
                luck += seen[r] - ROLL_WEIGHTS @ seen
            if self._shortcut and roller is None and chosen is not None:
                after = chosen[_ROLL_INDEX[(d1, d2)]]
            else:
                after = bot.choose_board(board, d1, d2, roller)
            kind = int(movegen.win_kind(after))
            if kind:
                probabilities = np.array([1.0, kind >= 2, kind == 3, 0.0, 0.0])
                if roller is not None:
                    value = roller.value_of(points_won(kind, _cube_state(roller), roller.jacoby))
                break
            board = movegen.flip_board(after)
            mine = not mine
        else:  # pragma: no cover - no game lasts MAX_TURNS turns
            probabilities, value = self._truncated(board, None if cube is None else (cube if mine else cube.flip()))
        assert probabilities is not None
        # The values above are the side on roll's (or the mover's); ``mine``: the root's side.
        if not mine:
            probabilities = flip_probabilities(probabilities[None, :])[0]
            if root is not None:
                value = _flip_value(value, root)
        out = np.empty(COLUMNS)
        out[:5] = probabilities - luck
        p = out
        out[5] = 2.0 * p[0] - 1.0 + p[1] + p[2] - p[3] - p[4]
        out[6] = float("nan") if root is None else float(root.normalise(value - cube_luck))
        return out

    def trials(self, board: np.ndarray, context: CubeContext | None, seed: int, start: int, stop: int,
               interrupt: Callable[[], bool] | None = None) -> np.ndarray:
        """Samples ``(stop - start, COLUMNS)`` of trials ``start``..``stop - 1``; ``interrupt``, asked
        before each trial, stops them with :class:`~gammon.bots.search.SearchInterrupted` (an engine's ``stop``)."""
        out = np.empty((stop - start, COLUMNS))
        for row, number in enumerate(range(start, stop)):
            if interrupt is not None and interrupt():
                raise SearchInterrupted()
            out[row] = self.trial(board, context, seed, number)
        return out



"""Exact bear-off evaluation and perfect bear-off play, from the tables.

Boards are kernel boards from the side to move (:mod:`gammon.movegen`); answers are that
side's five cumulative probabilities ``[win, win gammon, win backgammon, lose gammon, lose
backgammon]``.

* Both sides with at most C checkers (two-sided table): the exact cubeless win chance.
  Every such side has checkers off, so there are no gammons.
* Otherwise, both sides on the one-sided table's points: each side's rolls-to-finish
  distribution is exact for its own best play, and the race is scored as if the two were
  independent (the mover wins when it needs no more rolls than the opponent). That is
  GNU Backgammon's one-sided approximation; it ignores that a side far behind should play
  for the unlikely rather than the expected. Gammons use the first-off distributions the
  same way. Backgammons cannot happen: no checker is left in the winner's home board.

The steps (:mod:`gammon.bearoff._evaluator_steps`) are plain Python that numba can compile: one board runs them as Python
(:meth:`BearoffEvaluator.on_roll`: a look at a built table loads no numba), batches run them
compiled (:meth:`BearoffEvaluator.on_roll_batch`, from
:mod:`gammon.bearoff._evaluator_kernels`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import BearoffCoverageError
from ..position import Position
from ._evaluator_steps import evaluate_boards, side_counts
from .onesided import ALL_OFF, FIRST_OFF, OneSidedTable
from .twosided import CUBELESS, TwoSidedTable

class BearoffEvaluator:
    """Exact bear-off probabilities for the engine, and perfect bear-off play.

    Tables default to the cached 6-point one-sided and 6x6 two-sided ones, loaded (and
    built, the first time) when first needed.

    >>> import numpy as np
    >>> board = np.zeros(26, np.int8); board[1] = 1; board[19] = -1  # ace point against a 6-point checker
    >>> BearoffEvaluator().on_roll(board).tolist()
    [1.0, 0.0, 0.0, 0.0, 0.0]
    """

    def __init__(self, onesided: OneSidedTable | None = None, twosided: TwoSidedTable | None = None) -> None:
        if onesided is not None and onesided.points < 6:
            raise BearoffCoverageError(
                f"the evaluator needs a one-sided table of 6 or more points, not {onesided.points}"
            )
        self._onesided = onesided
        self._twosided = twosided

    @property
    def onesided(self) -> OneSidedTable:
        if self._onesided is None:
            from .defaults import onesided

            self._onesided = onesided()
        return self._onesided

    @property
    def twosided(self) -> TwoSidedTable:
        if self._twosided is None:
            from .defaults import twosided

            self._twosided = twosided()
        return self._twosided

    @property
    def points(self) -> int:
        """Points the one-sided table spans (6 unless a larger table was given)."""
        return self._onesided.points if self._onesided is not None else 6

    # -- coverage -----------------------------------------------------------------------
    def covers(self, board: np.ndarray | Sequence[int]) -> bool:
        """True when both sides are in the tables: no contact, nobody on the bar, all on points 1..P."""
        counts = np.zeros((2, self.points), np.int64)
        return bool(side_counts(np.asarray(board, np.int8), self.points, counts))

    def covers_batch(self, boards: np.ndarray) -> np.ndarray:
        from . import _evaluator_kernels

        return _evaluator_kernels.covers_batch(np.ascontiguousarray(boards, np.int8).reshape(-1, 26), self.points)

    # -- evaluation ---------------------------------------------------------------------
    def kernel_arrays(self) -> tuple:
        """What the compiled :func:`evaluate_boards` reads, in its order after ``boards``: points, the
        one-sided table's start, length, offset and data, the two-sided values, checkers and size
        (compiled loops, such as the rollout trials, look the tables up themselves)."""
        table = self.onesided
        start, length, offset, _, data = table.arrays()
        ts = self.twosided
        return (table.points, start, length, offset, data, ts.values, ts.checkers, ts.size)

    def on_roll_batch(self, boards: np.ndarray) -> np.ndarray:
        """``(N, 5)`` probabilities of the side on roll of ``(N, 26)`` kernel boards (before its roll;
        a bots :class:`~gammon.bots.Evaluator` scores boards after a play, for the side that moved)."""
        from . import _evaluator_kernels

        return self._on_roll(boards, _evaluator_kernels.evaluate_boards)

    def _on_roll(self, boards: np.ndarray, evaluate) -> np.ndarray:
        boards = np.ascontiguousarray(boards, np.int8).reshape(-1, 26)
        empty = ~boards.any(axis=1)
        if empty.any():
            # The tables would answer a win for the side on roll ("all off"): no game has that board.
            bad = int(np.flatnonzero(empty)[0])
            raise BearoffCoverageError(
                f"board {bad} has no checkers on either side: both sides cannot have borne off all 15"
            )
        table = self.onesided
        start, length, offset, _, data = table.arrays()
        ts = self.twosided
        out = np.zeros((boards.shape[0], 5))
        status = np.zeros(boards.shape[0], np.int8)
        evaluate(
            boards, table.points, start, length, offset, data, ts.values, ts.checkers, ts.size, out, status
        )
        if status.any():
            bad = int(np.flatnonzero(status)[0])
            raise BearoffCoverageError(
                f"board {bad} {boards[bad].tolist()} is not a bear-off position of the tables (points 1-{table.points})"
            )
        return out

    def on_roll(self, board: np.ndarray | Sequence[int]) -> np.ndarray:
        """The five probabilities of one kernel board, for the side on roll (run as Python)."""
        return self._on_roll(np.asarray(board, np.int8)[None, :], evaluate_boards)[0]

    def evaluate_position(self, position: Position) -> np.ndarray:
        """The five probabilities of the side to act in ``position``."""
        return self.on_roll(position.array())

    # -- play ---------------------------------------------------------------------------
    def best_play(self, position: Position, d1: int, d2: int):  # -> Play
        """The perfect bear-off play: highest win chance where the two-sided table covers the
        position, else fewest expected rolls (GNU Backgammon's choice, first of equals)."""
        if not self.covers(position.array()):
            raise BearoffCoverageError(f"{position!r} is not a bear-off position of the tables")
        plays = position.legal_plays(d1, d2)
        boards = plays.boards()
        points = self.points
        counts = np.zeros((2, points), np.int64)
        side_counts(position.array(), points, counts)
        ts = self.twosided
        if counts[0].sum() <= ts.checkers and counts[1].sum() <= ts.checkers and not counts[:, 6:].any():
            j = ts.index(counts[1, :6].tolist())
            scores = []
            for board in boards:
                side_counts(board, points, counts)
                i = ts.index(counts[0, :6].tolist())
                # The opponent is on roll next: our chance is one minus its.
                scores.append(-int(ts.raw(j, i)[CUBELESS]))
            best = int(np.argmax(scores))
        else:
            table = self.onesided
            sums = []
            for board in boards:
                side_counts(board, points, counts)
                sums.append(int(table.rolls_sum[table.index(counts[0].tolist()), ALL_OFF]))
            best = int(np.argmin(sums))
        return plays[best]


def best_play(position: Position, d1: int, d2: int):  # -> Play
    """Perfect bear-off play with the default tables (see :meth:`BearoffEvaluator.best_play`)."""
    return _default().best_play(position, d1, d2)


_evaluator: BearoffEvaluator | None = None


def _default() -> BearoffEvaluator:
    global _evaluator
    if _evaluator is None:
        _evaluator = BearoffEvaluator()
    return _evaluator


def counts_of(board: np.ndarray | Sequence[int], points: int = 6) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(mover's, opponent's) counts on their points 1..P, ace point first."""
    counts = np.zeros((2, points), np.int64)
    if not side_counts(np.asarray(board, np.int8), points, counts):
        raise BearoffCoverageError(
            f"board {np.asarray(board).tolist()} is not a bear-off position: checkers on the bar, beyond "
            f"point {points} or in contact"
        )
    return tuple(int(c) for c in counts[0]), tuple(int(c) for c in counts[1])


__all__ = ["FIRST_OFF", "BearoffEvaluator", "best_play", "counts_of"]

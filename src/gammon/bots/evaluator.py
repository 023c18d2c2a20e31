"""What an evaluator is, the exact scoring of finished games, and the composite by position class.

Point of view, the same everywhere in :mod:`gammon.bots`: an evaluator scores boards
*after a play*, as :func:`gammon.movegen.generate` returns them -- kernel boards seen from
the side that just moved, with the opponent now on roll -- and returns that side's five
probabilities (``(N, 5)``, columns as in :data:`~gammon.bots.probabilities.FIELDS`). A
move decision is then an argmax over the children of one roll, with no flip at all.

Two entry points: :meth:`Evaluator.evaluate_children` scores the plays of rolls to choose
among them (it may use the position before the play, as pubeval does), and
:meth:`Evaluator.evaluate_batch` values positions on their own (search's leaves). For
most evaluators they agree.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from .. import movegen
from ..errors import GammonError
from ..position import Position
from ..bearoff import BearoffEvaluator
from ..evaluation import Probabilities, flip_probabilities
from ..compiled import kernel

# The position classes and the scoring of finished games are rules: the kernel holds them.
OVER, BEAROFF, RACE, CONTACT = movegen.OVER, movegen.BEAROFF, movegen.RACE, movegen.CONTACT
board_class = movegen.board_class
win_kind = movegen.win_kind


@kernel("(readonly(int8[:, ::1]),)")
def board_classes(boards):
    out = np.empty(boards.shape[0], np.int8)
    for i in range(boards.shape[0]):
        out[i] = board_class(boards[i])
    return out


@kernel("(readonly(int8[::1]), float64[::1])")
def finished_probabilities(board, out):
    """Exact probabilities of a finished game, for the mover; False when the game goes on."""
    kind = win_kind(board)
    if kind == 0:
        kind = -win_kind(movegen.flip_board(board))
        if kind == 0:
            return False
    out[:] = 0.0
    if kind > 0:  # the mover has borne off everything: it won
        out[0] = 1.0
        out[1] = 1.0 if kind >= 2 else 0.0
        out[2] = 1.0 if kind == 3 else 0.0
    else:  # the opponent has (only reachable when a caller hands in such a board)
        out[3] = 1.0 if kind <= -2 else 0.0
        out[4] = 1.0 if kind == -3 else 0.0
    return True


@kernel("(readonly(int8[:, ::1]), float64[:, ::1])")
def finished_batch(boards, out):
    """Fill ``out`` rows of finished games; returns the mask of boards still in play."""
    live = np.empty(boards.shape[0], np.bool_)
    for i in range(boards.shape[0]):
        live[i] = not finished_probabilities(boards[i], out[i])
    return live


@kernel("(readonly(int8[:, ::1]), float64[:, ::1])")
def impossible_outcomes(boards, probabilities):
    """Zero the gammons and backgammons a board rules out, in place (evaluators only estimate).

    A side that has borne a checker off cannot be gammoned. Without contact no checker can
    go back, so a side with none on the bar or in the other's home board cannot be
    backgammoned. E.g. a pure race with everyone past the other's home: no backgammons.
    """
    for i in range(boards.shape[0]):
        board = boards[i]
        mover_left = 0
        opponent_left = 0
        mover_back = 0  # mover's checkers on the bar or in the opponent's home board (19-25)
        opponent_back = 0  # opponent's on its bar (0) or in the mover's home board (1-6)
        for point in range(26):
            n = board[point]
            if n > 0:
                mover_left += n
                if point >= 19:
                    mover_back += n
            elif n < 0:
                opponent_left -= n
                if point <= 6:
                    opponent_back -= n
        p = probabilities[i]
        race = movegen.board_class(board) != movegen.CONTACT
        if mover_left < 15:
            p[3] = 0.0
            p[4] = 0.0
        elif race and mover_back == 0:
            p[4] = 0.0
        if opponent_left < 15:
            p[1] = 0.0
            p[2] = 0.0
        elif race and opponent_back == 0:
            p[2] = 0.0


@kernel("(readonly(int8[:, ::1]),)")
def flip_batch(boards):
    """Every board seen from the other side (:func:`gammon.movegen.flip_into`, batched)."""
    out = np.empty_like(boards)
    for i in range(boards.shape[0]):
        movegen.flip_into(boards[i], out[i])
    return out


@dataclass(frozen=True)
class EvaluatorKernel:
    """An evaluator in compiled form, for loops that run inside numba (the rollout trials).

    ``children(params, parents, offsets, children)`` and ``boards(params, boards)`` are numba
    functions that answer as :meth:`Evaluator._evaluate_children` and :meth:`Evaluator._evaluate`
    do -- the evaluator's own methods call them, so there is one implementation -- for games
    still in play; the caller scores finished games, the bear-off tables and the impossible
    outcomes as :class:`Evaluator` does. ``same`` says the two agree (no use of the parent).
    """

    children: Any
    boards: Any
    params: tuple[Any, ...]
    same: bool = False


class Evaluator(abc.ABC):
    """Scores boards after a play for the side that just moved (see the module docstring).

    Subclasses implement :meth:`_evaluate` for games still in play; finished games are
    scored exactly here, so no evaluator ever sees one. ``deterministic`` says whether
    the same board always gets the same answer, which is what makes caching valid.
    """

    name: str = "evaluator"
    deterministic: bool = True

    @abc.abstractmethod
    def _evaluate(self, boards: np.ndarray) -> np.ndarray:
        """Probabilities ``(N, 5)`` of boards whose game is not over."""

    def _evaluate_children(self, parents: np.ndarray, offsets: np.ndarray, children: np.ndarray) -> np.ndarray:
        """Like :meth:`_evaluate`, knowing each child's parent; by default the parent is ignored."""
        return self._evaluate(children)

    def evaluate_batch(self, boards: np.ndarray) -> np.ndarray:
        """Probabilities ``(N, 5)`` of boards after a play, for the side that just moved."""
        boards = np.ascontiguousarray(boards, dtype=np.int8)
        out = np.zeros((boards.shape[0], 5))
        live = finished_batch(boards, out)
        if live.any():
            values = np.ascontiguousarray(self._evaluate(boards[live]), np.float64)
            impossible_outcomes(boards[live], values)
            out[live] = values
        return out

    def evaluate_children(self, parents: np.ndarray, offsets: np.ndarray, children: np.ndarray) -> np.ndarray:
        """All children of one or more rolls in one call.

        ``parents`` (M, 26) are the boards before the plays (side to move's view) and
        ``children`` rows ``offsets[i]:offsets[i + 1]`` the results of parent ``i``, as
        :func:`gammon.movegen.generate_batch` lays them out. Some evaluators (pubeval)
        pick their weights by the position before the play.
        """
        children = np.ascontiguousarray(children, dtype=np.int8)
        out = np.zeros((children.shape[0], 5))
        live = finished_batch(children, out)
        if live.all():
            out = np.ascontiguousarray(self._evaluate_children(parents, offsets, children), np.float64)
            impossible_outcomes(children, out)
            return out
        if live.any():
            # Renumber the offsets over the children still in play.
            before = np.zeros(children.shape[0] + 1, np.int64)
            np.cumsum(live, out=before[1:])
            values = np.ascontiguousarray(self._evaluate_children(parents, before[offsets], children[live]), np.float64)
            impossible_outcomes(children[live], values)
            out[live] = values
        return out

    def kernel(self) -> EvaluatorKernel | None:
        """The compiled form of this evaluator, or None for one that has none (a random player)."""
        return None

    def judges(self, boards: np.ndarray) -> list[str]:
        """What judges each board after a play: "game over" where the game is won, else this
        evaluator's name (a net says which of its nets, the composite where its tables answer)."""
        boards = np.ascontiguousarray(boards, dtype=np.int8)
        live = finished_batch(boards, np.zeros((boards.shape[0], 5)))
        return [self.name if alive else "game over" for alive in live]

    def evaluate(self, board: np.ndarray) -> Probabilities:
        """One board after a play, for the side that just moved."""
        return Probabilities.from_array(self.evaluate_batch(np.asarray(board, np.int8)[None, :])[0])

    def evaluate_position(self, position: Position) -> Probabilities:
        """A position before its roll, for the side to act: the opponent 'just moved' into it."""
        return self.evaluate(movegen.flip_board(position.array())).flip()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class BearoffTables(Protocol):
    """What the composite needs of :class:`gammon.bearoff.BearoffEvaluator` (side-to-move boards)."""

    def covers(self, board: np.ndarray) -> bool: ...

    def on_roll_batch(self, boards: np.ndarray) -> np.ndarray: ...

    def kernel_arrays(self) -> tuple[Any, ...]: ...


def load_bearoff() -> BearoffTables | None:
    """The exact bear-off tables of :mod:`gammon.bearoff`, or None when they are not available.

    The tables expose ``covers(board)`` and ``on_roll_batch(boards) -> (N, 5)`` for the
    side on roll; the composite adapts them to the after-the-play point of view.
    """
    try:
        return BearoffEvaluator()
    except (OSError, GammonError, ValueError):  # tables not built or unreadable: play on without them
        return None


class CompositeEvaluator(Evaluator):
    """Chooses by position class: exact bear-off tables where they cover a position, else ``base``."""

    def __init__(self, base: Evaluator, bearoff: BearoffTables | None = None) -> None:
        self.base = base
        self.bearoff = bearoff
        self.name = base.name
        self.deterministic = base.deterministic

    def _covered(self, boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rows the tables cover, and those boards flipped to the side to move (the tables' view)."""
        if self.bearoff is None or boards.shape[0] == 0:
            return np.zeros(boards.shape[0], np.bool_), boards[:0]
        mask = board_classes(boards) == BEAROFF
        if not mask.any():
            return mask, boards[:0]
        flipped = flip_batch(boards[mask])
        batch = getattr(self.bearoff, "covers_batch", None)
        if batch is not None:
            covered = np.asarray(batch(flipped), np.bool_)
        else:
            covers = self.bearoff.covers
            covered = np.array([bool(covers(b)) for b in flipped], np.bool_)
        mask[np.flatnonzero(mask)[~covered]] = False
        return mask, flipped[covered]

    def _override(self, boards: np.ndarray, out: np.ndarray) -> np.ndarray:
        mask, flipped = self._covered(boards)
        if mask.any() and self.bearoff is not None:
            to_move = np.asarray(self.bearoff.on_roll_batch(flipped), np.float64)
            out[mask] = flip_probabilities(to_move)
        return out

    def kernel(self) -> EvaluatorKernel | None:
        """The base evaluator's (compiled loops apply :attr:`bearoff` themselves)."""
        return self.base.kernel()

    def _evaluate(self, boards: np.ndarray) -> np.ndarray:
        return self._override(boards, self.base._evaluate(boards))

    def judges(self, boards: np.ndarray) -> list[str]:
        boards = np.ascontiguousarray(boards, dtype=np.int8)
        names = self.base.judges(boards)
        covered, _ = self._covered(boards)
        return ["bear-off table" if table else name for name, table in zip(names, covered)]

    def _evaluate_children(self, parents: np.ndarray, offsets: np.ndarray, children: np.ndarray) -> np.ndarray:
        return self._override(children, self.base._evaluate_children(parents, offsets, children))


# -- turning a score into a win probability -------------------------------------------------
# Heuristic scores (pubeval's, the article's) become a win probability through a logistic
# curve per weight set (race, contact) over a few features: ``logit = w . features + bias``.
# Features of a child that vary only with its parent and its roll (the pip lead after the
# roll, the opponent's standing) are the same for every play of the roll, so the curve never
# reorders a roll's plays: it only makes values comparable across rolls, which search needs.


@kernel("(readonly(int8[::1]),)", ahead=False)
def pip_counts(board):
    """(mover's pips, opponent's pips) of a kernel board (bar = 25)."""
    mover = 0
    opponent = 0
    for point in range(26):
        n = board[point]
        if n > 0:
            mover += point * n
        elif n < 0:
            opponent -= (25 - point) * n
    return mover, opponent


@kernel("(readonly(int8[:, ::1]),)", ahead=False)
def leads_of_boards(boards):
    """Each board's pip lead for the side that just moved."""
    out = np.empty(boards.shape[0])
    for i in range(boards.shape[0]):
        mover, opponent = pip_counts(boards[i])
        out[i] = opponent - mover
    return out


@kernel("(readonly(int8[:, ::1]), readonly(int64[::1]), readonly(int8[:, ::1]))", ahead=False)
def leads_of_children(parents, offsets, children):
    """The lead after each roll: the parent's lead plus the most pips a child of the roll moved."""
    out = np.empty(children.shape[0])
    for i in range(parents.shape[0]):
        mover, opponent = pip_counts(parents[i])
        moved = 0
        for j in range(offsets[i], offsets[i + 1]):
            after, _ = pip_counts(children[j])
            if mover - after > moved:
                moved = mover - after
        for j in range(offsets[i], offsets[i + 1]):
            out[j] = opponent - mover + moved
    return out


@kernel("(readonly(float64[:, :]), readonly(boolean[::1]), readonly(float64[:, ::1]))", ahead=False)
def logistic_probabilities(features, race, calibration):
    """(N, 5) with only the win column set; ``calibration[0 if race else 1]`` is (weights..., bias)."""
    count, width = features.shape
    out = np.zeros((count, 5))
    for i in range(count):
        k = 0 if race[i] else 1
        z = calibration[k, width]
        for f in range(width):
            z += calibration[k, f] * features[i, f]
        out[i, 0] = 1.0 / (1.0 + np.exp(-z))
    return out

"""Expectimax search over the 21 distinct rolls, with GNU Backgammon-style move filters.

The value of a board after a play at ``n`` ply (n >= 1) is the average, over the
opponent's 21 rolls weighted 1/36 (doubles) or 2/36, of the opponent's best reply --
chosen at 0 ply among the plays of its roll (:meth:`Evaluator.evaluate_children`), as GNU
Backgammon chooses inner moves -- valued at ``n - 1`` ply (at 0 ply as a position on its
own, :meth:`Evaluator.evaluate_batch`) and seen back from our side. 1 ply is the
article's "probability score".

At the root every play is scored at 0 ply; a move filter then keeps the best few within
an equity window for the next ply, and so on. Each level is expanded in batches: all
positions x 21 rolls go through one :func:`~gammon.movegen.generate_batch` call and one
evaluator call. Values at 1 ply and more are cached by board.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .. import movegen
from .evaluator import Evaluator, finished_batch, flip_batch
from ..evaluation import Hint, Probabilities, equities, flip_probabilities
from ..play import Play
from ..variant import STANDARD, Variant
from ..compiled import kernel

#: The 21 distinct rolls and their probabilities (a non-double comes two ways out of 36).
ROLLS = np.array([(a, b) for a in range(1, 7) for b in range(a, 7)], np.int8)
ROLL_WEIGHTS = np.array([1.0 / 36 if a == b else 2.0 / 36 for a, b in ROLLS])
MAX_PLY = 3


@dataclass(frozen=True, slots=True)
class MoveFilter:
    """Which candidates a ply passes on: at most ``count``, each within ``window`` equity of the best."""

    count: int
    window: float

    def __post_init__(self) -> None:
        if self.count < 1 or self.window < 0:
            raise ValueError(f"a move filter keeps at least 1 play within a window >= 0, got {self.count}, {self.window}")

    def select(self, equity: np.ndarray) -> np.ndarray:
        """Indices of the kept candidates, best first (the best is always kept)."""
        order = np.argsort(-equity, kind="stable")
        best = equity[order[0]]
        kept = order[: self.count]
        return kept[equity[kept] >= best - self.window]


#: Filter after 0 ply (to 1 ply), then after 1 ply (to 2 ply). GNU Backgammon's default
#: keeps up to 8 plays within 0.16 after 0 ply; the 1-ply stage (3 within 0.06) is ours.
DEFAULT_FILTERS = (MoveFilter(8, 0.16), MoveFilter(3, 0.06), MoveFilter(2, 0.04))


@kernel("(readonly(float64[:, ::1]), readonly(int64[::1]))")
def segment_best(probabilities, offsets):
    """Index of the highest-equity row in each segment ``offsets[i]:offsets[i + 1]`` (first on ties)."""
    count = offsets.shape[0] - 1
    out = np.empty(count, np.int64)
    for i in range(count):
        best = offsets[i]
        best_equity = -1e300
        for j in range(offsets[i], offsets[i + 1]):
            p = probabilities[j]
            e = 2.0 * p[0] - 1.0 + p[1] + p[2] - p[3] - p[4]
            if e > best_equity:
                best_equity = e
                best = j
        out[i] = best
    return out


def best_replies(evaluator: Evaluator, rollers: np.ndarray, variant: Variant = STANDARD) -> np.ndarray:
    """For each board (side to roll's view) and each of the 21 rolls in :data:`ROLLS` order,
    the board after that side's best play at 0 ply: ``(len(rollers) * 21, 26)``."""
    parents = np.repeat(rollers, len(ROLLS), axis=0)
    dice = np.tile(ROLLS, (rollers.shape[0], 1))
    offsets, children, _, _ = movegen.generate_batch(parents, dice, variant.two_move_doubles)
    first = evaluator.evaluate_children(parents, offsets, children)
    return children[segment_best(first, offsets)]


@dataclass
class Analysis:
    """Every legal play of one roll with its probabilities and the ply they were computed at.

    ``boards`` are the positions after each play (mover's view); ``probabilities[i]`` is for
    the mover. Plays dropped by a move filter keep their shallower evaluation.
    """

    board: np.ndarray
    dice: tuple[int, int]
    boards: np.ndarray
    moves: np.ndarray
    counts: np.ndarray
    probabilities: np.ndarray
    plies: np.ndarray
    #: What judged each board after a play (:meth:`Evaluator.judges`), asked only for hints.
    judge: Callable[[np.ndarray], list[str]] | None = None

    def equities(self) -> np.ndarray:
        return equities(self.probabilities)

    def ranking(self) -> np.ndarray:
        """Play indices best first: deeper evaluations rank above shallower ones, as in GNU Backgammon."""
        return np.lexsort((np.arange(len(self.plies)), -self.equities(), -self.plies))

    def best(self) -> int:
        """The first of :meth:`ranking`, without sorting: the best equity among the deepest."""
        deepest = np.flatnonzero(self.plies == self.plies.max())
        return int(deepest[np.argmax(self.equities()[deepest])])

    def probabilities_of(self, index: int) -> Probabilities:
        return Probabilities.from_array(self.probabilities[index])

    def hints(self, cubeful: bool = False) -> list[Hint]:
        """The plays as ranked hints, best first (``cubeful``: the equities are cubeful, per cube)."""
        values = self.equities()
        order = self.ranking()
        best = values[order[0]]
        judges = self.judge(self.boards[order]) if self.judge is not None else [None] * len(order)
        hints = []
        for rank, (index, judge) in enumerate(zip(order, judges), start=1):
            play = Play.from_array(self.moves[index], int(self.counts[index]))
            hints.append(Hint(rank, play, self.probabilities_of(int(index)), int(self.plies[index]),
                              float(best - values[index]), float(values[index]) if cubeful else None, judge))
        return hints


class SearchInterrupted(Exception):
    """Raised inside a search when its :attr:`Search.interrupt` says stop (an engine's ``stop``)."""


#: Boards expanded per batch at 2 ply and deeper, between checks of :attr:`Search.interrupt`
#: (a 2-ply board costs tens of milliseconds, so a stop waits a fraction of a second).
INTERRUPT_CHUNK = 4


class Search:
    """n-ply expectimax with an evaluator, move filters and a cache of evaluated positions.

    ``interrupt``, when set, is asked between batches of deep expansions; once it answers
    True the search raises :class:`SearchInterrupted` (caches stay consistent: only finished
    values are stored).
    """

    def __init__(
        self,
        evaluator: Evaluator,
        filters: tuple[MoveFilter, ...] = DEFAULT_FILTERS,
        cache_size: int = 1 << 18,
        variant: Variant = STANDARD,
    ) -> None:
        self.evaluator = evaluator
        self.variant = variant
        self.filters = filters
        self.cache_size = cache_size
        self._cache: dict[tuple[bytes, int], np.ndarray] = {}
        self.cache_hits = 0
        self.interrupt: Callable[[], bool] | None = None

    def check_interrupt(self) -> None:
        if self.interrupt is not None and self.interrupt():
            raise SearchInterrupted()

    def chunks(self, count: int, plies: int) -> list[slice]:
        """Slices of ``count`` boards: one batch, or small ones checked for interrupts at 2+ ply."""
        if plies < 2 or self.interrupt is None:
            return [slice(0, count)]
        return [slice(i, min(count, i + INTERRUPT_CHUNK)) for i in range(0, count, INTERRUPT_CHUNK)]

    def clear_cache(self) -> None:
        self._cache.clear()

    # -- values of positions after a play ----------------------------------------------
    def value(self, boards: np.ndarray, plies: int) -> np.ndarray:
        """Probabilities ``(N, 5)`` of boards after a play, for the side that moved, at ``plies``."""
        boards = np.ascontiguousarray(boards, np.int8)
        if plies == 0:
            return self.evaluator.evaluate_batch(boards)
        out = np.empty((boards.shape[0], 5))
        use_cache = self.evaluator.deterministic and self.cache_size > 0
        todo = np.arange(boards.shape[0])
        if use_cache:
            missing = []
            for i in range(boards.shape[0]):
                hit = self._cache.get((boards[i].tobytes(), plies))
                if hit is None:
                    missing.append(i)
                else:
                    out[i] = hit
                    self.cache_hits += 1
            todo = np.array(missing, np.int64)
        if todo.size:
            expanded = np.empty((todo.size, 5))
            for part in self.chunks(todo.size, plies):
                self.check_interrupt()
                expanded[part] = self._expand(boards[todo[part]], plies)
            out[todo] = expanded
            if use_cache:
                if len(self._cache) + todo.size > self.cache_size:
                    self._cache.clear()
                for row in todo:
                    self._cache[(boards[row].tobytes(), plies)] = out[row].copy()
        return out

    def _expand(self, boards: np.ndarray, plies: int) -> np.ndarray:
        out = np.zeros((boards.shape[0], 5))
        live = finished_batch(boards, out)
        if not live.any():
            return out
        opponent = flip_batch(boards[live])
        count = opponent.shape[0]
        # The reply is chosen among its roll's plays, then valued as a position on its own.
        chosen = best_replies(self.evaluator, opponent, self.variant)
        replies = self.evaluator.evaluate_batch(chosen) if plies == 1 else self.value(chosen, plies - 1)
        ours = flip_probabilities(replies).reshape(count, len(ROLLS), 5)
        out[live] = np.einsum("mrk,r->mk", ours, ROLL_WEIGHTS)
        return out

    # -- the decision at the root ------------------------------------------------------
    def analyse(self, board: np.ndarray, d1: int, d2: int, ply: int = 0, full: bool = False) -> Analysis:
        """Score every play of ``board`` (side to move) for the roll at 0 ply, the survivors deeper.

        With ``full`` False the search stops as soon as one candidate is left (the choice is
        made); hints pass True to give the best play its full-depth evaluation.
        """
        if not 0 <= ply <= MAX_PLY:
            raise ValueError(f"ply must be 0-{MAX_PLY}, got {ply}")
        board = np.ascontiguousarray(board, np.int8)
        children, moves, counts = movegen.generate(board, d1, d2, self.variant.two_move_doubles)
        n = children.shape[0]
        probabilities = self.evaluator.evaluate_children(board[None, :], np.array([0, n], np.int64), children)
        plies = np.zeros(n, np.int64)
        candidates = np.arange(n)
        for level in range(1, ply + 1):
            if n == 1 and not full:
                break
            chooser = self.filters[min(level - 1, len(self.filters) - 1)]
            candidates = candidates[chooser.select(equities(probabilities[candidates]))]
            if candidates.size == 1 and not full:
                break
            probabilities[candidates] = self.value(children[candidates], level)
            plies[candidates] = level
        return Analysis(board, (int(d1), int(d2)), children, moves, counts, probabilities, plies,
                        self.evaluator.judges)

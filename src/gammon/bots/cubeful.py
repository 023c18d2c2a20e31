"""Cubeful n-ply search: cube decisions and checker play by cubeful equity or match winning chance.

The search of :mod:`gammon.bots.search`, carrying cube states. A node's value depends on
who holds the cube and at what level, so each node is valued for a small set of
:class:`~gammon.cube.CubeContext` s at once (no double / double-take at the root, and
below them every cube action a side may take). At each node the side on roll first makes
its cube decision -- the larger of *no double* and the opponent's better answer to a
double, ``max(ND, min(DT, DP))`` -- then the 21 rolls are averaged with each roll's play
chosen at 0 ply (as inner plays are in the cubeless search). The leaves are valued with
Janowski's formulas (:mod:`gammon.cube.janowski`) from the evaluator's probabilities.

Cubeless probabilities are averaged through the same tree, so a cubeful analysis also
reports the win and gammon chances at its depth.

Values are in the context's units: points in money play, match winning chance in a
match; :meth:`CubeContext.normalise` turns them into equities per cube.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import movegen
from ..cube.context import CubeContext, Owner
from ..evaluation import CubeDecision, flip_probabilities
from ..cube.janowski import cube_efficiencies, cubeful_values
from .evaluator import finished_batch, flip_batch
from .search import MAX_PLY, ROLL_WEIGHTS, ROLLS, Analysis, Search, best_replies


def _opponent_value(values: np.ndarray, context: CubeContext) -> np.ndarray:
    """The same outcome valued by the other side: minus the points, or one minus the MWC."""
    return -values if context.is_money else 1.0 - values


def _answers(context: CubeContext) -> list[CubeContext]:
    """The contexts a side on roll may leave the game in: as it is, doubled, beavered."""
    out = [context]
    if context.can_double:
        out.append(context.doubled())
        if context.flip().can_beaver:
            out.append(context.beavered())
    return out


@dataclass
class CubefulAnalysis(Analysis):
    """An :class:`Analysis` whose plays are ranked by cubeful equity in ``context``.

    ``cubeful[i]`` is the normalised cubeful equity after play ``i`` (money: points per
    cube; match: GNU Backgammon's money-like equity) and ``values[i]`` the same in the
    context's units (points or MWC).
    """

    context: CubeContext | None = None
    cubeful: np.ndarray | None = None
    values: np.ndarray | None = None

    def equities(self) -> np.ndarray:
        return self.cubeful if self.cubeful is not None else super().equities()


class CubefulSearch:
    """Cube decisions and cubeful checker play on top of a (cubeless) :class:`Search`."""

    def __init__(self, search: Search, cache_size: int = 1 << 16) -> None:
        self.search = search
        self.evaluator = search.evaluator
        self.cache_size = cache_size
        self._cache: dict[tuple[bytes, int, CubeContext, int], tuple[float, np.ndarray]] = {}

    def clear_cache(self) -> None:
        self._cache.clear()

    # -- the recursion ---------------------------------------------------------------------
    def roller_values(
        self, after: np.ndarray, contexts: list[CubeContext], plies: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Values ``(N, S)`` and probabilities ``(N, 5)`` for the side to roll at boards
        ``after`` a play (the previous mover's view), the cube left as in each context.

        The side on roll does not double at this node (its cube action is the caller's).
        """
        after = np.ascontiguousarray(after, np.int8)
        count = after.shape[0]
        if plies == 0:
            probabilities = flip_probabilities(self.evaluator.evaluate_batch(after))
            efficiency = cube_efficiencies(flip_batch(after))
            values = np.stack([cubeful_values(probabilities, c, efficiency) for c in contexts], axis=1)
            return values, probabilities
        values = np.empty((count, len(contexts)))
        probabilities = np.empty((count, 5))
        todo = np.arange(count)
        cacheable = self.evaluator.deterministic and self.cache_size > 0
        if cacheable:
            missing = []
            for i in range(count):
                key = after[i].tobytes()
                hits = [self._cache.get((key, plies, c, id(c.met))) for c in contexts]
                if all(h is not None for h in hits):
                    values[i] = [h[0] for h in hits]  # type: ignore[index]
                    probabilities[i] = hits[0][1]  # type: ignore[index]
                else:
                    missing.append(i)
            todo = np.array(missing, np.int64)
        if todo.size:
            v = np.empty((todo.size, len(contexts)))
            p = np.empty((todo.size, 5))
            for part in self.search.chunks(todo.size, plies):
                self.search.check_interrupt()
                v[part], p[part] = self._expand(after[todo[part]], contexts, plies)
            values[todo] = v
            probabilities[todo] = p
            if cacheable:
                if len(self._cache) + todo.size * len(contexts) > self.cache_size:
                    self._cache.clear()
                for row, i in enumerate(todo):
                    key = after[i].tobytes()
                    for s, c in enumerate(contexts):
                        self._cache[(key, plies, c, id(c.met))] = (float(v[row, s]), p[row].copy())
        return values, probabilities

    def _expand(self, after: np.ndarray, contexts: list[CubeContext], plies: int) -> tuple[np.ndarray, np.ndarray]:
        count = after.shape[0]
        mover_probabilities = np.zeros((count, 5))
        live = finished_batch(after, mover_probabilities)
        probabilities = flip_probabilities(mover_probabilities)
        values = np.empty((count, len(contexts)))
        if (~live).any():
            # A finished game: the exact probabilities put Janowski's formula at p = 0 or 1.
            done = probabilities[~live]
            for s, c in enumerate(contexts):
                values[~live, s] = cubeful_values(done, c, 0.0)
        if live.any():
            rollers = flip_batch(after[live])
            n = rollers.shape[0]
            chosen = best_replies(self.evaluator, rollers, self.search.variant)
            child_values, child_probabilities = self.mover_values(chosen, contexts, plies - 1)
            values[live] = np.einsum("mrs,r->ms", child_values.reshape(n, len(ROLLS), -1), ROLL_WEIGHTS)
            probabilities[live] = np.einsum("mrk,r->mk", child_probabilities.reshape(n, len(ROLLS), 5), ROLL_WEIGHTS)
        return values, probabilities

    def mover_values(
        self, after: np.ndarray, contexts: list[CubeContext], plies: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Values ``(N, S)`` and probabilities for the side that just played into ``after``,
        each context from its view; the side now on roll makes its cube decision first."""
        roller_contexts: list[CubeContext] = []
        index: dict[CubeContext, int] = {}
        plans = []
        for context in contexts:
            answers = _answers(context.flip())
            for a in answers:
                if a not in index:
                    index[a] = len(roller_contexts)
                    roller_contexts.append(a)
            plans.append([index[a] for a in answers])
        roller, probabilities = self.roller_values(after, roller_contexts, plies)
        values = np.empty((after.shape[0], len(contexts)))
        for s, (context, plan) in enumerate(zip(contexts, plans)):
            best = roller[:, plan[0]]
            if len(plan) > 1:
                # The taker answers with whatever is worst for the doubler.
                answer = np.minimum(roller[:, plan[1]], context.flip().cash)
                if len(plan) > 2:
                    answer = np.minimum(answer, roller[:, plan[2]])
                best = np.maximum(best, answer)
            values[:, s] = _opponent_value(best, context)
        return values, flip_probabilities(probabilities)

    # -- decisions ---------------------------------------------------------------------------
    def decide(self, board: np.ndarray, context: CubeContext, plies: int = 0) -> CubeDecision:
        """The cube decision of the side on roll of a kernel ``board`` (before rolling)."""
        if not 0 <= plies <= MAX_PLY:
            raise ValueError(f"ply must be 0-{MAX_PLY}, got {plies}")
        after = movegen.flip_board(np.ascontiguousarray(board, np.int8))[None, :]
        contexts = [context, context.doubled()]
        beaver = context.can_double and context.flip().can_beaver
        if beaver:
            contexts.append(context.beavered())
        values, _ = self.roller_values(after, contexts, plies)
        nd, dt = float(values[0, 0]), float(values[0, 1])
        dp = context.cash
        normalise = context.normalise
        mwc = None if context.is_money else (nd, dt, dp)
        return CubeDecision.from_equities(
            float(normalise(nd)), float(normalise(dt)), 1.0,  # passing gives exactly the cube
            available=context.can_double,
            redouble=context.owner is Owner.ME,
            beaver=float(normalise(values[0, 2])) if beaver else None,
            mwc=mwc,
        )

    def value(self, board: np.ndarray, context: CubeContext, plies: int = 0) -> tuple[float, np.ndarray]:
        """Cubeful value (context units) and probabilities of the side on roll, before its cube action."""
        after = movegen.flip_board(np.ascontiguousarray(board, np.int8))[None, :]
        answers = _answers(context)
        values, probabilities = self.roller_values(after, answers, plies)
        best = values[0, 0]
        if len(answers) > 1:
            answer = min(values[0, 1], context.cash, *(values[0, 2:]))
            best = max(best, answer)
        return float(best), probabilities[0]

    # -- checker play ----------------------------------------------------------------------------
    def analyse(self, board: np.ndarray, d1: int, d2: int, context: CubeContext, ply: int = 0,
                full: bool = False) -> CubefulAnalysis:
        """Every play of the roll ranked by cubeful equity in ``context`` (the mover's view)."""
        if not 0 <= ply <= MAX_PLY:
            raise ValueError(f"ply must be 0-{MAX_PLY}, got {ply}")
        board = np.ascontiguousarray(board, np.int8)
        children, moves, counts = movegen.generate(board, d1, d2, self.search.variant.two_move_doubles)
        n = children.shape[0]
        values, probabilities = self.mover_values(children, [context], 0)
        values = values[:, 0]
        plies = np.zeros(n, np.int64)
        candidates = np.arange(n)
        filters = self.search.filters
        for level in range(1, ply + 1):
            if n == 1 and not full:
                break
            chooser = filters[min(level - 1, len(filters) - 1)]
            candidates = candidates[chooser.select(np.asarray(context.normalise(values[candidates])))]
            if candidates.size == 1 and not full:
                break
            v, p = self.mover_values(children[candidates], [context], level)
            values[candidates] = v[:, 0]
            probabilities[candidates] = p
            plies[candidates] = level
        cubeful = np.asarray(context.normalise(values), np.float64)
        return CubefulAnalysis(board, (int(d1), int(d2)), children, moves, counts, probabilities, plies,
                               self.search.evaluator.judges, context=context, cubeful=cubeful, values=values)

    # -- resignations ----------------------------------------------------------------------------
    def resignation(self, board: np.ndarray, context: CubeContext, points: int, plies: int = 0) -> tuple[float, float]:
        """``(play_on, resign)``: normalised equities, for the side on roll of ``board`` in
        ``context``, of playing on (its cube action included) and of resigning ``points``
        (1 single, 2 gammon, 3 backgammon) times the cube."""
        if points not in (1, 2, 3):
            raise ValueError(f"a resignation gives 1, 2 or 3 points times the cube, got {points}")
        play_on, _ = self.value(board, context, plies)
        resign = context.value_of(-points * context.cube)
        return float(context.normalise(play_on)), float(context.normalise(resign))

    def accept_resignation(self, board: np.ndarray, context: CubeContext, points: int, plies: int = 0) -> bool:
        """Whether the opponent of the resigning side should accept: ``board`` and ``context``
        are the *resigning* side's, on roll. It accepts when it gets at least its value of play."""
        play_on, resign = self.resignation(board, context, points, plies)
        return resign <= play_on + RESIGN_TOLERANCE

    def offer_resignation(self, board: np.ndarray, context: CubeContext, plies: int = 0) -> int | None:
        """The smallest resignation (1, 2 or 3 points) that gives nothing away, or None.

        Worth offering when the opponent would accept it and it costs the side on roll
        less than :data:`RESIGN_TOLERANCE` per cube against playing on: hopeless positions.
        """
        if self.static(board)[0] > HOPELESS:
            return None
        value, _ = self.value(board, context, plies)  # playing on: the same whatever is offered
        play_on = float(context.normalise(value))
        for points in (1, 2, 3):
            resign = float(context.normalise(context.value_of(-points * context.cube)))
            if resign <= play_on + RESIGN_TOLERANCE:
                return points if play_on - resign <= RESIGN_TOLERANCE else None
        return None

    def static(self, board: np.ndarray) -> np.ndarray:
        """Cubeless 0-ply probabilities of the side on roll of ``board`` (a quick screen)."""
        after = movegen.flip_board(np.ascontiguousarray(board, np.int8))[None, :]
        return flip_probabilities(self.evaluator.evaluate_batch(after))[0]


#: Equity per cube a resignation may give away (rounding in the evaluations).
RESIGN_TOLERANCE = 0.005
#: Winning chance under which a resignation is considered at all.
HOPELESS = 0.01

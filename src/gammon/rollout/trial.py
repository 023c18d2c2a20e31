"""One rollout trial: a game played out from a position by a bot, its luck measured as it goes.

A trial plays the position to the end (or to a truncation) with a :class:`~gammon.bots.Bot`'s
plays and, cubeful, its cube decisions. Variance reduction is GNU Backgammon's luck
adjustment: before each roll the evaluator values the best 0-ply play of each of the 21
rolls; the luck of the roll that came is its value less the rolls' average, and the trial's
result is the game's outcome less the luck of every roll. Luck averages zero over the dice,
so the mean is unchanged and most of the noise of the dice cancels.

Dice are quasi-random: trial ``k`` opens with roll ``k % 36`` of :data:`ORDERED_ROLLS`, and
its second roll is chosen so that every 36 consecutive trials see each second roll once
and every 1,296 see each pair of rolls once (a Latin square). Later rolls come from the
seeded stream ``(seed, k)`` (:class:`~gammon.dice.DiceStream`), so a trial depends on the
seed and its number only, not on the worker that plays it.

The trial itself is compiled (:mod:`gammon.rollout.kernel`); :class:`Roller` prepares what it
reads -- the evaluator's kernel, the bear-off tables, the graph of cube contexts -- and, for a
bot that does not play at 0 ply without noise, answers its questions with the bot.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from .. import compiled, movegen
from ..bots import Bot, CompositeEvaluator, load_bearoff
from ..bots.chooser import tables_of
from ..bots.search import SearchInterrupted
from ..cube.context import MAX_LEVELS, CubeContext
from ..errors import GammonError
from ..evaluation import BEAVER, PASS, TAKE, Response
from . import kernel

#: The 36 ordered rolls in the fixed order quasi-random dice take them.
ORDERED_ROLLS = tuple((a, b) for a in range(1, 7) for b in range(1, 7))
#: Step between second rolls of consecutive trials: coprime with 36, so each block of 36
#: trials sees every second roll once (and 1,296 trials every pair of first and second roll).
SECOND_STEP = kernel.SECOND_STEP
#: Turns after which an untruncated trial stops anyway (no real game comes near).
MAX_TURNS = kernel.MAX_TURNS
#: Columns of a trial's samples: the five probabilities, cubeless equity, cubeful equity.
COLUMNS = 7
#: A bot's answer to a double, as the kernel numbers it.
_ANSWERS = {Response.TAKE: TAKE, Response.PASS: PASS, Response.BEAVER: BEAVER}


class RolloutError(GammonError, ValueError):
    """A rollout that cannot run as asked (bad settings, an external engine, Ray missing)."""


def quasi_random_rolls(trial: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """The first two rolls of trial ``trial`` (see the module docstring).

    >>> quasi_random_rolls(0), quasi_random_rolls(37)
    (((1, 1), (1, 1)), ((1, 2), (2, 3)))
    """
    first = trial % 36
    second = (trial // 36 + SECOND_STEP * first) % 36
    return ORDERED_ROLLS[first], ORDERED_ROLLS[second]


@dataclass(frozen=True)
class CubeGraph:
    """Every cube context a trial from ``contexts[0]`` can reach, as arrays the kernel reads.

    Node ``i`` is ``contexts[i]``; ``arrays`` holds, by node: the outcome table and double flags
    (padded to :data:`~gammon.cube.context.MAX_LEVELS`), the levels used, the owner, whether the
    cube is dead (Janowski's efficiency 0), whether the side may double and whether a doubled
    side may beaver, the cash, the nodes a flip, a double and a beaver lead to, money or match,
    whether the money screen applies (no Jacoby: a side not ahead never doubles), and the values
    of winning and losing the cube (what normalises an equity).
    """

    contexts: tuple[CubeContext, ...]
    arrays: tuple[np.ndarray, ...]

    @classmethod
    def of(cls, root: CubeContext | None) -> CubeGraph:
        """The graph from ``root`` (None: cubeless, no nodes)."""
        contexts: list[CubeContext] = []
        index: dict[CubeContext, int] = {}

        def node(context: CubeContext) -> int:
            if context not in index:
                index[context] = len(contexts)
                contexts.append(context)
            return index[context]

        if root is not None:
            node(root)
        links: list[tuple[int, int, int]] = []
        done = 0
        while done < len(contexts):
            context = contexts[done]
            flipped = node(context.flip())
            doubled = beavered = -1
            if context.can_double:
                doubled = node(context.doubled())
                if context.flip().can_beaver:
                    beavered = node(context.beavered())
            links.append((flipped, doubled, beavered))
            done += 1
        count = len(contexts)
        table = np.zeros((count, MAX_LEVELS, 6))
        flags = np.zeros((count, MAX_LEVELS, 2), np.bool_)
        levels = np.zeros(count, np.int64)
        dead = np.zeros(count, np.bool_)
        for i, context in enumerate(contexts):
            used = context.levels()
            levels[i] = used
            table[i, :used] = context.outcome_table(used)
            flags[i, :used] = context.double_flags(used)
            dead[i] = context.crawford or not flags[i, :used].any()
        link = np.array(links, np.int64).reshape(count, 3)
        arrays = (
            table, flags, levels,
            np.array([int(c.owner) for c in contexts], np.int64), dead,
            np.array([c.can_double for c in contexts], np.bool_),
            np.array([c.can_beaver for c in contexts], np.bool_),
            np.array([c.cash for c in contexts], np.float64),
            np.ascontiguousarray(link[:, 0]), np.ascontiguousarray(link[:, 1]), np.ascontiguousarray(link[:, 2]),
            np.array([c.is_money for c in contexts], np.bool_),
            np.array([c.is_money and not c.jacoby for c in contexts], np.bool_),
            np.array([c.value_of(c.cube) for c in contexts], np.float64),
            np.array([c.value_of(-c.cube) for c in contexts], np.float64),
        )
        return cls(tuple(contexts), arrays)


class Side(Protocol):
    """Who plays one side of a trial: a :class:`~gammon.bots.Bot`, or anything that answers alike
    (a benchmark's adapter for another program's plays)."""

    def reseed(self, seed: np.random.SeedSequence) -> None: ...

    def choose_board(self, board: np.ndarray, d1: int, d2: int, context: CubeContext | None = None) -> np.ndarray: ...

    def should_double(self, board: np.ndarray, context: CubeContext) -> bool: ...

    def answer_double(self, board: np.ndarray, context: CubeContext) -> Response: ...


class Roller:
    """Plays trials from a position with one bot: its plays, its cube decisions, its evaluator's luck.

    ``truncate`` ends a trial after that many turns, valued by the evaluator, with the exact
    bear-off tables where they cover the position; cubeless trials also stop, exactly, as
    soon as the tables cover a position. The bot's evaluator needs a compiled form
    (:meth:`~gammon.bots.Evaluator.kernel`: ``nn``, ``pubeval``, ``simple``); a bot at 0 ply
    without noise plays inside the compiled trial, any other answers the trial's questions.
    ``sides`` (the root's side, the other) puts other players in the seats -- another program's
    plays, one seat each, to tell a difference in play from one in the rollout.
    """

    def __init__(self, bot: Bot, truncate: int | None = None, variance_reduction: bool = True,
                 sides: tuple[Side, Side] | None = None) -> None:
        if truncate is not None and truncate < 1:
            raise RolloutError(f"truncate is a number of turns >= 1, got {truncate}")
        if not bot.variant.standard:
            raise RolloutError(f"rollouts play the standard game only, not {bot.variant}")
        compiled = bot.evaluator.kernel()
        if compiled is None:
            raise RolloutError(f"rollouts need an evaluator with a compiled form (nn, pubeval, simple); "
                               f"{bot.evaluator.name} has none")
        self.bot = bot
        self.truncate = truncate
        self.variance_reduction = variance_reduction
        self.kernel = compiled
        evaluator = bot.evaluator
        self.tables = tables_of(evaluator.bearoff if isinstance(evaluator, CompositeEvaluator) else None)
        exact = evaluator.bearoff if isinstance(evaluator, CompositeEvaluator) and evaluator.bearoff else load_bearoff()
        self.exact = tables_of(exact)
        #: Who plays the root's side and the other: the bot, unless ``sides`` says otherwise (the
        #: evaluator's luck and truncation stay the bot's: luck averages zero whoever plays).
        self.sides: tuple[Side, Side] = sides if sides is not None else (bot, bot)
        #: Whether the players answer the trial's questions (any but a noise-free 0-ply bot on both sides).
        self.asks = sides is not None or not (bot.ply == 0 and bot.noise == 0.0)
        self._graphs: dict[CubeContext | None, CubeGraph] = {}
        self._buffers = movegen.play_buffers()
        self._probabilities = np.empty((movegen.MAX_PLAYS, 5))
        self._values = np.empty(movegen.MAX_PLAYS)

    def prepare(self) -> None:
        """Compile this bot's trial now (with every other kernel imported, on every core): before a
        rollout's workers fork, so each loads it instead of compiling it again."""
        kernel.trial_functions(self.kernel)
        compiled.prepare()

    def graph(self, context: CubeContext | None) -> CubeGraph:
        """The cube graph from ``context``, made once per root context."""
        if context not in self._graphs:
            self._graphs[context] = CubeGraph.of(context)
        return self._graphs[context]

    def trial(self, board: np.ndarray, context: CubeContext | None, seed: int, number: int) -> np.ndarray:
        """Samples of trial ``number`` for the side on roll of ``board`` (before its roll).

        Returns :data:`COLUMNS` values: the five probabilities, the cubeless equity and the
        cubeful equity per cube in ``context`` (NaN for a cubeless trial), each less the luck.
        """
        return self.trials(board, context, seed, number, number + 1)[0]

    def trials(self, board: np.ndarray, context: CubeContext | None, seed: int, start: int, stop: int,
               interrupt: Callable[[], bool] | None = None) -> np.ndarray:
        """Samples ``(stop - start, COLUMNS)`` of trials ``start``..``stop - 1``; ``interrupt``, asked
        before each trial, stops them with :class:`~gammon.bots.search.SearchInterrupted` (an engine's ``stop``)."""
        board = np.ascontiguousarray(board, np.int8)
        graph = self.graph(context)
        root = 0 if context is not None else -1
        out = np.empty((stop - start, COLUMNS))
        k = self.kernel
        advance, play = kernel.trial_functions(k)
        truncate = self.truncate or 0
        if not self.asks and interrupt is None:  # every trial inside one compiled call
            play(k.params, k.same, self.tables, self.exact, graph.arrays, root, board, seed, start, truncate,
                 self.variance_reduction, out)
            return out
        state = np.empty(26, np.int8)
        after = np.empty(26, np.int8)
        ints = np.zeros(kernel.INTS, np.int64)
        luck = np.zeros(6)
        stream = np.zeros(1, np.uint64)
        chosen = np.empty((21, 26), np.int8)
        chosen_p = np.empty((21, 5))
        for row, number in enumerate(range(start, stop)):
            if interrupt is not None and interrupt():
                raise SearchInterrupted()
            if self.asks:
                for player in {id(side): side for side in self.sides}.values():
                    player.reseed(np.random.SeedSequence([seed, number]))
            kernel.start(board, root, seed, number, state, ints, luck, stream)
            while True:
                request = advance(k.params, k.same, self.tables, self.exact, graph.arrays, root, number, truncate,
                                  self.variance_reduction, self.asks, state, ints, luck, stream, after, chosen,
                                  chosen_p, self._buffers, self._probabilities, self._values, out[row])
                if request == kernel.DONE:
                    break
                self._answer(request, state, ints, after, graph)
        return out

    def _answer(self, request: int, state: np.ndarray, ints: np.ndarray, after: np.ndarray, graph: CubeGraph) -> None:
        """The bot's answer to the trial's question, where the trial reads it."""
        roller = int(ints[kernel.ROLLER])
        context = graph.contexts[roller] if roller >= 0 else None
        on_roll = self.sides[0] if ints[kernel.MINE] else self.sides[1]
        if request == kernel.ASK_DOUBLE:
            assert context is not None
            ints[kernel.REPLY] = 1 if on_roll.should_double(state, context) else 0
        elif request == kernel.ASK_ANSWER:  # the side on roll doubled: the other answers
            assert context is not None
            taker = self.sides[1] if ints[kernel.MINE] else self.sides[0]
            ints[kernel.REPLY] = _ANSWERS[taker.answer_double(state, context)]
        else:
            after[:] = on_roll.choose_board(state, int(ints[kernel.D1]), int(ints[kernel.D2]), context)


__all__ = ["COLUMNS", "ORDERED_ROLLS", "CubeGraph", "Roller", "RolloutError", "Side", "quasi_random_rolls"]

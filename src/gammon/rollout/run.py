"""Rollouts run: trials in blocks over the one worker pool or a Ray cluster, and their statistics.

Trials go out in blocks of :data:`BLOCK` (one block per task) and come back in order, so
the result -- and where a standard-error target stops the run -- depends on the seed only,
never on how many workers or Ray nodes played the blocks.
"""

from __future__ import annotations

import math
import sys
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..bots import Bot
from ..cube.context import CubeContext
from ..dice import ci95
from ..evaluation import Probabilities
from ..position import Position
from ..state import GameState, GameStatus
from ..workers import Workers, ray_imap
from .trial import COLUMNS, Roller, RolloutError

#: Trials per task, and the checkpoints of a standard-error target: a multiple of 36, so every
#: block opens with each first roll once.
BLOCK = 36
#: Trials when none are asked for: each pair of first and second roll once.
DEFAULT_TRIALS = 1296
#: Outputs by name, as ``--json`` and :meth:`RolloutResult.as_dict` key them.
PROBABILITY_NAMES = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
#: A bot, or a picklable function that makes one (each worker and Ray task builds its own):
#: ``functools.partial(gammon.players.load_player, "nn")``.
BotSource = Bot | Callable[[], Bot]


@dataclass(frozen=True)
class RolloutResult:
    """What a rollout found, for the side on roll: means, standard errors and 95 % intervals.

    ``probabilities`` are the means made consistent (:func:`consistent`); ``equity`` the mean
    of the trials' cubeless equities.

    ``cubeful_equity`` is per cube (money: points / cube; match: GNU Backgammon's money-like
    equity), None for a cubeless rollout. ``std_error`` and ``ci95`` are keyed like the outputs.
    """

    trials: int
    probabilities: Probabilities
    equity: float
    cubeful_equity: float | None
    std_error: dict[str, Any]
    ci95: dict[str, Any]
    samples: np.ndarray = field(repr=False, compare=False)

    def as_dict(self) -> dict[str, Any]:
        """The ``--json`` object: trials, probabilities, equity, cubeful_equity, std_error."""
        return {
            "trials": self.trials,
            "probabilities": [round(v, 6) for v in self.probabilities.as_tuple()],
            "equity": round(self.equity, 6),
            "cubeful_equity": None if self.cubeful_equity is None else round(self.cubeful_equity, 6),
            "std_error": {
                "probabilities": [round(v, 6) for v in self.std_error["probabilities"]],
                "equity": round(self.std_error["equity"], 6),
                "cubeful_equity": None if self.std_error["cubeful_equity"] is None
                else round(self.std_error["cubeful_equity"], 6),
            },
        }

    @property
    def main_error(self) -> float:
        """The standard error a target stops on: the cubeful equity's, else the equity's."""
        return self.std_error["equity"] if self.cubeful_equity is None else self.std_error["cubeful_equity"]

    @classmethod
    def from_samples(cls, samples: np.ndarray) -> RolloutResult:
        """Statistics of trial samples ``(N, COLUMNS)`` (see :meth:`Roller.trial`)."""
        means, errors, intervals = [], [], []
        for column in range(COLUMNS):
            mean, error, interval = _statistics(samples[:, column])
            means.append(mean)
            errors.append(error)
            intervals.append(interval)
        cubeful = not math.isnan(means[6])
        return cls(
            trials=int(samples.shape[0]),
            probabilities=consistent(means[:5]),
            equity=means[5],
            cubeful_equity=means[6] if cubeful else None,
            std_error={"probabilities": errors[:5], "equity": errors[5], "cubeful_equity": errors[6] if cubeful else None},
            ci95={"probabilities": intervals[:5], "equity": intervals[5], "cubeful_equity": intervals[6] if cubeful else None},
            samples=samples,
        )


def consistent(means: list[float]) -> Probabilities:
    """Luck-adjusted means as :class:`Probabilities`: each clamped into what the others allow.

    Subtracting luck keeps each mean unbiased but not inside the outcomes' limits: a few trials
    can give a win rate above 1, or lose gammons above the losses. The equity is the mean of
    the trials' equities, never recomputed from the clamped values.
    """
    win = min(max(means[0], 0.0), 1.0)
    win_gammon = min(max(means[1], 0.0), win)
    lose_gammon = min(max(means[3], 0.0), 1.0 - win)
    return Probabilities(win, win_gammon, min(max(means[2], 0.0), win_gammon), lose_gammon,
                         min(max(means[4], 0.0), lose_gammon))


def _statistics(column: np.ndarray) -> tuple[float, float, tuple[float, float]]:
    """Mean, standard error and 95 % interval of independent trials.

    :func:`gammon.dice.ci95` pairs adjacent samples (duplicate games); each trial repeated
    twice makes every pair one trial, so it gives the plain interval of independent ones.
    """
    mean = float(column.mean())
    low, high = ci95(np.repeat(column, 2))
    error = (high - low) / (2 * 1.96) if math.isfinite(high - low) else math.inf
    return mean, error, (low, high)


# -- the work, wherever it runs --------------------------------------------------------------------
_roller: Roller | None = None  # a worker's roller, made once by _start


def _start(source: BotSource, truncate: int | None, variance_reduction: bool) -> None:
    global _roller
    bot = source if isinstance(source, Bot) else source()
    if not isinstance(bot, Bot):
        raise RolloutError(f"rollouts need one of gammon's own players (an evaluator and a search), got {bot!r}")
    _roller = Roller(bot, truncate, variance_reduction)


def _block(task: tuple[np.ndarray, CubeContext | None, int, int, int]) -> np.ndarray:
    board, context, seed, start, stop = task
    assert _roller is not None
    return _roller.trials(board, context, seed, start, stop)


def _ray_block(run: str, source: BotSource, truncate: int | None, variance_reduction: bool,
               task: tuple[np.ndarray, CubeContext | None, int, int, int]) -> np.ndarray:
    """One block as a Ray task: the roller is made once per Ray worker process and run."""
    key = (run, truncate, variance_reduction)
    if getattr(_ray_block, "key", None) != key or _roller is None:
        _start(source, truncate, variance_reduction)
        _ray_block.key = key  # type: ignore[attr-defined]
    return _block(task)


def _position(position: Position | GameState | np.ndarray, cube: bool,
              context: CubeContext | None) -> tuple[np.ndarray, CubeContext | None]:
    """The kernel board of the side on roll and its cube context (None: cubeless)."""
    if isinstance(position, GameState):
        if position.status != GameStatus.PLAYING:
            raise RolloutError(f"the game is over ({position.status.name.lower()}): there is nothing to roll out")
        if position.dice is not None:
            raise RolloutError(
                "a rollout starts before the roll: give the position without dice "
                "(to roll out each play of a roll, use gammon hint --player rollout:TRIALS)")
        if cube and context is None:
            context = CubeContext.from_state(position)
        position = position.position
    board = position.array() if isinstance(position, Position) else np.ascontiguousarray(position, np.int8)
    if board.shape != (26,):
        raise RolloutError(f"a rollout needs a position or a kernel board of 26 counts, got shape {board.shape}")
    if cube and context is None:
        context = CubeContext()  # money, cube centred
    return board, context if cube else None


def rollout(
    position: Position | GameState | np.ndarray,
    player: BotSource,
    *,
    trials: int = DEFAULT_TRIALS,
    truncate: int | None = None,
    cube: bool = False,
    context: CubeContext | None = None,
    seed: int = 0,
    se: float | None = None,
    workers: int = 1,
    ray: str | None = None,
    variance_reduction: bool = True,
    progress: bool = False,
) -> RolloutResult:
    """Roll out ``position`` for the side on roll (before its roll) with ``player``'s plays.

    ``cube``: cubeful, with the state's cube and score (or ``context``; a bare position is a
    money game, cube centred), the player's cube decisions and Janowski's values at
    truncation. ``se`` stops once the standard error of the (cubeful) equity is below it,
    checked every :data:`BLOCK` trials. ``workers`` processes, or ``ray`` (``auto`` or a
    cluster address) for Ray tasks: the same result for the same seed either way.

    >>> from functools import partial
    >>> from gammon.players import load_player
    >>> result = rollout(Position(), partial(load_player, "pubeval"), trials=72, truncate=2)
    >>> result.trials, abs(result.equity) < 0.5
    (72, True)
    """
    if trials < 2:
        raise RolloutError(f"a rollout needs at least 2 trials (a standard error needs two), got {trials}")
    if truncate is not None and truncate < 1:
        raise RolloutError(f"truncate is a number of turns >= 1, got {truncate}")
    if se is not None and not se > 0:
        raise RolloutError(f"the standard-error target must be > 0, got {se}")
    if seed < 0:
        raise RolloutError(f"the seed must be >= 0, got {seed}")
    if workers < 1:
        raise RolloutError(f"workers must be >= 1, got {workers}")
    if context is not None:
        cube = True
    board, context = _position(position, cube, context)
    tasks = [(board, context, seed, start, min(trials, start + BLOCK)) for start in range(0, trials, BLOCK)]
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=trials, unit="trial", desc="rollout", file=sys.stderr)
    blocks: list[np.ndarray] = []
    pool: Workers | None = None
    try:
        if ray is not None:
            shared = (uuid.uuid4().hex, player, truncate, variance_reduction)
            results: Iterator[np.ndarray] = ray_imap(ray, _ray_block, shared, tasks)
        else:
            count = min(workers, len(tasks))
            if count > 1:  # compiled here first, on every core: the workers then load it
                _start(player, truncate, variance_reduction)
                assert _roller is not None
                _roller.prepare()
            pool = Workers(count, initializer=_start, initargs=(player, truncate, variance_reduction))
            results = pool.imap(_block, tasks)
        for block in results:
            blocks.append(block)
            if bar is not None:
                bar.update(block.shape[0])
            if (se is not None and sum(b.shape[0] for b in blocks) < trials
                    and RolloutResult.from_samples(np.concatenate(blocks)).main_error < se):
                break
        if isinstance(results, Iterator) and hasattr(results, "close"):
            results.close()  # a Ray run cancels the blocks still queued
    finally:
        if bar is not None:
            bar.close()
        if pool is not None:
            pool.close()
    return RolloutResult.from_samples(np.concatenate(blocks))

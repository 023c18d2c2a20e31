"""Duels: cubeless money games between two players with duplicate dice, on every core.

Game pair ``k`` takes its dice from stream ``(seed, k)`` (:mod:`gammon.bots.dice`) and is
played twice, A in the seat that moves first and then B, so luck cancels out of the
difference. Each player's own randomness (noise, the random player) is reseeded from
``(seed, k, swapped, seat)``. So a duel's result depends on its seed and nothing else: not
the number of workers, nor the order in which they finish.

The 95 % confidence interval treats each pair's mean as one sample (the two games of a
pair are correlated by design).
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from .. import movegen
from ..position import Position
from .dice import DiceStream
from .players import Player, parse_player

MAX_TURNS = 5000
_OPENING = Position().array()


def game_points(board: np.ndarray) -> int:
    """What the side that just moved has won: 0 (game on), 1, 2 or 3 (:func:`movegen.win_kind`)."""
    return int(movegen.win_kind(board))


def play_game(first: Player, second: Player, seed: int, game: int) -> int:
    """One game with the dice of stream ``(seed, game)``; ``first`` moves first. Returns its signed points."""
    stream = DiceStream(seed, game)
    seats = (first, second)
    board = _OPENING.copy()
    d1, d2 = stream.opening()
    seat = 0
    for _ in range(MAX_TURNS):
        child = seats[seat].choose_board(board, d1, d2)
        points = game_points(child)
        if points:
            return points if seat == 0 else -points
        board = movegen.flip_board(child)
        seat = 1 - seat
        d1, d2 = stream.roll()
    return 0  # unreachable in practice: a game ends long before


def play_pair(a: Player, b: Player, seed: int, pair: int) -> tuple[int, int]:
    """A's points in both games of one dice sequence: A moving first, then B."""
    results = []
    for swapped in (0, 1):
        first, second = (b, a) if swapped else (a, b)
        first.reseed(np.random.SeedSequence([seed, pair, swapped, 0]))
        second.reseed(np.random.SeedSequence([seed, pair, swapped, 1]))
        points = play_game(first, second, seed, pair)
        results.append(-points if swapped else points)
    return results[0], results[1]


@dataclass
class DuelResult:
    """A duel's outcome from A's side; ``points`` holds A's points game by game."""

    a: str
    b: str
    seed: int
    points: np.ndarray
    seconds: float = 0.0
    workers: int = 1
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def games(self) -> int:
        return int(self.points.size)

    @property
    def ppg(self) -> float:
        """A's points per game."""
        return float(self.points.mean()) if self.games else 0.0

    @property
    def ci95(self) -> tuple[float, float]:
        """95 % confidence interval of :attr:`ppg`, over pair means."""
        pairs = self.points.reshape(-1, 2).mean(axis=1)
        if pairs.size < 2:
            return (-math.inf, math.inf)
        half = 1.96 * float(pairs.std(ddof=1)) / math.sqrt(pairs.size)
        return (self.ppg - half, self.ppg + half)

    def count(self, side: str, at_least: int) -> int:
        """Games ``side`` ('a' or 'b') won worth at least ``at_least`` points."""
        p = self.points if side == "a" else -self.points
        return int((p >= at_least).sum())

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else 0.0

    def as_dict(self) -> dict[str, object]:
        low, high = self.ci95
        return {
            "a": self.a,
            "b": self.b,
            "games": self.games,
            "seed": self.seed,
            "ppg": round(self.ppg, 6),
            "ci95": [round(low, 6), round(high, 6)],
            "a_wins": self.count("a", 1),
            "a_gammons": self.count("a", 2),
            "a_backgammons": self.count("a", 3),
            "b_wins": self.count("b", 1),
            "b_gammons": self.count("b", 2),
            "b_backgammons": self.count("b", 3),
            "seconds": round(self.seconds, 3),
            "games_per_second": round(self.games_per_second, 3),
            "workers": self.workers,
        }

    def to_json(self) -> str:
        return json.dumps(self.as_dict())

    def summary(self) -> str:
        low, high = self.ci95
        return (
            f"{self.a} vs {self.b}: {self.games} games (seed {self.seed}), {self.a} {self.ppg:+.3f} ppg "
            f"[95% CI {low:+.3f}, {high:+.3f}]\n"
            f"  {self.a}: {self.count('a', 1)} wins, {self.count('a', 2)} gammons, {self.count('a', 3)} backgammons\n"
            f"  {self.b}: {self.count('b', 1)} wins, {self.count('b', 2)} gammons, {self.count('b', 3)} backgammons\n"
            f"  {self.games_per_second:.1f} games/s on {self.workers} worker(s)"
        )


# -- worker processes -----------------------------------------------------------------------
_worker_players: tuple[Player, Player] | None = None


def _init_worker(a: str, b: str) -> None:
    global _worker_players
    _worker_players = (Player.from_name(a), Player.from_name(b))


def _run_pairs(task: tuple[int, Sequence[int]]) -> list[tuple[int, int]]:
    seed, pairs = task
    assert _worker_players is not None
    a, b = _worker_players
    return [play_pair(a, b, seed, k) for k in pairs]


def _chunks(pairs: int, size: int) -> Iterator[range]:
    for start in range(0, pairs, size):
        yield range(start, min(pairs, start + size))


def duel(
    a: str,
    b: str,
    games: int,
    seed: int = 0,
    workers: int | None = None,
    progress: bool = False,
) -> DuelResult:
    """Play ``games`` (an even number) between players named ``a`` and ``b``; A's result."""
    if games < 2 or games % 2:
        raise ValueError(f"games must be an even number >= 2 (each dice sequence is played twice), got {games}")
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    a, b = str(parse_player(a)), str(parse_player(b))
    pairs = games // 2
    workers = max(1, min(workers or os.cpu_count() or 1, pairs))
    chunk = max(1, min(25, pairs // (workers * 8) or 1))
    tasks = [(seed, list(r)) for r in _chunks(pairs, chunk)]
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=games, unit="game", desc=f"{a} vs {b}", leave=False)
    results: list[tuple[int, int]] = []
    start = time.perf_counter()
    try:
        if workers == 1:
            _init_worker(a, b)
            for task in tasks:
                results.extend(_run_pairs(task))
                if bar is not None:
                    bar.update(2 * len(task[1]))
        else:
            methods = multiprocessing.get_all_start_methods()
            context = multiprocessing.get_context("fork" if "fork" in methods else None)
            with context.Pool(workers, initializer=_init_worker, initargs=(a, b)) as pool:
                for chunk_result in pool.imap(_run_pairs, tasks):
                    results.extend(chunk_result)
                    if bar is not None:
                        bar.update(2 * len(chunk_result))
    finally:
        if bar is not None:
            bar.close()
    seconds = time.perf_counter() - start
    points = np.array(results, np.int64).reshape(-1)
    return DuelResult(a, b, seed, points, seconds, workers)

"""Duels: money games and matches between two players with duplicate dice, on every core.

Game pair ``k`` takes its dice from stream ``(seed, k)`` (:class:`gammon.dice.DiceStream`) and is
played twice, A in the seat that moves first and then B, so luck cancels out of the
difference. Each player's own randomness (noise, the random player) is reseeded from
``(seed, k, swapped, seat)``. So a duel's result depends on its seed and nothing else: not
the number of workers, nor the order in which they finish.

Cubeless money games are the default. With the cube (:func:`duel` with ``cube=True``) the
side on roll may first offer to resign, then double, before each roll but the opening one;
plays are chosen by cubeful equity. Matches (:func:`match_duel`) are duplicated whole:
game ``g`` of match pair ``k`` rolls stream ``(seed, k * GAMES_PER_MATCH + g)``, and each
game's opening roll decides who moves first (the first seat holds the first die).
Everything above the board (the opening roll, the cube, resignations, scoring, Crawford)
is the referee's (:mod:`gammon.referee`), as in :class:`gammon.Match`.

The 95 % confidence interval treats each pair's mean as one sample (the two games or
matches of a pair are correlated by design; :func:`gammon.dice.ci95`).
"""

from __future__ import annotations

import functools
import json
import math
import operator
import pickle
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar

import numpy as np

from . import movegen
from .cube.context import CubeContext, Owner
from .cube.met import MAX_AWAY
from .dice import DiceSource, DiceStream, ci95
from .errors import GammonError
from .evaluation import Response
from .players import Player, load_player, parse_player
from .position import Position
from .referee import CubeState, MatchScore, beaver_refusal, dropped_points, opening_roll, points_won
from .state import GameStatus
from .variant import STANDARD, Variant
from .workers import Workers, available_cores

MAX_TURNS = 5000
#: Dice streams set aside per match: a match to at most 25 points lasts at most 49 games.
GAMES_PER_MATCH = 64
_CUBELESS = CubeState()
T = TypeVar("T")


@functools.cache
def _start(variant: Variant) -> np.ndarray:
    """The starting board of ``variant``, made once (every game copies it)."""
    return Position.starting(variant).array()


def game_points(board: np.ndarray) -> int:
    """How the side that just moved has won: 0 (game on), 1, 2 or 3 (:func:`movegen.win_kind`)."""
    return int(movegen.win_kind(board))


def play_game(first: Player, second: Player, seed: int, game: int, variant: Variant = STANDARD) -> int:
    """One game with the dice of stream ``(seed, game)``; ``first`` moves first. Returns its signed points.

    ``variant`` gives the starting position; the players move by the rules they were made with."""
    stream = DiceStream(seed, game)
    seats = (first, second)
    board = _start(variant).copy()
    d1, d2 = opening_roll(stream)
    seat = 0
    for _ in range(MAX_TURNS):
        child = seats[seat].choose_board(board, d1, d2)
        kind = game_points(child)
        if kind:
            points = points_won(kind, _CUBELESS)
            return points if seat == 0 else -points
        board = movegen.flip_board(child)
        seat = 1 - seat
        d1, d2 = stream.roll()
    return 0  # unreachable in practice: a game ends long before


def _duplicated(a: Player, b: Player, seed: int, pair: int, play: Callable[[Player, Player], T],
                swap: Callable[[T], T]) -> tuple[T, T]:
    """``play(first, second)`` with A in the first seat, then B; both results from A's side (``swap``).

    Each player's own randomness is reseeded from ``(seed, pair, swapped, seat)`` first.
    """
    results = []
    for swapped in (0, 1):
        first, second = (b, a) if swapped else (a, b)
        first.reseed(np.random.SeedSequence([seed, pair, swapped, 0]))
        second.reseed(np.random.SeedSequence([seed, pair, swapped, 1]))
        result = play(first, second)
        results.append(swap(result) if swapped else result)
    return results[0], results[1]


def play_pair(a: Player, b: Player, seed: int, pair: int, variant: Variant = STANDARD) -> tuple[int, int]:
    """A's points in both games of one dice sequence: A moving first, then B."""
    return _duplicated(a, b, seed, pair, lambda first, second: play_game(first, second, seed, pair, variant),
                       operator.neg)


# -- the cube -----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class CubeGame:
    """One game played with the cube, from the first seat's side.

    ``points`` is signed (+: the first seat won); ``cube`` is the stake it multiplies, the
    cube at the end or, when a double was passed, before it (so ``|points| / cube`` is 1, 2
    or 3). ``ended`` is OVER (borne off), DROPPED (a double passed) or RESIGNED.
    """

    points: int
    cube: int
    ended: GameStatus
    doubles: int
    turns: int

    def swapped(self) -> CubeGame:
        """The same game from the second seat's side."""
        return replace(self, points=-self.points)


def _seen_by(view: CubeContext, cube: CubeState, seat: int) -> CubeContext:
    """Seat ``seat``'s context (``view``: its score and rules) with the cube ``cube`` (its owner a seat)."""
    held = Owner.CENTRED if cube.owner is None else (Owner.ME if cube.owner == seat else Owner.OPPONENT)
    return replace(view, cube=cube.value, owner=held)


def play_cube_game(first: Player, second: Player, seed: int, game: int,
                   context: CubeContext | None = None, variant: Variant = STANDARD) -> CubeGame:
    """One game with the cube and the dice of stream ``(seed, game)``; ``first`` moves first.

    ``context`` is the first seat's at the start, cube centred: the score and the rules
    (default: money play, no Jacoby rule, no beavers, no cube limit).
    """
    stream = DiceStream(seed, game)
    return _cube_game(first, second, stream, opening_roll(stream), context or CubeContext(), variant)


def _cube_game(first: Player, second: Player, dice: DiceSource, opening: tuple[int, int],
               start: CubeContext, variant: Variant = STANDARD) -> CubeGame:
    seats = (first, second)
    views = (start, start.flip())
    jacoby = start.is_money and start.jacoby
    cube, doubles = CubeState(start.cube), 0
    board = _start(variant).copy()
    d1, d2 = opening
    seat = 0
    for turn in range(MAX_TURNS):
        player, other = seats[seat], seats[1 - seat]
        sign = 1 if seat == 0 else -1
        context = _seen_by(views[seat], cube, seat)
        if turn:  # before rolling: resign, then double (there is no cube action before the opening roll)
            offer = player.offer_resignation(board, context)
            if offer is not None and other.accept_resignation(board, context, offer):
                return CubeGame(-sign * points_won(offer, cube, jacoby), cube.value, GameStatus.RESIGNED, doubles, turn)
            if context.can_double and player.should_double(board, context):
                doubles += 1
                # The opponent judges the doubler's position with its own evaluator and depth.
                response = other.answer_double(board, context)
                if response is Response.PASS:
                    return CubeGame(sign * dropped_points(cube), cube.value, GameStatus.DROPPED, doubles, turn)
                beaver = response is Response.BEAVER and beaver_refusal(
                    cube, beavers=start.beavers, cube_limit=start.cube_limit) is None
                cube = cube.after_beaver(1 - seat) if beaver else cube.after_take(1 - seat)  # a beaver not allowed takes
                context = _seen_by(views[seat], cube, seat)
            d1, d2 = dice.roll()
        child = player.choose_board(board, d1, d2, context)
        kind = game_points(child)
        if kind:
            return CubeGame(sign * points_won(kind, cube, jacoby), cube.value, GameStatus.OVER, doubles, turn + 1)
        board = movegen.flip_board(child)
        seat = 1 - seat
    return CubeGame(0, cube.value, GameStatus.PLAYING, doubles, MAX_TURNS)  # unreachable in practice


def play_cube_pair(a: Player, b: Player, seed: int, pair: int,
                   context: CubeContext | None = None, variant: Variant = STANDARD) -> tuple[CubeGame, CubeGame]:
    """Both games with the cube of one dice sequence, from A's side: A moving first, then B."""
    return _duplicated(a, b, seed, pair,
                       lambda first, second: play_cube_game(first, second, seed, pair, context, variant),
                       CubeGame.swapped)


# -- matches ------------------------------------------------------------------------------
def match_context(length: int, score: tuple[int, int], crawford_played: bool) -> CubeContext:
    """The first seat's context, cube centred, at the start of a game of a ``length``-point
    match at ``score`` (first seat's points first; :class:`gammon.referee.MatchScore`)."""
    return CubeContext.for_match(MatchScore(length, score, crawford_played))


@dataclass(frozen=True, slots=True)
class DuelMatch:
    """One match of a duel, from the first seat's side: the final score and what happened on the way
    (not a :class:`gammon.record.MatchRecord`, which is a match's every action)."""

    score: tuple[int, int]
    games: int
    doubles: int = 0
    passes: int = 0
    resignations: int = 0
    crawford: bool = False  #: whether a Crawford game was played

    @property
    def winner(self) -> int:
        """0: the first seat won, 1: the second."""
        return 0 if self.score[0] > self.score[1] else 1

    def swapped(self) -> DuelMatch:
        """The same match from the second seat's side."""
        return replace(self, score=(self.score[1], self.score[0]))


def play_match(first: Player, second: Player, seed: int, match: int, length: int,
               variant: Variant = STANDARD) -> DuelMatch:
    """One ``length``-point match; game ``g`` rolls stream ``(seed, match * GAMES_PER_MATCH + g)``.

    Each game's opening roll decides who moves first: the first seat holds the first die.
    """
    if not 1 <= length <= MAX_AWAY:
        raise ValueError(f"match length must be 1-{MAX_AWAY}, got {length}")
    score = MatchScore(length)
    doubles = passes = resignations = games = 0
    while score.winner is None:
        if games == GAMES_PER_MATCH:
            raise RuntimeError(f"match {match} (seed {seed}) still going after {games} games")
        context = CubeContext.for_match(score)
        stream = DiceStream(seed, match * GAMES_PER_MATCH + games)
        d1, d2 = opening_roll(stream)
        if d1 > d2:
            game = _cube_game(first, second, stream, (d1, d2), context, variant)
        else:
            game = _cube_game(second, first, stream, (d1, d2), context.flip(), variant).swapped()
        if game.points == 0:
            raise RuntimeError(f"game {games} of match {match} (seed {seed}) did not finish")
        score = score.after_game(0 if game.points > 0 else 1, abs(game.points))
        doubles += game.doubles
        passes += game.ended == GameStatus.DROPPED
        resignations += game.ended == GameStatus.RESIGNED
        games += 1
    return DuelMatch(score.score, games, doubles, passes, resignations, score.crawford_played)


def play_match_pair(a: Player, b: Player, seed: int, pair: int, length: int,
                    variant: Variant = STANDARD) -> tuple[DuelMatch, DuelMatch]:
    """Both matches of one set of dice sequences, from A's side: A with the first seat, then B."""
    return _duplicated(a, b, seed, pair, lambda first, second: play_match(first, second, seed, pair, length, variant),
                       DuelMatch.swapped)


# -- results ------------------------------------------------------------------------------
@dataclass
class DuelResult:
    """A duel's outcome from A's side; ``points`` holds A's points game by game.

    A duel with the cube also has ``cubes``, each game's stake (see :class:`CubeGame`), and
    in ``extra`` the counts of doubles, passed doubles and accepted resignations.
    """

    a: str
    b: str
    seed: int
    points: np.ndarray
    seconds: float = 0.0
    workers: int = 1
    extra: dict[str, object] = field(default_factory=dict)
    cubes: np.ndarray | None = None
    #: What a player did without (an engine with no seed: the games are not reproducible).
    notes: list[str] = field(default_factory=list)

    @property
    def games(self) -> int:
        return int(self.points.size)

    @property
    def cube(self) -> bool:
        """Whether the games were played with the cube."""
        return self.cubes is not None

    @property
    def ppg(self) -> float:
        """A's points per game."""
        return float(self.points.mean()) if self.games else 0.0

    @property
    def ci95(self) -> tuple[float, float]:
        """95 % confidence interval of :attr:`ppg`, over pair means."""
        return ci95(self.points)

    def count(self, side: str, at_least: int) -> int:
        """Games ``side`` ('a' or 'b') won worth at least ``at_least`` points (times the cube)."""
        p = self.points if side == "a" else -self.points
        if self.cubes is not None:
            p = p // self.cubes
        return int((p >= at_least).sum())

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else 0.0

    def as_dict(self) -> dict[str, object]:
        low, high = self.ci95
        out: dict[str, object] = {
            "a": self.a,
            "b": self.b,
            "games": self.games,
            "seed": self.seed,
            **{key: self.extra[key] for key in ("variant",) if key in self.extra},
            "ppg": round(self.ppg, 6),
            # One pair of games gives no interval: null, as JSON has no infinity.
            "ci95": [round(low, 6) if math.isfinite(low) else None, round(high, 6) if math.isfinite(high) else None],
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
        if self.cubes is not None:
            out["cube"] = True
            out["mean_cube"] = round(float(self.cubes.mean()), 6) if self.games else 0.0
            out.update(self.extra)
        return out

    def to_json(self) -> str:
        return json.dumps(self.as_dict())

    def summary(self) -> str:
        low, high = self.ci95
        kind = "money games with the cube" if self.cube else "games"
        text = (
            f"{self.a} vs {self.b}: {self.games} {kind} (seed {self.seed}{_rules(self.extra)}), "
            f"{self.a} {self.ppg:+.3f} ppg "
            f"[95% CI {low:+.3f}, {high:+.3f}]\n"
            f"  {self.a}: {self.count('a', 1)} wins, {self.count('a', 2)} gammons, {self.count('a', 3)} backgammons\n"
            f"  {self.b}: {self.count('b', 1)} wins, {self.count('b', 2)} gammons, {self.count('b', 3)} backgammons\n"
        )
        if self.cubes is not None:
            text += f"  cube: {_actions(self.extra)}, mean stake {self.cubes.mean():.2f}\n"
        return text + f"  {self.games_per_second:.1f} games/s on {self.workers} worker(s)"


def _count(n: object, noun: str, plural: str = "s") -> str:
    """``1 match``, ``2 matches``: a count with its noun."""
    return f"{n} {noun}{'' if n == 1 else plural}"


def _rules(extra: dict[str, object]) -> str:
    """``, two-move-doubles`` after the seed when the duel was not the standard game."""
    return f", {extra['variant']}" if "variant" in extra else ""


def _actions(extra: dict[str, object]) -> str:
    doubles, passes, resignations = (extra.get(k, 0) for k in ("doubles", "passes", "resignations"))
    return f"{_count(doubles, 'double')}, {passes} passed, {_count(resignations, 'resignation')}"


@dataclass
class MatchDuelResult:
    """A match duel's outcome from A's side.

    ``wins[i]`` is 1 when A won match ``i`` and ``games[i]`` how many games it lasted; the two
    matches of a pair are adjacent. ``extra`` counts doubles, passes, resignations and
    Crawford games.
    """

    a: str
    b: str
    seed: int
    length: int
    wins: np.ndarray
    games: np.ndarray
    seconds: float = 0.0
    workers: int = 1
    extra: dict[str, object] = field(default_factory=dict)
    #: What a player did without (an engine with no seed: the matches are not reproducible).
    notes: list[str] = field(default_factory=list)

    @property
    def matches(self) -> int:
        return int(self.wins.size)

    @property
    def a_match_wins(self) -> int:
        return int(self.wins.sum())

    @property
    def b_match_wins(self) -> int:
        return self.matches - self.a_match_wins

    @property
    def win_rate(self) -> float:
        """A's share of the matches."""
        return float(self.wins.mean()) if self.matches else 0.0

    @property
    def ci95(self) -> tuple[float, float]:
        """95 % confidence interval of :attr:`win_rate`, over pair means, within 0 and 1 (a share
        cannot leave them, whatever the normal approximation says near them)."""
        low, high = ci95(self.wins)
        return max(low, 0.0), min(high, 1.0)

    @property
    def games_played(self) -> int:
        return int(self.games.sum())

    @property
    def games_per_match(self) -> float:
        return float(self.games.mean()) if self.matches else 0.0

    @property
    def matches_per_second(self) -> float:
        return self.matches / self.seconds if self.seconds > 0 else 0.0

    def as_dict(self) -> dict[str, object]:
        low, high = self.ci95
        return {
            "a": self.a,
            "b": self.b,
            "matches": self.matches,
            "match_length": self.length,
            "seed": self.seed,
            "cube": True,
            "a_match_wins": self.a_match_wins,
            "b_match_wins": self.b_match_wins,
            "win_rate": round(self.win_rate, 6),
            "ci95": [round(low, 6), round(high, 6)],
            "games": self.games_played,
            "games_per_match": round(self.games_per_match, 3),
            **self.extra,
            "seconds": round(self.seconds, 3),
            "matches_per_second": round(self.matches_per_second, 3),
            "games_per_second": round(self.games_played / self.seconds, 3) if self.seconds > 0 else 0.0,
            "workers": self.workers,
        }

    def to_json(self) -> str:
        return json.dumps(self.as_dict())

    def summary(self) -> str:
        low, high = self.ci95
        return (
            f"{self.a} vs {self.b}: {_count(self.matches, f'{self.length}-point match', 'es')} "
            f"(seed {self.seed}{_rules(self.extra)}), "
            f"{self.a} wins {100 * self.win_rate:.1f}% [95% CI {100 * low:.1f}%, {100 * high:.1f}%]\n"
            f"  {self.a}: {_count(self.a_match_wins, 'match', 'es')}, {self.b}: {_count(self.b_match_wins, 'match', 'es')}\n"
            f"  {_count(self.games_played, 'game')}, {self.games_per_match:.2f} per match; cube: {_actions(self.extra)}, "
            f"{_count(self.extra.get('crawford_games', 0), 'Crawford game')}\n"
            f"  {self.matches_per_second:.2f} matches/s on {self.workers} worker(s)"
        )


# -- worker processes -----------------------------------------------------------------------
_worker_players: tuple[Player, Player] | None = None
_worker_variant: Variant = STANDARD


def _init_worker(a: str, b: str, variant: Variant = STANDARD) -> None:
    global _worker_players, _worker_variant
    _worker_players = (load_player(a, variant=variant), load_player(b, variant=variant))
    _worker_variant = variant


def _close_worker_players() -> None:
    """Stop external engines (``ubgi:CMD``, ``gnubg:PLY``) started in this process."""
    global _worker_players
    if _worker_players is not None:
        for player in _worker_players:
            player.close()
        _worker_players = None


class DuelWorkerError(GammonError):
    """A duel's worker failed with an error that cannot cross to the parent process (not one
    of gammon's, which all can): its type and message, in one that can."""


class _Crossing:
    """``run(task)`` whose error is sure to reach the parent: a pool whose worker's error
    cannot be unpickled there never gives a result again (its result thread dies), so an
    error that does not survive pickling is replaced by a :class:`DuelWorkerError`."""

    def __init__(self, run: Callable[[tuple], tuple[list, set[str]]]) -> None:
        self.run = run

    def __call__(self, task: tuple) -> tuple[list, set[str]]:
        try:
            return self.run(task)
        except Exception as error:
            try:
                pickle.loads(pickle.dumps(error))
            except Exception:  # noqa: BLE001 - whatever the error, it must cross the process boundary
                raise DuelWorkerError(f"a duel worker failed: {type(error).__name__}: {error}") from None
            raise


def _noted(results: list[T]) -> tuple[list[T], set[str]]:
    """A chunk's results and what the worker's players have noted meanwhile (an engine that
    plays without a seed, ...), for the parent to report once."""
    assert _worker_players is not None
    notes = {note for player in _worker_players for note in getattr(player, "notes", ())}
    return results, notes


def _run_pairs(task: tuple[int, Sequence[int]]) -> tuple[list[tuple[int, int]], set[str]]:
    seed, pairs = task
    assert _worker_players is not None
    a, b = _worker_players
    return _noted([play_pair(a, b, seed, k, _worker_variant) for k in pairs])


def _run_cube_pairs(task: tuple[int, Sequence[int], bool, bool, int | None]
                    ) -> tuple[list[tuple[CubeGame, CubeGame]], set[str]]:
    seed, pairs, jacoby, beavers, cube_limit = task
    assert _worker_players is not None
    a, b = _worker_players
    context = CubeContext(jacoby=jacoby, beavers=beavers, cube_limit=cube_limit)
    return _noted([play_cube_pair(a, b, seed, k, context, _worker_variant) for k in pairs])


def _run_match_pairs(task: tuple[int, Sequence[int], int]) -> tuple[list[tuple[DuelMatch, DuelMatch]], set[str]]:
    seed, pairs, length = task
    assert _worker_players is not None
    a, b = _worker_players
    return _noted([play_match_pair(a, b, seed, k, length, _worker_variant) for k in pairs])


def _chunks(pairs: int, size: int) -> Iterator[range]:
    for start in range(0, pairs, size):
        yield range(start, min(pairs, start + size))


def _variant_extra(variant: Variant) -> dict[str, object]:
    """What a result says of its rules: the variant, when it is not the standard game."""
    return {} if variant.standard else {"variant": str(variant)}


def _check(count: int, what: str, seed: int) -> None:
    if count < 2 or count % 2:
        raise ValueError(f"{what} must be an even number >= 2 (each dice sequence is played twice), got {count}")
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")


def _play_pairs(
    a: str, b: str, pairs: int, workers: int | None, run: Callable[[tuple], tuple[list, set[str]]], options: tuple,
    seed: int, progress: bool, unit: str, variant: Variant = STANDARD,
) -> tuple[list, float, int, list[str]]:
    """``run`` over every pair, on ``workers`` processes: the results in pair order, seconds,
    workers, and the players' notes (each once, however many workers made it).

    A worker's error reaches this process as itself (gammon's errors survive pickling) and
    ends the duel: the pool is stopped and the error raised here."""
    workers = max(1, min(workers or available_cores(), pairs))
    chunk = max(1, min(25, pairs // (workers * 8) or 1))
    tasks = [(seed, list(r), *options) for r in _chunks(pairs, chunk)]
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=2 * pairs, unit=unit, desc=f"{a} vs {b}", leave=False)
    results: list = []
    notes: set[str] = set()
    start = time.perf_counter()
    try:
        with Workers(workers, initializer=_init_worker, initargs=(a, b, variant)) as pool:
            for chunk_result, chunk_notes in pool.imap(_Crossing(run), tasks):
                results.extend(chunk_result)
                notes |= chunk_notes
                if bar is not None:
                    bar.update(2 * len(chunk_result))
    finally:
        if bar is not None:
            bar.close()
        _close_worker_players()
    return results, time.perf_counter() - start, workers, sorted(notes)


def duel(
    a: str,
    b: str,
    games: int,
    seed: int = 0,
    workers: int | None = None,
    progress: bool = False,
    *,
    cube: bool = False,
    jacoby: bool = False,
    beavers: bool = False,
    cube_limit: int | None = None,
    variant: Variant = STANDARD,
) -> DuelResult:
    """Play ``games`` (an even number) money games between players named ``a`` and ``b``; A's result.

    Cubeless unless ``cube``; ``jacoby``, ``beavers`` and ``cube_limit`` (the largest cube
    allowed, a power of two) are money-play rules, none of them in force by default;
    ``variant`` the rules of play (the standard game by default).
    """
    _check(games, "games", seed)
    if (jacoby or beavers or cube_limit is not None) and not cube:
        raise ValueError("the Jacoby rule, beavers and a cube limit need the cube (cube=True)")
    if cube_limit is not None and (cube_limit < 1 or cube_limit & (cube_limit - 1)):
        raise ValueError(f"the cube limit must be a power of two >= 1, got {cube_limit}")
    a, b = str(parse_player(a)), str(parse_player(b))
    if not cube:
        results, seconds, workers, notes = _play_pairs(a, b, games // 2, workers, _run_pairs, (), seed, progress,
                                                       "game", variant)
        points = np.array(results, np.int64).reshape(-1)
        return DuelResult(a, b, seed, points, seconds, workers, _variant_extra(variant), notes=notes)
    results, seconds, workers, notes = _play_pairs(
        a, b, games // 2, workers, _run_cube_pairs, (jacoby, beavers, cube_limit), seed, progress, "game", variant)
    played = [game for pair in results for game in pair]
    points = np.array([g.points for g in played], np.int64)  # the referee keeps the cube within 2**15
    cubes = np.array([g.cube for g in played], np.int64)
    extra: dict[str, object] = {
        **_variant_extra(variant),
        "doubles": sum(g.doubles for g in played),
        "passes": sum(g.ended == GameStatus.DROPPED for g in played),
        "resignations": sum(g.ended == GameStatus.RESIGNED for g in played),
    }
    if jacoby or beavers or cube_limit is not None:
        extra.update(jacoby=jacoby, beavers=beavers, cube_limit=cube_limit)
    return DuelResult(a, b, seed, points, seconds, workers, extra, cubes, notes)


def match_duel(
    a: str,
    b: str,
    matches: int,
    length: int,
    seed: int = 0,
    workers: int | None = None,
    progress: bool = False,
    variant: Variant = STANDARD,
) -> MatchDuelResult:
    """Play ``matches`` (an even number) ``length``-point matches with the cube between ``a`` and ``b``."""
    _check(matches, "matches", seed)
    if not 1 <= length <= MAX_AWAY:
        raise ValueError(f"match length must be 1-{MAX_AWAY} points, got {length}")
    a, b = str(parse_player(a)), str(parse_player(b))
    results, seconds, workers, notes = _play_pairs(
        a, b, matches // 2, workers, _run_match_pairs, (length,), seed, progress, "match", variant)
    played = [record for pair in results for record in pair]
    wins = np.array([record.winner == 0 for record in played], np.int64)
    games = np.array([record.games for record in played], np.int64)
    extra = {
        **_variant_extra(variant),
        "doubles": sum(r.doubles for r in played),
        "passes": sum(r.passes for r in played),
        "resignations": sum(r.resignations for r in played),
        "crawford_games": sum(r.crawford for r in played),
    }
    return MatchDuelResult(a, b, seed, length, wins, games, seconds, workers, extra, notes)

"""A duplicate-dice duel of a gammon player against GNU Backgammon's 0-ply (benchmark only).

Usage: python bench/vs_gnubg.py [PLAYER] [--games N] [--seed S] [--workers W] [--json]

GNU Backgammon comes from PyPI's ``gnubg`` package (``pip install -e '.[bench]'``) and
plays ``findbestmove`` with a cubeless, deterministic 0-ply evalcontext. It is an
opponent to measure against, nothing more: gammon never learns from it. The dice and the
confidence interval are those of ``gammon duel`` (:mod:`gammon.duel`): game pair
``k`` takes stream ``(seed, k)`` and is played twice with the seats swapped.
"""

from __future__ import annotations

import argparse
import multiprocessing
import time

import numpy as np

from gammon import movegen
from gammon.duel import DuelResult, play_game
from gammon.players import load_player


def to_gnubg(board: np.ndarray) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A kernel board (side to move) as gnubg's pair (opponent's 25 counts, mover's 25 counts)."""
    mover = [0] * 25
    opponent = [0] * 25
    for point in range(1, 25):
        n = int(board[point])
        if n > 0:
            mover[point - 1] = n
        elif n < 0:
            opponent[24 - point] = -n
    mover[24] = int(board[25])
    opponent[24] = -int(board[0])
    return tuple(opponent), tuple(mover)


class GnubgChooser:
    """GNU Backgammon's 0-ply play, as the board after it (checked against gammon's legal plays)."""

    def __init__(self) -> None:
        import gnubg

        self.gnubg = gnubg
        self.cube = gnubg.cubeinfo()
        self.context = gnubg.evalcontext(0, 0, 1, 0, 0.0)

    def choose_board(self, board: np.ndarray, d1: int, d2: int) -> np.ndarray:
        children = movegen.generate(board, d1, d2)[0]
        if children.shape[0] == 1:
            return children[0]
        move = tuple(self.gnubg.findbestmove(to_gnubg(board), self.cube, self.context, (d1, d2)))
        after = board.copy()
        for k in range(0, len(move) - 1, 2):
            movegen.apply_move(after, move[k], move[k + 1])
        if (children == after).all(axis=1).any():
            return after
        # The binding cuts a play short after a checker borne off ((2,) for 2/off 1/off):
        # then score every legal play with gnubg's 0-ply evaluation, which is what
        # findbestmove does at 0 ply.
        return children[int(np.argmax([self._equity(child) for child in children]))]

    def _equity(self, child: np.ndarray) -> float:
        if not (child[1:] > 0).any():
            return 10.0  # the play that bears off the last checker wins
        return -float(self.gnubg.evaluate(to_gnubg(movegen.flip_board(child)), self.cube, self.context)[5])


_players: tuple = ()


def _init(name: str) -> None:
    global _players
    _players = (load_player(name), GnubgChooser())


def _pairs(task: tuple[int, list[int]]) -> list[int]:
    seed, pairs = task
    ours, theirs = _players
    out = []
    for k in pairs:
        out.append(play_game(ours, theirs, seed, k))
        out.append(-play_game(theirs, ours, seed, k))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("player", nargs="?", default="nn")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    pairs = args.games // 2
    chunks = [(args.seed, list(range(s, min(pairs, s + 25)))) for s in range(0, pairs, 25)]
    start = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(args.workers, _init, (args.player,)) as pool:
        points = [p for chunk in pool.imap(_pairs, chunks) for p in chunk]
    result = DuelResult(args.player, "gnubg:0", args.seed, np.array(points, np.int64), time.perf_counter() - start, args.workers)
    print(result.to_json() if args.json else result.summary())


if __name__ == "__main__":
    main()

"""gammon's rollouts of held-out positions next to GNU Backgammon's, and where a difference comes from.

Usage: python bench/rollout_vs_gnubg.py [--positions N] [--trials T] [--player nn] [--workers W] [--split]

Each position (every 7th line of tests/vectors/corpus.txt from the 3rd, so none of the
positions the rollout tests use) is rolled out cubeless for the side on roll, before its
roll, ``T`` times by both programs with the same settings: 0-ply play, variance reduction,
quasi-random dice, seed 1, no truncation (GNU Backgammon stops at its one-sided bear-off
database, gammon at its exact bear-off tables). GNU Backgammon's command-line program
prints a rollout's result only to a terminal, so it runs in a pseudo-terminal (pexpect).

The players differ (gammon's net against GNU Backgammon's), so a difference may be play, not
a fault. ``--split`` tells which: gammon's rollout code plays the position again with GNU
Backgammon's 0-ply plays in both seats (``gnubg/gnubg``: the same player as GNU Backgammon's
own rollout, so the two must agree unless a rollout is wrong -- the luck is gammon's net's,
which changes the noise, never the mean), then with one seat each (``nn/gnubg``: gammon's
player on roll, GNU Backgammon's the other side; ``gnubg/nn`` the other way round), all on
the same dice. The difference between gammon's rollout and GNU Backgammon's is then
``code`` (gammon's ``gnubg/gnubg`` less GNU Backgammon's rollout: a bug if it is beyond
noise) + ``seat 1`` (``nn/nn`` less ``gnubg/nn``: the side on roll's plays) + ``seat 2``
(``gnubg/nn`` less ``gnubg/gnubg``: the other side's plays), each with its standard error
(paired on the dice where both are gammon's).
"""

from __future__ import annotations

import argparse
import math
import re
import shutil
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np
import pexpect

from gammon import Position
from gammon.players import load_player
from gammon.rollout import RolloutResult, rollout
from gammon.rollout.trial import Roller
from gammon.workers import Workers

sys.path.insert(0, str(Path(__file__).resolve().parent))
from vs_gnubg import GnubgChooser

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "vectors" / "corpus.txt"
GNUBG = shutil.which("gnubg") or "/usr/games/gnubg"
NUMBER = r"[-+]?\d+\.\d+"
RESULT = re.compile(
    rf"Current Position:\s*\r?\n\s*({NUMBER}) ({NUMBER}) ({NUMBER}) - ({NUMBER}) ({NUMBER}) ({NUMBER}) CL\s*({NUMBER})"
    rf"\s*\r?\n\s*\[({NUMBER}) ({NUMBER}) ({NUMBER}) - ({NUMBER}) ({NUMBER}) ({NUMBER}) CL\s*({NUMBER})\]"
)


def held_out(count: int) -> list[str]:
    ids = [line.split()[0] for line in CORPUS.read_text().splitlines() if line.strip()]
    return ids[2::7][:count]


def gnubg_rollout(position_id: str, trials: int) -> tuple[float, float, float]:
    """GNU Backgammon's cubeless 0-ply rollout: (equity, its standard error, seconds)."""
    commands = [
        f"set rollout trials {trials}", "set rollout cubeful off", "set rollout varredn on",
        "set rollout quasirandom on", "set rollout seed 1", "set rollout chequerplay plies 0",
        "set player 0 human", "set player 1 human", "new game", f"set board {position_id}", "rollout",
    ]
    child = pexpect.spawn(GNUBG, ["-t", "-q"], encoding="utf-8", timeout=3600, dimensions=(50, 200))
    start = time.perf_counter()
    try:
        for command in commands:
            child.sendline(command)
        child.expect("Rollout done.")
        child.expect(r"Estimated SE")
        seconds = time.perf_counter() - start
        found = RESULT.search(child.before)
        if found is None:
            raise RuntimeError(f"GNU Backgammon's rollout output was not understood:\n{child.before[-2000:]}")
        child.sendline("quit")
        child.sendline("y")
    finally:
        child.close(force=True)
    return float(found[7]), float(found[14]), seconds


class GnubgSide:
    """GNU Backgammon's 0-ply plays in a seat of gammon's rollout (cubeless: no cube questions)."""

    def __init__(self) -> None:
        self.chooser = GnubgChooser()

    def reseed(self, seed: object) -> None:
        """GNU Backgammon's 0-ply plays are deterministic."""

    def choose_board(self, board: np.ndarray, d1: int, d2: int, context: object = None) -> np.ndarray:
        return self.chooser.choose_board(np.ascontiguousarray(board, np.int8), d1, d2)

    def should_double(self, board: np.ndarray, context: object) -> bool:
        raise NotImplementedError("the split is cubeless")

    def answer_double(self, board: np.ndarray, context: object) -> object:
        raise NotImplementedError("the split is cubeless")


_rollers: dict[str, Roller] = {}


def _start(player: str) -> None:
    bot, gnubg = load_player(player), GnubgSide()
    _rollers.update({"gnubg/gnubg": Roller(bot, sides=(gnubg, gnubg)), "nn/gnubg": Roller(bot, sides=(bot, gnubg)),
                     "gnubg/nn": Roller(bot, sides=(gnubg, bot))})


def _block(task: tuple[str, np.ndarray, int, int]) -> np.ndarray:
    seats, board, start, stop = task
    return _rollers[seats].trials(board, None, 1, start, stop)


def split(pool: Workers, board: np.ndarray, trials: int) -> dict[str, np.ndarray]:
    """The equity samples of gammon's rollouts with GNU Backgammon's plays in one or both seats."""
    out = {}
    for seats in ("gnubg/gnubg", "nn/gnubg", "gnubg/nn"):
        tasks = [(seats, board, s, min(trials, s + 36)) for s in range(0, trials, 36)]
        out[seats] = np.concatenate(list(pool.imap(_block, tasks)))[:, 5]
    return out


def paired(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """The mean difference of two rollouts on the same dice and its standard error."""
    d = a - b
    return float(d.mean()), float(d.std(ddof=1) / math.sqrt(d.size))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=8)
    parser.add_argument("--trials", type=int, default=1296)
    parser.add_argument("--player", default="nn")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--split", action="store_true", help="attribute each difference to the code and the seats")
    args = parser.parse_args()
    rows = []
    codes = []
    print(f"{args.trials} trials each, cubeless, 0-ply play, variance reduction, quasi-random dice, seed 1")
    head = f"{'position':16} {'gammon ' + args.player:>18} {'gnubg':>18} {'z':>6}"
    if args.split:
        head += f" {'code (z)':>16} {'seat 1':>15} {'seat 2':>15}"
    print(head + "   seconds (gammon, gnubg)")
    pool = Workers(args.workers, initializer=_start, initargs=(args.player,)) if args.split else None
    try:
        for position_id in held_out(args.positions):
            start = time.perf_counter()
            board = Position.from_position_id(position_id).array()
            ours = rollout(board, partial(load_player, args.player), trials=args.trials, seed=1, workers=args.workers)
            our_seconds = time.perf_counter() - start
            our_se = float(ours.std_error["equity"])
            theirs, their_se, their_seconds = gnubg_rollout(position_id, args.trials)
            z = (ours.equity - theirs) / math.hypot(our_se, their_se)
            rows.append(z)
            line = f"{position_id:16} {ours.equity:+8.3f} ± {our_se:.3f}    {theirs:+8.3f} ± {their_se:.3f} {z:+6.2f}"
            if pool is not None:
                seats = split(pool, board, args.trials)
                same = RolloutResult.from_samples(np.repeat(seats["gnubg/gnubg"][:, None], 7, axis=1))
                code = same.equity - theirs
                code_z = code / math.hypot(same.std_error["equity"], their_se)
                codes.append(code_z)
                first, first_se = paired(ours.samples[:, 5], seats["gnubg/nn"])
                second, second_se = paired(seats["gnubg/nn"], seats["gnubg/gnubg"])
                line += f" {code:+7.3f} ({code_z:+5.2f}) {first:+7.3f} ± {first_se:.3f} {second:+7.3f} ± {second_se:.3f}"
            print(f"{line}   {our_seconds:.0f}, {their_seconds:.0f}", flush=True)
    finally:
        if pool is not None:
            pool.close()
    within = sum(abs(z) <= 2 for z in rows)
    print(f"within 2 combined standard errors: {within}/{len(rows)}; mean |z| {sum(map(abs, rows)) / len(rows):.2f}")
    if codes:
        print(f"rollout code (GNU Backgammon's plays in both seats, gammon's rollout against GNU Backgammon's): "
              f"{sum(abs(z) <= 2 for z in codes)}/{len(codes)} within 2 standard errors; mean |z| "
              f"{sum(map(abs, codes)) / len(codes):.2f}")


if __name__ == "__main__":
    main()

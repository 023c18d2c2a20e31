"""Rollout speed: trials per second of the compiled trial, and of the Python loop it replaced, in one run.

Usage: python bench/rollout.py [--trials N] [--players pubeval,nn] [--workers 1,2] [--before N]

Each row rolls out the opening position (the side on roll before its roll) with full games,
luck adjustment on, seed 1, after one untimed block that compiles the kernels. ``before``
is the per-turn Python loop gammon's rollouts ran until the trial was compiled (kept as
``tests/rollout_reference.py``, where the tests check the compiled trial against it trial by
trial), timed on ``--before`` trials in this process; ``after`` is
:func:`gammon.rollout.rollout` on 1 and 2 workers. The same seed gives the same samples on
any number of workers, and the compiled trial the same samples as the old loop, which the
bench checks as it goes. A trial's cost is a game of about 55 turns, each a 0-ply choice
among the plays of all 21 rolls (the luck adjustment values every roll's best play; the
play made is among them).

Measured on the shared 2-core machine under load (load average 5-7 from other jobs; 144
trials, 36 before), trials/s: pubeval cubeless 48 before, 56 compiled (101 on 2 workers);
pubeval cubeful 30 before, 87 compiled; nn cubeless 14.1 before, 14.6 compiled; nn cubeful
14.4 before, 19.5 compiled. The old loop already evaluated each turn's 21 rolls in one
batch, so compiling it saves the Python around the evaluations, not the evaluations: with
the net, a turn is about 450 plays to score at about 2.3 microseconds each (the sums of the
hidden units and their 128 sigmoids), most of a trial's time.
"""

from __future__ import annotations

import argparse
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np

from gammon import Position
from gammon.cube import CubeContext
from gammon.players import load_player
from gammon.rollout import rollout

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from rollout_reference import ReferenceRoller


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=144)
    parser.add_argument("--before", type=int, default=36, help="trials timed on the old Python loop")
    parser.add_argument("--players", default="pubeval,nn")
    parser.add_argument("--workers", default="1,2")
    args = parser.parse_args()
    counts = [int(w) for w in args.workers.split(",")]
    board = Position().array()
    print(f"{'player':<10}{'mode':<10}{'path':<12}{'workers':>8}{'trials':>8}{'seconds':>10}{'trials/s':>10}")
    for name in args.players.split(","):
        player = partial(load_player, name)
        for cube in (False, True):
            mode = "cubeful" if cube else "cubeless"
            context = CubeContext() if cube else None
            rollout(Position(), player, trials=36, cube=cube, truncate=2)  # compile, load the tables
            old = ReferenceRoller(load_player(name))
            old.trials(board, context, 1, 0, 1)
            start = time.perf_counter()
            before = old.trials(board, context, 1, 0, args.before)
            seconds = time.perf_counter() - start
            print(f"{name:<10}{mode:<10}{'before':<12}{1:>8}{args.before:>8}{seconds:>10.1f}{args.before / seconds:>10.1f}",
                  flush=True)
            first = None
            for workers in counts:
                start = time.perf_counter()
                result = rollout(Position(), player, trials=args.trials, cube=cube, seed=1, workers=workers)
                seconds = time.perf_counter() - start
                if first is None:
                    first = result.samples
                    shared = min(args.before, args.trials)
                    if not np.allclose(first[:shared], before[:shared], atol=1e-9, equal_nan=True):
                        raise SystemExit(f"{name} {mode}: the compiled trials differ from the old loop's")
                elif not np.array_equal(first, result.samples, equal_nan=True):
                    raise SystemExit(f"{name}: {workers} workers gave other samples than {counts[0]}")
                print(f"{name:<10}{mode:<10}{'compiled':<12}{workers:>8}{result.trials:>8}{seconds:>10.1f}"
                      f"{result.trials / seconds:>10.1f}", flush=True)


if __name__ == "__main__":
    main()

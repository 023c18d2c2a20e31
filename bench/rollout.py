"""Rollout speed: trials per second on 1 and 2 workers, cubeless and cubeful, pubeval and the net.

Usage: python bench/rollout.py [--trials N] [--players pubeval,nn] [--workers 1,2]

Each row rolls out the opening position (the side on roll before its roll) with full games,
luck adjustment on, seed 1, after one untimed block that compiles the kernels. The same
seed gives the same samples on any number of workers, which the bench checks as it goes.
A trial's cost is a game of about 55 turns, each a 0-ply choice among the plays of all 21
rolls (the luck adjustment values every roll's best play; the play made is among them).

Measured on the shared 2-core machine (144 trials, full games), trials/s on 1 and 2 workers:
pubeval cubeless 43.5 / 78.0, cubeful 13.9 / 25.2; nn cubeless 7.7 / 14.9, cubeful 7.9 / 15.0.
"""

from __future__ import annotations

import argparse
import time
from functools import partial

import numpy as np

from gammon import Position
from gammon.players import load_player
from gammon.rollout import rollout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=144)
    parser.add_argument("--players", default="pubeval,nn")
    parser.add_argument("--workers", default="1,2")
    args = parser.parse_args()
    counts = [int(w) for w in args.workers.split(",")]
    print(f"{'player':<10}{'mode':<10}{'workers':>8}{'trials':>8}{'seconds':>10}{'trials/s':>10}")
    for name in args.players.split(","):
        player = partial(load_player, name)
        for cube in (False, True):
            rollout(Position(), player, trials=36, cube=cube, truncate=2)  # compile, load the tables
            first = None
            for workers in counts:
                start = time.perf_counter()
                result = rollout(Position(), player, trials=args.trials, cube=cube, seed=1, workers=workers)
                seconds = time.perf_counter() - start
                if first is None:
                    first = result.samples
                elif not np.array_equal(first, result.samples, equal_nan=True):
                    raise SystemExit(f"{name}: {workers} workers gave other samples than {counts[0]}")
                mode = "cubeful" if cube else "cubeless"
                print(f"{name:<10}{mode:<10}{workers:>8}{result.trials:>8}{seconds:>10.1f}{result.trials / seconds:>10.1f}",
                      flush=True)


if __name__ == "__main__":
    main()

"""gammon's rollouts of held-out positions next to GNU Backgammon's rollouts of the same positions.

Usage: python bench/rollout_vs_gnubg.py [--positions N] [--trials T] [--player nn] [--workers W]

Each position (every 7th line of tests/vectors/corpus.txt from the 3rd, so none of the
positions the rollout tests use) is rolled out cubeless for the side on roll, before its
roll, ``T`` times by both programs with the same settings: 0-ply play, variance reduction,
quasi-random dice, seed 1, no truncation (GNU Backgammon stops at its one-sided bear-off
database, gammon at its exact bear-off tables). GNU Backgammon's command-line program
prints a rollout's result only to a terminal, so it runs in a pseudo-terminal (pexpect).

Printed per position: both equities with their standard errors and the difference in
combined standard errors (z); then how many positions agree within 2 combined standard
errors. The players differ (gammon's net against GNU Backgammon's), so a difference is
a difference in play, not only noise.
"""

from __future__ import annotations

import argparse
import math
import re
import shutil
import time
from functools import partial
from pathlib import Path

import pexpect

from gammon import Position
from gammon.players import load_player
from gammon.rollout import rollout

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=8)
    parser.add_argument("--trials", type=int, default=1296)
    parser.add_argument("--player", default="nn")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    rows = []
    print(f"{args.trials} trials each, cubeless, 0-ply play, variance reduction, quasi-random dice, seed 1")
    print(f"{'position':16} {'gammon ' + args.player:>18} {'gnubg':>18} {'z':>6}   seconds (gammon, gnubg)")
    for position_id in held_out(args.positions):
        start = time.perf_counter()
        ours = rollout(Position.from_position_id(position_id), partial(load_player, args.player),
                       trials=args.trials, seed=1, workers=args.workers)
        our_seconds = time.perf_counter() - start
        our_se = float(ours.std_error["equity"])
        theirs, their_se, their_seconds = gnubg_rollout(position_id, args.trials)
        z = (ours.equity - theirs) / math.hypot(our_se, their_se)
        rows.append(z)
        print(f"{position_id:16} {ours.equity:+8.3f} ± {our_se:.3f}    {theirs:+8.3f} ± {their_se:.3f} {z:+6.2f}   "
              f"{our_seconds:.0f}, {their_seconds:.0f}", flush=True)
    within = sum(abs(z) <= 2 for z in rows)
    print(f"within 2 combined standard errors: {within}/{len(rows)}; mean |z| {sum(map(abs, rows)) / len(rows):.2f}")


if __name__ == "__main__":
    main()

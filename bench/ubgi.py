"""What the engine protocol costs: plays through UBGI (a real `gammon engine` process) against
the same player in process, GNU Backgammon's adapter at 0, 1 and 2 ply, and how promptly
`gammon engine` answers `go movetime` at its deepest setting (its own player, and GNU
Backgammon behind it, which cannot stop).

    python bench/ubgi.py [--positions 200] [--seed 1]

Prints one row per player: start-up (process start to ``ubgiok``), ms per play through the
protocol, ms per play in process, and the overhead; then, per engine, the wall time of
``go movetime 200`` answers. The positions come from random games (seeded), each with a
random roll.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from gammon import GameState, Position
from gammon.players import load_player
from gammon.engine import GnubgEngine, Limit, SimpleEngine
from gammon.engine.gnubg import find_gnubg

#: The movetime asked for, and the positions asked about, in the movetime rows.
MOVETIME_S = 0.2
MOVETIME_POSITIONS = 20


def positions(count: int, seed: int) -> list[tuple[GameState, tuple[int, int]]]:
    rng = random.Random(seed)
    out: list[tuple[GameState, tuple[int, int]]] = []
    while len(out) < count:
        position = Position()
        for _ in range(rng.randrange(2, 60)):
            roll = (rng.randint(1, 6), rng.randint(1, 6))
            after = position.legal_plays(*roll).positions()
            nxt = after[rng.randrange(len(after))]
            if nxt.winner() is not None:
                break
            position = nxt
        out.append((GameState(position=position), (rng.randint(1, 6), rng.randint(1, 6))))
    return out


def through_engine(engine: object, sample: list[tuple[GameState, tuple[int, int]]]) -> float:
    start = time.perf_counter()
    for state, dice in sample:
        engine.play(state, dice)
    return 1000 * (time.perf_counter() - start) / len(sample)


def in_process(name: str, sample: list[tuple[GameState, tuple[int, int]]]) -> float:
    player = load_player(name)
    for state, dice in sample[:5]:  # compile and load first, as the engine's isready does
        player.choose_play(state.position, *dice)
    start = time.perf_counter()
    for state, dice in sample:
        player.choose_play(state.position, *dice)
    return 1000 * (time.perf_counter() - start) / len(sample)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    sample = positions(args.positions, args.seed)
    print(f"{len(sample)} positions (seed {args.seed}); ms per play, cubeless")
    print(f"{'player':<12} {'start s':>8} {'UBGI ms':>9} {'in-proc ms':>11} {'overhead ms':>12}")
    for name, ply in (("pubeval", 0), ("nn", 0), ("nn", 1), ("nn", 2)):
        started = time.perf_counter()
        command = [sys.executable, "-m", "gammon", "engine", "--player", name, "--ply", str(ply)]
        with SimpleEngine.popen_ubgi(command, timeout=120) as engine:
            engine.configure({"EvalMode": "cubeless"})
            engine.ping()  # loads the player
            startup = time.perf_counter() - started
            remote = through_engine(engine, sample)
        local = in_process(f"{name}:{ply}", sample)
        print(f"{name + ':' + str(ply):<12} {startup:>8.2f} {remote:>9.2f} {local:>11.2f} {remote - local:>12.2f}")
    gnubg = find_gnubg() is not None
    if gnubg:
        for ply in (0, 1, 2):
            started = time.perf_counter()
            with GnubgEngine.popen(ply=ply) as engine:
                startup = time.perf_counter() - started
                remote = through_engine(engine, sample)
            print(f"{'gnubg:' + str(ply):<12} {startup:>8.2f} {remote:>9.2f} {'':>11} {'':>12}")
    else:
        print("GNU Backgammon not installed: gnubg rows skipped (apt-get install gnubg)")
    print(f"go movetime {MOVETIME_S * 1000:.0f} at Ply 3, {MOVETIME_POSITIONS} positions: ms to the answer")
    for player in ("nn", "gnubg:0") if gnubg else ("nn",):
        command = [sys.executable, "-m", "gammon", "engine", "--player", player, "--ply", "3"]
        with SimpleEngine.popen_ubgi(command, timeout=120) as engine:
            engine.ping()
            times = []
            for state, dice in sample[:MOVETIME_POSITIONS]:
                started = time.perf_counter()
                engine.play(state, dice, Limit(time=MOVETIME_S))
                times.append(1000 * (time.perf_counter() - started))
        print(f"{player:<12} mean {sum(times) / len(times):>7.0f}   max {max(times):>7.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

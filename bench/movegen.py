"""Move generation throughput: gammon's kernel next to GNU Backgammon's and bgsage's, same run.

Usage: python bench/movegen.py [CORPUS] [--repeat N]

Every figure is positions per second over the corpus (lines ``POSITIONID D1 D2``), best of
N runs, Position ID decoding included where the API takes IDs:

* gammon       -- ``position_id.decode_batch`` + ``movegen.generate_batch`` (one thread)
* gammon/call  -- ``Position(id).legal_plays(d1, d2)`` one by one (the Python API)
* gnubg_nn     -- ``gnubg_nn.boardfromid`` + ``gnubg_nn.moves`` per position
* bgsage       -- ``bgbot_cpp.possible_moves`` per position (boards decoded beforehand)

then the corpus's doubles alone (hundreds of plays a roll), gammon's batch beside gnubg_nn.

The peers are benchmark-only (``pip install -e '.[bench]'``); a missing one prints n/a.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from gammon import Position, movegen
from gammon.notation import position_id

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = HERE.parent / "tests" / "vectors" / "corpus.txt"


def best_rate(run, count: int, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return count / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", default=str(DEFAULT_CORPUS))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    rows = [line.split() for line in Path(args.corpus).read_text().splitlines() if line.strip()]
    ids = [r[0] for r in rows]
    dice_list = [(int(r[1]), int(r[2])) for r in rows]
    texts = np.frombuffer("".join(ids).encode("ascii"), np.uint8).reshape(-1, position_id.ID_LENGTH)
    dice = np.array(dice_list, np.int8)
    count = len(rows)
    print(f"corpus: {args.corpus} ({count} positions and rolls)")

    def gammon_batch() -> None:
        boards, _status = position_id.decode_batch(texts)
        movegen.generate_batch(boards, dice)

    gammon_batch()  # compile (or load the cached compilation)
    rates: dict[str, float | None] = {}
    rates["gammon"] = best_rate(gammon_batch, count, args.repeat)

    def gammon_calls() -> None:
        for pid, (d1, d2) in zip(ids, dice_list):
            len(Position(pid).legal_plays(d1, d2))

    rates["gammon/call"] = best_rate(gammon_calls, count, 1)

    try:
        import gnubg_nn

        def gnubg_run() -> None:
            for pid, (d1, d2) in zip(ids, dice_list):
                gnubg_nn.moves(gnubg_nn.boardfromid(pid), d1, d2)

        rates["gnubg_nn"] = best_rate(gnubg_run, count, args.repeat)
    except ImportError:
        rates["gnubg_nn"] = None

    try:
        import bgbot_cpp

        boards, _ = position_id.decode_batch(texts)
        board_lists = [b.tolist() for b in boards]

        def bgsage_run() -> None:
            for board, (d1, d2) in zip(board_lists, dice_list):
                bgbot_cpp.possible_moves(board, d1, d2)

        rates["bgsage"] = best_rate(bgsage_run, count, args.repeat)
    except ImportError:
        rates["bgsage"] = None

    for name, rate in rates.items():
        print(f"  {name:12s} {'n/a' if rate is None else f'{rate:12,.0f}'} positions/s")

    # Doubles alone: where a roll has hundreds of plays and finding the repeats costs most.
    doubled = [i for i, (d1, d2) in enumerate(dice_list) if d1 == d2]
    double_boards, _ = position_id.decode_batch(texts[doubled])
    double_dice = dice[doubled]
    doubles = {"gammon": best_rate(lambda: movegen.generate_batch(double_boards, double_dice), len(doubled), args.repeat)}
    if rates["gnubg_nn"] is not None:
        import gnubg_nn

        double_rolls = [(ids[i], dice_list[i]) for i in doubled]

        def gnubg_doubles() -> None:
            for pid, (d1, d2) in double_rolls:
                gnubg_nn.moves(gnubg_nn.boardfromid(pid), d1, d2)

        doubles["gnubg_nn"] = best_rate(gnubg_doubles, len(doubled), args.repeat)
    print(f"  doubles alone ({len(doubled)} rolls): "
          + ", ".join(f"{name} {rate:,.0f}" for name, rate in doubles.items()) + " positions/s")

    def show(rate: float | None) -> str:
        return "n/a" if rate is None else f"{rate:.0f}"

    print(f"movegen positions/s: gammon={show(rates['gammon'])} gnubg_nn={show(rates['gnubg_nn'])} "
          f"bgsage={show(rates['bgsage'])}")


if __name__ == "__main__":
    main()

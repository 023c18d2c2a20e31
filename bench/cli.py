"""Start-up of the ``gammon`` command: wall time of a few commands beside ``python -c pass``.

Usage: python bench/cli.py [--runs N]

Each figure is the median wall time of N runs, each in a fresh process (after one untimed
run that fills numba's on-disk cache if it is empty; rounds of every command in turn), of:

* python -c pass         -- the interpreter alone: the floor every command stands on
* gammon --version       -- the command line, no subcommand module
* gammon convert         -- a Position ID rewritten as BPN: no kernel, no numba
* gammon show            -- a diagram: no kernel, no numba
* gammon moves           -- the legal plays of a roll: the kernel, loaded from numba's cache
* gammon hint (0-ply)    -- ranked by pubeval at 0 ply: the kernel and an evaluator
* gammon bearoff query   -- a race of 15 checkers a side from the built tables (the warm-up
                            run builds the default tables into the user cache if missing)
* import numba           -- what numba alone costs, for comparison
* numba, 1 cached call   -- numba's floor for any kernel command: one trivial function with
                            ``cache=True``, loaded from the cache and called once

Goals (issue 12): convert and show within 0.25 s, moves within 0.6 s, on a quiet machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

POSITION = "4HPwATDgc/ABMA"

#: A module with one cached kernel, for numba's floor.
FLOOR_MODULE = """
import numpy as np
from numba import njit

@njit(cache=True)
def total(values):
    return values.sum()

total(np.ones(3))
"""


def gammon_command() -> list[str]:
    """The installed ``gammon`` script beside this interpreter, else ``python -m gammon``."""
    script = Path(sys.executable).with_name("gammon")
    return [str(script)] if script.exists() else [sys.executable, "-m", "gammon"]


def commands(folder: Path) -> list[tuple[str, list[str], float | None]]:
    gammon = gammon_command()
    floor = folder / "numba_floor.py"
    floor.write_text(FLOOR_MODULE)
    return [
        ("python -c pass", [sys.executable, "-c", "pass"], None),
        ("gammon --version", [*gammon, "--version"], None),
        ("gammon convert --to bpn", [*gammon, "convert", POSITION, "--to", "bpn"], 0.25),
        ("gammon show", [*gammon, "show", POSITION], 0.25),
        ("gammon moves 3 1", [*gammon, "moves", POSITION, "3", "1"], 0.6),
        ("gammon hint (pubeval, 0-ply)", [*gammon, "hint", POSITION, "3", "1", "--player", "pubeval"], None),
        ("gammon bearoff query",
         [*gammon, "bearoff", "query", *["3", "3", "3", "3", "3", "0", "2", "2", "3", "3", "3", "2"]], None),
        ("python -c 'import numba'", [sys.executable, "-c", "import numba"], None),
        ("numba, 1 cached call", [sys.executable, str(floor)], None),
    ]


def wall_time(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="timed runs of each command (default 7)")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error(f"--runs {args.runs}: expected at least 1")

    with tempfile.TemporaryDirectory() as folder:
        report(commands(Path(folder)), args.runs)


def report(table: list[tuple[str, list[str], float | None]], runs: int) -> None:
    for _, argv, _ in table:
        wall_time(argv)  # untimed: numba's cache filled, files in the page cache
    print(f"median wall time of {runs} runs, {os.cpu_count()} cores, load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'command':<30} {'seconds':>8} {'over python':>12}  goal")
    # Rounds of every command in turn, so a load that drifts during the run weighs on all alike.
    times: list[list[float]] = [[] for _ in table]
    for _ in range(runs):
        for i, (_, argv, _) in enumerate(table):
            times[i].append(wall_time(argv))
    floor = None
    for (label, _, goal), runs in zip(table, times):
        median = statistics.median(runs)
        floor = median if floor is None else floor
        verdict = "" if goal is None else f"{goal:.2f} s {'met' if median <= goal else 'MISSED'}"
        print(f"{label:<30} {median:8.3f} {median - floor:+12.3f}  {verdict}")


if __name__ == "__main__":
    main()

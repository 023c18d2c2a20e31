"""Bear-off table builds: gammon next to GNU Backgammon's ``makebearoff``, same run.

Usage: python bench/bearoff.py [--repeat N] [--large] [--large-makebearoff]

Times (best of N, wall clock, file written) for

* the one-sided 6-point, 15-checker table: ``makebearoff -o 6 -f os.bd``;
* the two-sided 6x6 table: ``makebearoff -t 6x6 -f ts.bd``;

and then compares every value of the two programs' tables (they should be identical).

gammon's kernels are compiled (or loaded from numba's cache) before timing. ``--large``
also builds the one-sided 8- and 10-point tables and the two-sided 6x9 table with gammon
and reports their times and sizes; ``--large-makebearoff`` times makebearoff on those too
(slow). makebearoff comes with Debian's ``gnubg`` package; without it the bench prints
n/a. Runs alternate between the two programs so that both see the same machine load.
"""

from __future__ import annotations

import argparse
import math
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from gammon.bearoff import OneSidedTable, TwoSidedTable, onesided, twosided
from gammon.bearoff.perfect_hash import BINOMIAL, unrank_batch

MAKEBEAROFF = shutil.which("makebearoff") or (
    "/usr/games/makebearoff" if Path("/usr/games/makebearoff").exists() else None
)


def timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def makebearoff(args: list[str], out: Path) -> Callable[[], object]:
    def run() -> None:
        out.unlink(missing_ok=True)
        subprocess.run(
            [MAKEBEAROFF, *args, "-f", str(out)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )

    return run


def gammon(build: Callable[[Path], object], out: Path) -> Callable[[], object]:
    def run() -> None:
        out.unlink(missing_ok=True)
        build(out)

    return run


def gnubg_index(counts: list[int], points: int, checkers: int) -> int:
    """GNU Backgammon's number for a one-sided position (its files' order), from its documented
    behaviour: the counts written as a bit string of checkers and point separators, ranked in
    the combinatorial number system."""
    j = points - 1 + sum(counts)
    bits = 1 << j
    for i in range(points - 1):
        j -= counts[i] + 1
        bits |= 1 << j
    n, r, index = checkers + points, points, 0
    while n != r:
        if bits >> (n - 1) & 1:
            index += math.comb(n - 1, r)
            r -= 1
        n -= 1
    return index


def same_as_makebearoff_os(ours: Path, theirs: Path) -> str:
    """Compare every distribution with makebearoff's compressed 6x15 file (40-byte header)."""
    table = OneSidedTable(ours)
    blob = theirs.read_bytes()
    size = table.size
    index = np.frombuffer(blob, np.uint8, 8 * size, 40).reshape(size, 8).astype(np.int64)
    data = np.frombuffer(blob, "<u2", offset=40 + 8 * size)
    differ = 0
    for x, counts in enumerate(unrank_batch(BINOMIAL, np.arange(size), table.points).tolist()):
        e = index[gnubg_index(counts, table.points, 15)]
        offset = e[0] | e[1] << 8 | e[2] << 16 | e[3] << 24
        theirs_all = data[offset : offset + e[4]]
        theirs_first = data[offset + e[4] : offset + e[4] + e[6]]
        for which, first, values in ((0, e[5], theirs_all), (1, e[7], theirs_first)):
            got = {n: round(p * 65535) for n, p in table.distribution(x, which).items()}
            if got != {int(first) + k: int(v) for k, v in enumerate(values) if v}:
                differ += 1
                break
    return f"{size - differ}/{size} positions identical"


def same_as_makebearoff_ts(ours: Path, theirs: Path) -> str:
    """Compare every value with makebearoff's 6x6 file (40-byte header, 4 x uint16 per pair)."""
    table = TwoSidedTable(ours)
    n = table.size
    raw = np.frombuffer(theirs.read_bytes(), "<u2", offset=40).astype(np.int64).reshape(n, n, 4) - 0x8000
    order = [gnubg_index(c, 6, table.checkers) for c in unrank_batch(BINOMIAL, np.arange(n), 6).tolist()]
    same = (raw[order][:, order] == table.values.reshape(n, n, 4)).all(axis=2)
    return f"{int(same.sum())}/{n * n} positions identical"


def size(path: Path) -> str:
    return f"{path.stat().st_size / 1e6:.1f} MB" if path.exists() else "n/a"


def fmt(seconds: float | None) -> str:
    return "n/a" if seconds is None else f"{seconds:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--large", action="store_true", help="also build the 8- and 10-point one-sided and 6x9 two-sided tables"
    )
    parser.add_argument(
        "--large-makebearoff", action="store_true", help="time makebearoff on the large tables too (slow)"
    )
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="gammon-bench-bearoff-"))
    onesided.build(work / "warm-os.bearoff", 2, 3)  # compile, or load numba's cache
    twosided.build(work / "warm-ts.bearoff", 2)
    print(f"makebearoff: {MAKEBEAROFF or 'not found (apt-get install gnubg)'}")

    cases = {
        "os6": (gammon(lambda p: onesided.build(p, 6), work / "os6.bearoff"), ["-o", "6"], work / "os6.bd"),
        "ts6x6": (gammon(lambda p: twosided.build(p, 6), work / "ts6x6.bearoff"), ["-t", "6x6"], work / "ts6x6.bd"),
    }
    best: dict[str, float | None] = {}
    for name, (ours, theirs, their_file) in cases.items():
        mine: list[float] = []
        gnu: list[float] = []
        for _ in range(args.repeat):
            mine.append(timed(ours))
            if MAKEBEAROFF:
                gnu.append(timed(makebearoff(theirs, their_file)))
        best[f"gammon_{name}"] = min(mine)
        best[f"makebearoff_{name}"] = min(gnu) if gnu else None
        ours_file = work / f"{name}.bearoff"
        print(
            f"{name:6s} gammon {fmt(best[f'gammon_{name}'])} s ({size(ours_file)})   "
            f"makebearoff {fmt(best[f'makebearoff_{name}'])} s ({size(their_file)})"
        )
        if their_file.exists():
            check = same_as_makebearoff_os if name.startswith("os") else same_as_makebearoff_ts
            print(f"       values against makebearoff's file: {check(ours_file, their_file)}")

    if args.large:
        large = [
            ("os8", lambda p: onesided.build(p, 8), ["-o", "8"]),
            ("os10", lambda p: onesided.build(p, 10), ["-o", "10"]),
            ("ts6x9", lambda p: twosided.build(p, 9), ["-t", "6x9"]),
        ]
        for name, build, theirs in large:
            ours_file = work / f"{name}.bearoff"
            seconds = timed(gammon(build, ours_file))
            line = f"{name:6s} gammon {seconds:.2f} s ({size(ours_file)})"
            ours_file.unlink(missing_ok=True)
            if args.large_makebearoff and MAKEBEAROFF:
                their_file = work / f"{name}.bd"
                line += f"   makebearoff {timed(makebearoff(theirs, their_file)):.2f} s ({size(their_file)})"
                their_file.unlink(missing_ok=True)
            print(line, flush=True)

    shutil.rmtree(work, ignore_errors=True)
    print(
        "bearoff build seconds: "
        + " ".join(
            f"{key}={fmt(best[key])}" for key in ("gammon_os6", "makebearoff_os6", "gammon_ts6x6", "makebearoff_ts6x6")
        )
    )


if __name__ == "__main__":
    main()

"""Run fuzz targets with Hypothesis (atheris is the other way: ``python fuzz/TARGET.py``).

    python fuzz/run.py --list
    python fuzz/run.py xgid --examples 100000        # the seeds, then 100,000 fresh inputs
    python fuzz/run.py all --examples 2000 --seed 7  # every target; a seed gives another run
    python fuzz/run.py movetext --corpus-only        # just the seeds
    python fuzz/run.py record_mat --growth           # the seeds, then every hostile shape at 2 and 16 KiB

Exits 1 on the first failure, printing the target, the (shrunk) input and its traceback;
add that input to ``fuzz/corpus/TARGET/`` so it stays fixed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _harness


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="fuzz/run.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("target", nargs="?", help="a target name, or 'all'")
    parser.add_argument("--list", action="store_true", help="list the targets")
    parser.add_argument("--examples", type=int, default=1000, help="Hypothesis inputs per target (default 1000)")
    parser.add_argument("--seed", type=int, help="a Hypothesis seed (default: a fresh random run)")
    parser.add_argument("--derandomize", action="store_true", help="the same inputs every run, as in CI")
    parser.add_argument("--corpus-only", action="store_true", help="run only the seed corpus")
    parser.add_argument("--growth", action="store_true",
                        help="instead of Hypothesis, time every hostile shape at --size bytes and 8 times that")
    parser.add_argument("--size", type=int, default=2048, help="the smaller size of --growth (default 2048)")
    args = parser.parse_args(argv)
    if args.list or not args.target:
        for name in _harness.names():
            print(f"{name:14} {len(_harness.corpus(name)):3} seeds  {_summary(name)}")
        return 0
    targets = _harness.names() if args.target == "all" else [args.target]
    status = 0
    for name in targets:
        began = time.perf_counter()
        failures = _harness.run_corpus(name)
        for failure in failures:
            print(failure, file=sys.stderr)
        found = bool(failures)
        if not args.corpus_only:
            try:
                _run(name, args)
            except _harness.Failure as failure:
                print(failure, file=sys.stderr)
                found = True
        status |= found
        what = "FAIL" if found else "ok"
        print(f"{name:14} {what:4} {time.perf_counter() - began:6.1f} s")
    return status


def _run(name: str, args: argparse.Namespace) -> None:
    if args.growth:
        _growth(name, args.size)
        return
    derandomize = args.derandomize and args.seed is None
    _harness.run_hypothesis(name, args.examples, derandomize=derandomize, seed=args.seed)


def _growth(name: str, size: int) -> None:
    """Every hostile shape of the target; raises a Failure naming those whose time grows super-linearly."""
    module = _harness.load(name)
    shapes = _harness.shapes(name)
    grown = _harness.superlinear(name, module, shapes, size)
    print(f"{name:14} {len(shapes)} hostile shapes timed at {size} and {8 * size} bytes")
    if grown:
        shape, ratio = max(grown, key=lambda pair: pair[1])
        error = _harness.violation(f"{len(grown)} shapes grow super-linearly, the worst x{ratio:.0f}: {shape}")
        raise _harness.Failure(name, shape(size), error, "")


def _summary(name: str) -> str:
    doc = (_harness.load(name).__doc__ or "").strip().splitlines()
    return doc[0].removeprefix("Fuzz target: ") if doc else ""


if __name__ == "__main__":
    sys.exit(main())

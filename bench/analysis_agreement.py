"""Analysis agreement: ``gammon analyse``'s players' error rates ranked against GNU Backgammon's own analysis.

Usage: python bench/analysis_agreement.py [--matches N] [--length L] [--seed S] [--player nn:1]
                                          [--weights A.npz [B.npz ...]] [--dir DIR] [--workers W]

GNU Backgammon (the command-line program, ``apt-get install gnubg``: the benchmark's peer only)
plays each match against itself at 0 ply, each player with its own noise (drawn from 0 to 0.08
per match, so the players' skill spreads as people's does), exports it as ``.mat`` and analyses
it at 2 ply (``analyse match``, then ``show statistics match``: each player's overall error
rate in mEMG). gammon analyses the same file (``gammon analyse --json``, the analyst
``--player``; ``--weights`` names nets to compare, each a column). Printed: the Spearman rank
correlation of the players' error rates over all players, per analyst, and each player's rates.

The matches and GNU Backgammon's statistics are kept in ``--dir`` (default
``bench/.analysis-matches``, ignored by git): a rerun replays nothing and only gammon analyses.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from gammon.record.mat import read_mat

ROOT = Path(__file__).resolve().parent.parent
GNUBG = shutil.which("gnubg") or "/usr/games/gnubg"
#: The noise levels a player's 0-ply play is drawn with (GNU Backgammon's standard deviation).
NOISE = (0.0, 0.005, 0.01, 0.02, 0.03, 0.045, 0.06, 0.08)
ERROR_RATE = re.compile(r"^Error rate mEMG \(MWC\)\s+(-?[\d.]+)\s+\(\s*[-+\d.]+%\)\s+(-?[\d.]+)")


def gnubg_script(seed: int, length: int, noise: tuple[float, float], mat: Path) -> str:
    lines = ["set rng mersenne", f"set seed {seed}"]
    for player, level in enumerate(noise):
        lines += [f"set player {player} gnubg",
                  f"set player {player} chequerplay evaluation plies 0",
                  f"set player {player} chequerplay evaluation noise {level}",
                  f"set player {player} cubedecision evaluation plies 0",
                  f"set player {player} cubedecision evaluation noise {level}"]
    lines += ["set analysis chequerplay evaluation plies 2", "set analysis cubedecision evaluation plies 2",
              f"new match {length}", f"export match mat {mat}", "analyse match", "show statistics match"]
    return "\n".join(lines) + "\n"


def overall_error_rates(statistics: str) -> tuple[float, float]:
    """The two players' overall error rates (mEMG) from ``show statistics match``'s text."""
    overall = statistics[statistics.rindex("Overall statistics"):]
    for line in overall.splitlines():
        found = ERROR_RATE.match(line.strip())
        if found:
            return abs(float(found.group(1))), abs(float(found.group(2)))
    raise ValueError("no overall error rate in GNU Backgammon's statistics")


def gnubg_match(directory: Path, seed: int, index: int, length: int) -> tuple[Path, tuple[float, float]]:
    """Match ``index``: played and analysed by GNU Backgammon once, then read from ``directory``."""
    mat = directory / f"match-{seed}-{index:03d}.mat"
    stats = mat.with_suffix(".json")
    if not stats.exists():
        rng = np.random.default_rng([seed, index])
        noise = (float(rng.choice(NOISE)), float(rng.choice(NOISE)))
        script = gnubg_script(seed * 1000 + index, length, noise, mat)
        done = subprocess.run([GNUBG, "-t", "-q"], input=script, capture_output=True, text=True, timeout=1800)
        rates = overall_error_rates(done.stdout)
        stats.write_text(json.dumps({"noise": noise, "gnubg_error_rates": rates}))
    return mat, tuple(json.loads(stats.read_text())["gnubg_error_rates"])  # type: ignore[return-value]


def gammon_error_rates(mat: Path, player: str, weights: str | None) -> tuple[float, float]:
    """gammon's overall error rate of each player of ``mat``, in the file's seat order."""
    env = dict(os.environ)
    if weights:
        env["GAMMON_NN_WEIGHTS"] = weights
    done = subprocess.run([sys.executable, "-m", "gammon", "analyse", str(mat), "--player", player, "--json",
                           "--workers", "1"], capture_output=True, text=True, env=env, timeout=3600, check=True)
    players = json.loads(done.stdout)["players"]
    record = read_mat(mat.read_text())[0]  # the file's left column, GNU Backgammon's player 0, reads as black
    return players[record.black]["error_rate"], players[record.white]["error_rate"]


def ranks(values: np.ndarray) -> np.ndarray:
    """Ranks from 1, ties sharing their mean rank."""
    order = np.argsort(values, kind="stable")
    ranked = np.empty(len(values))
    ranked[order] = np.arange(1, len(values) + 1)
    for value in np.unique(values):
        tied = values == value
        ranked[tied] = ranked[tied].mean()
    return ranked


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.corrcoef(ranks(a), ranks(b))[0, 1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=45)
    parser.add_argument("--length", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--player", default="nn:1", help="gammon's analyst (default nn:1)")
    parser.add_argument("--weights", nargs="*", default=None, help="nets for the analyst to compare (default: the shipped one)")
    parser.add_argument("--dir", type=Path, default=ROOT / "bench" / ".analysis-matches")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    weights = args.weights or [None]
    with ThreadPoolExecutor(args.workers) as pool:
        matches = list(pool.map(lambda i: gnubg_match(args.dir, args.seed, i, args.length), range(args.matches)))
        columns = [list(pool.map(gammon_error_rates, [m for m, _ in matches], [args.player] * len(matches),
                                 [w] * len(matches))) for w in weights]
    reference = np.array([rate for _, rates in matches for rate in rates])
    names = [Path(w).stem if w else "shipped" for w in weights]
    print(f"{len(reference)} players of {len(matches)} {args.length}-point matches played by GNU Backgammon "
          f"with noise; error rates in mEMG, GNU Backgammon's analysis at 2 ply")
    for name, column in zip(names, columns):
        ours = np.array([rate for rates in column for rate in rates])
        print(f"gammon analyse --player {args.player} ({name}): Spearman {spearman(reference, ours):.3f}")
    print(f"{'match':>5} {'gnubg':>8}" + "".join(f"{n[:10]:>11}" for n in names))
    for index, (_, rates) in enumerate(matches):
        for seat in range(2):
            print(f"{index:>5} {rates[seat]:>8.1f}" + "".join(f"{c[index][seat]:>11.1f}" for c in columns))
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()

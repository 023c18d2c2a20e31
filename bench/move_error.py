"""Move error: the equity a net's 0-ply choices lose, per kind of position, two nets side by side.

Usage: python bench/move_error.py [--weights A.npz [B.npz ...]] [--decisions N] [--seed S]
                                  [--judge gnubg|teacher] [--teacher T.npz] [--workers W]

The decisions (a position and a seeded roll with at least two different plays) are fixed by
``--seed``: 60 % positions of real games (tests/vectors/corpus.txt, in a seeded order), and 8 %
each of the rare kinds of :mod:`gammon.nn.kinds` (crashed, containment, backgame, prime vs
prime, bear-off vs contact) from the self-play of a committed net no training changes
(training/td-v3's phase-1 average), from games no data set uses. With the default 5,000
decisions that is 3,000 real-match decisions and 400 of each rare kind.

Each net chooses at 0 ply (bear-off tables where they cover). The judge values at 2 ply the play
each net chose and its own best play; a net's error in a decision is the best of those values
less its play's (0 where it chose the best). Printed per kind and overall: the mean error of each
net in millipoints with its standard error, and for each later net the paired difference from the
first (negative: the later net loses less) with its standard error. With the ``gnubg`` judge a
last column gives GNU Backgammon's own 0-ply choices, the anchor (a play it makes that gammon's
move generator does not list, which happens only where it cuts a bear-off short, counts as the
first net's).

Judges:
* ``gnubg`` (default): GNU Backgammon 2-ply (PyPI's ``gnubg``), its best play by ``findbestmove``.
  It is the benchmark's referee only: its values live in this process and are never stored,
  never a training target.
* ``teacher``: gammon's own search at 2 ply with a fixed net (``--teacher``, default
  training/distill/round0.npz), its best play by its own analysis: the gate that needs no GNU
  Backgammon, on the real-match decisions only unless ``--all-kinds``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from gammon import Position, movegen
from gammon.bots import CompositeEvaluator, load_bearoff
from gammon.bots.evaluator import BEAROFF, OVER
from gammon.bots.search import Search
from gammon.evaluation import equities
from gammon.nn.evaluator import NNEvaluator, default_weights_path, load_network
from gammon.nn.network import Network
from gammon.nn import kinds
from gammon.train.rollouts import self_play_where
from gammon.workers import Workers

sys.path.insert(0, str(Path(__file__).resolve().parent))
from judgement import gnubg_play_equity
from vs_gnubg import to_gnubg

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "vectors" / "corpus.txt"
SELF_PLAY = ROOT / "training" / "td-v3" / "average-800k-1200k.npz"
TEACHER = ROOT / "training" / "distill" / "round0.npz"
REAL = "real matches"
#: The share of real-match decisions; the rest is split evenly among the rare kinds.
REAL_SHARE = 0.6
#: Self-play games of the rare kinds start here: no data set or TD run plays these games.
FIRST_GAME = 90_000_000


def _two_plays(board: np.ndarray, rng: np.random.Generator) -> tuple[int, int] | None:
    """A seeded roll of ``board``, or None when that roll leaves one play (no decision)."""
    d1, d2 = (int(d) for d in rng.integers(1, 7, 2))
    return (d1, d2) if movegen.generate(board, d1, d2)[0].shape[0] >= 2 else None


def decisions(count: int, seed: int) -> list[tuple[str, np.ndarray, int, int]]:
    """The fixed decisions: (kind, the side on roll's board, die, die)."""
    rng = np.random.default_rng([seed, 53])
    out: list[tuple[str, np.ndarray, int, int]] = []
    real = round(REAL_SHARE * count)
    lines = [line.split()[0] for line in CORPUS.read_text().splitlines() if line.strip()]
    for index in rng.permutation(len(lines)):
        if sum(kind == REAL for kind, *_ in out) >= real:
            break
        board = Position.from_position_id(lines[index]).array()
        if movegen.board_class(board) in (OVER, BEAROFF):
            continue
        roll = _two_plays(board, rng)
        if roll:
            out.append((REAL, board, *roll))
    player = Network.load(SELF_PLAY)
    each = (count - real) // len(kinds.RARE)
    for number, (name, test) in enumerate(kinds.RARE.items()):
        found = self_play_where(player, test, 3 * each, seed, FIRST_GAME + 10_000_000 * number, keep=0.5,
                                stride=1000, limit=200)
        taken = 0
        for board in found[rng.permutation(len(found))]:
            roll = _two_plays(board, rng) if taken < each else None
            if roll:
                out.append((name, board, *roll))
                taken += 1
    return out


# -- the players and the judges ---------------------------------------------------------------------
_state: dict[str, object] = {}


def _start(weights: list[str], judge: str, teacher: str) -> None:
    bearoff = load_bearoff()
    _state["nets"] = [CompositeEvaluator(NNEvaluator(load_network(w)), bearoff) for w in weights]
    if judge == "teacher":
        _state["teacher"] = Search(CompositeEvaluator(NNEvaluator(load_network(teacher)), bearoff))
    else:
        import gnubg

        _state["gnubg"] = gnubg
    _state["judge"] = judge


def _gnubg_best(board: np.ndarray, d1: int, d2: int, children: np.ndarray, plies: int = 2) -> int:
    """The index among ``children`` of GNU Backgammon's best play at ``plies`` (-1 if its move is not found)."""
    gnubg = _state["gnubg"]
    context = gnubg.evalcontext(0, plies, 1, 1 if plies else 0, 0.0)  # type: ignore[attr-defined]
    move = tuple(gnubg.findbestmove(to_gnubg(board), gnubg.cubeinfo(), context, (d1, d2)))  # type: ignore[attr-defined]
    after = board.copy()
    for k in range(0, len(move) - 1, 2):
        movegen.apply_move(after, move[k], move[k + 1])
    matches = np.flatnonzero((children == after).all(axis=1))
    return int(matches[0]) if matches.size else -1


def _errors(task: tuple[np.ndarray, int, int]) -> np.ndarray:
    """Each net's error in one decision, in equity."""
    board, d1, d2 = task
    children = movegen.generate(board, d1, d2)[0]
    nets = _state["nets"]
    choices = [int(np.argmax(equities(net.evaluate_batch(children)))) for net in nets]  # type: ignore[attr-defined]
    if _state["judge"] == "teacher":
        search = _state["teacher"]
        analysis = search.analyse(board, d1, d2, ply=2)  # type: ignore[attr-defined]
        best = int(np.argmax(equities(analysis.probabilities)))
        judged = sorted(set(choices) | {best})
        values = dict(zip(judged, equities(search.value(children[judged], 2))))  # type: ignore[attr-defined]
    else:
        best = _gnubg_best(board, d1, d2, children)
        # GNU Backgammon's own 0-ply choice: the anchor the nets are measured against.
        choices.append(_gnubg_best(board, d1, d2, children, 0))
        if choices[-1] < 0:
            choices[-1] = choices[0]
        judged = sorted(set(choices) | ({best} if best >= 0 else set()))
        values = {i: gnubg_play_equity(children[i]) for i in judged}
    top = max(values.values())
    return np.array([top - values[c] for c in choices])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weights", nargs="*", default=None, help="weights files (default: the shipped net)")
    parser.add_argument("--decisions", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--judge", choices=("gnubg", "teacher"), default="gnubg")
    parser.add_argument("--teacher", default=str(TEACHER), help="the teacher judge's net (default %(default)s)")
    parser.add_argument("--all-kinds", action="store_true", help="the teacher judges the rare kinds too")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    weights = args.weights or [str(default_weights_path())]
    start = time.perf_counter()
    fixed = decisions(args.decisions, args.seed)
    if args.judge == "teacher" and not args.all_kinds:
        fixed = [d for d in fixed if d[0] == REAL]
    print(f"{len(fixed)} decisions ({time.perf_counter() - start:.0f} s to draw them), judged by "
          f"{'GNU Backgammon 2-ply' if args.judge == 'gnubg' else 'gammon 2-ply with ' + Path(args.teacher).name}",
          flush=True)
    from tqdm import tqdm

    with Workers(args.workers, initializer=_start, initargs=(weights, args.judge, args.teacher)) as pool:
        tasks = [(board, d1, d2) for _, board, d1, d2 in fixed]
        errors = np.array(list(tqdm(pool.imap(_errors, tasks), total=len(tasks), unit="decision",
                                    desc="judging", file=sys.stderr, mininterval=2.0)))
    names = [Path(w).stem for w in weights]
    if args.judge == "gnubg":
        names.append("gnubg 0-ply")
    header = f"{'kind':<20}{'n':>6}" + "".join(f"{n[:22]:>24}" for n in names)
    header += "".join(f"{(n[:14] + ' - ' + names[0][:6]):>26}" for n in names[1:])
    print("mean error per decision, millipoints (standard error); paired difference from the first net")
    print(header)
    labels = [kind for kind, *_ in fixed]
    for kind in [REAL, *kinds.RARE, "all"]:
        rows = np.array([kind == "all" or k == kind for k in labels])
        if not rows.any():
            continue
        part = errors[rows] * 1000
        cells = [f"{part[:, j].mean():.2f} ({part[:, j].std(ddof=1) / np.sqrt(len(part)):.2f})" for j in range(len(names))]
        for j in range(1, len(names)):
            difference = part[:, j] - part[:, 0]
            cells.append(f"{difference.mean():+.2f} ({difference.std(ddof=1) / np.sqrt(len(part)):.2f})")
        print(f"{kind:<20}{int(rows.sum()):>6}" + "".join(f"{c:>24}" for c in cells[: len(names)])
              + "".join(f"{c:>26}" for c in cells[len(names):]), flush=True)
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()

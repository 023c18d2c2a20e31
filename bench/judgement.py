"""Judgement: gammon's 0-ply equity against GNU Backgammon's 2-ply, by kind of position, beside GNU Backgammon's 0-ply.

Usage: python bench/judgement.py [--per-kind N] [--seed S] [--weights A.npz [B.npz ...]] [--show K] [--plays]

Positions of five kinds, before the roll, the side on roll's cubeless equity:

* straggler races: races where a side has checkers off and some outside its home board
  (what a late hit leaves), from the self-play of a committed net (training/td-v3's phase-1
  average, which later training never changes), seed S (never the seeds of the training data);
* ordinary races, crashed and contact positions: from tests/vectors/corpus.txt (positions of
  real games), classified by :func:`gammon.nn.network.net_of`; half the crashed ones from the
  same self-play as the straggler races;
* real-match positions: the corpus positions in a seeded order, whatever their kind.

Each is evaluated by gammon's ``nn`` at 0 ply (the same probabilities ``gammon engine
--player nn:0`` answers ``eval`` with; ``--weights`` names other weights files to compare,
each a column) and by GNU Backgammon (PyPI's ``gnubg``, the benchmark's peer only) at 0 and
2 ply. Printed per kind: the mean and worst distance from GNU Backgammon's 2-ply equity,
for each gammon net and for GNU Backgammon's 0-ply, and ``--show`` the K worst positions of
the first net.

A net nearer the truth position by position can still rank the plays of one roll worse (its
errors need not be the same for siblings), and plays are what a bot is. ``--plays`` gives each
position a seeded roll and, for each later net against the first, takes the decisions where
their 0-ply choices differ: GNU Backgammon's 2-ply equity of the later net's play less the
first net's, mean and standard error, and how often it is better or worse.
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
from gammon.evaluation import equities, flip_probabilities
from gammon.nn.evaluator import NNEvaluator, default_weights_path, load_network
from gammon.nn.network import CONTACT_NET, CRASHED_NET, RACE_NET, net_of
from gammon.nn.network import Network
from gammon.train.phases import self_play_positions, straggler

sys.path.insert(0, str(Path(__file__).resolve().parent))
from vs_gnubg import to_gnubg

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "vectors" / "corpus.txt"
#: The player whose self-play gives the straggler races and half the crashed positions: a
#: committed net that no later training changes, so the positions stay the same.
SELF_PLAY = ROOT / "training" / "td-v3" / "average-800k-1200k.npz"
KINDS = ("straggler races", "ordinary races", "crashed", "contact", "real matches")


def phase(board: np.ndarray) -> int:
    """The net a position (side on roll's board) is judged by, as :func:`net_of` sees it after a play."""
    return net_of(movegen.flip_board(board))


def corpus_positions() -> list[np.ndarray]:
    boards = []
    for line in CORPUS.read_text().splitlines():
        if line.strip():
            board = Position.from_position_id(line.split()[0]).array()
            if movegen.board_class(board) not in (OVER, BEAROFF):
                boards.append(board)
    return boards


def sample(per_kind: int, seed: int) -> dict[str, list[np.ndarray]]:
    """``per_kind`` positions of each kind (fewer where the corpus has fewer)."""
    rng = np.random.default_rng([seed, 31])
    corpus = corpus_positions()
    order = rng.permutation(len(corpus))
    player = Network.load(SELF_PLAY)
    kinds: dict[str, list[np.ndarray]] = {kind: [] for kind in KINDS}
    kinds["straggler races"].extend(self_play_positions(player, "straggler", per_kind, seed, 0))
    kinds["crashed"].extend(self_play_positions(player, "crashed", per_kind // 2, seed, 0))
    for index in order:
        board = corpus[index]
        net = phase(board)
        if net == RACE_NET and not straggler(board) and len(kinds["ordinary races"]) < per_kind:
            kinds["ordinary races"].append(board)
        elif net == CRASHED_NET and len(kinds["crashed"]) < per_kind:
            kinds["crashed"].append(board)
        elif net == CONTACT_NET and len(kinds["contact"]) < per_kind:
            kinds["contact"].append(board)
        if len(kinds["real matches"]) < per_kind:
            kinds["real matches"].append(board)
    return kinds


def gammon_equities(weights: str, boards: np.ndarray) -> np.ndarray:
    """The side on roll's cubeless equity at 0 ply by the net in ``weights`` (bear-off tables where they cover)."""
    evaluator = CompositeEvaluator(NNEvaluator(load_network(weights)), load_bearoff())
    after = np.array([movegen.flip_board(b) for b in boards])
    return equities(flip_probabilities(evaluator.evaluate_batch(after)))


def gnubg_equities(boards: np.ndarray, ply: int) -> np.ndarray:
    import gnubg

    cube = gnubg.cubeinfo()
    context = gnubg.evalcontext(0, ply, 1, 1 if ply else 0, 0.0)
    return np.array([gnubg.evaluate(to_gnubg(b), cube, context)[5] for b in boards])


def gnubg_play_equity(child: np.ndarray) -> float:
    """GNU Backgammon's 2-ply equity of a play (``child``, after the play) for the side that played it."""
    import gnubg

    if not (child[1:] > 0).any():
        return 3.0  # the last checker borne off: the game is won
    context = gnubg.evalcontext(0, 2, 1, 1, 0.0)
    return -float(gnubg.evaluate(to_gnubg(movegen.flip_board(child)), gnubg.cubeinfo(), context)[5])


_evaluators: dict[str, CompositeEvaluator] = {}


def chosen(weights: str, children: np.ndarray) -> int:
    """The play (index of ``children``) the net in ``weights`` chooses at 0 ply."""
    if weights not in _evaluators:
        _evaluators[weights] = CompositeEvaluator(NNEvaluator(load_network(weights)), load_bearoff())
    return int(np.argmax(equities(_evaluators[weights].evaluate_batch(children))))


def compare_plays(kinds: dict[str, list[np.ndarray]], weights: list[str], seed: int) -> None:
    """For each later net against the first, per kind: where their plays differ, which GNU Backgammon prefers."""
    print(f"plays that differ from {Path(weights[0]).stem}'s, by GNU Backgammon's 2-ply equity: "
          "mean gain (standard error), better/worse")
    rng = np.random.default_rng([seed, 97])
    for kind, positions in kinds.items():
        decisions = 0
        gains: list[list[float]] = [[] for _ in weights[1:]]
        for board in positions:
            d1, d2 = (int(d) for d in rng.integers(1, 7, 2))
            children = movegen.generate(board, d1, d2)[0]
            if children.shape[0] < 2:
                continue
            decisions += 1
            first = chosen(weights[0], children)
            for column, other in enumerate(weights[1:]):
                mine = chosen(other, children)
                if mine != first:
                    gains[column].append(gnubg_play_equity(children[mine]) - gnubg_play_equity(children[first]))
        cells = []
        for values in gains:
            g = np.array(values)
            error = g.std(ddof=1) / np.sqrt(len(g)) if len(g) > 1 else float("nan")
            cells.append(f"{len(g):>4} {g.mean() if len(g) else 0.0:+.4f} ({error:.4f}) "
                         f"{int((g > 1e-9).sum())}/{int((g < -1e-9).sum())}")
        print(f"{kind:<17}{decisions:>5}" + "".join(f"{c:>34}" for c in cells), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-kind", type=int, default=300)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--weights", nargs="*", default=None, help="weights files to compare (default: the shipped net)")
    parser.add_argument("--show", type=int, default=0, help="list the K worst positions of each kind")
    parser.add_argument("--plays", action="store_true",
                        help="also compare each later net's plays with the first's, judged by GNU Backgammon's 2-ply")
    args = parser.parse_args()
    weights = args.weights or [str(default_weights_path())]
    start = time.perf_counter()
    kinds = sample(args.per_kind, args.seed)
    names = [Path(w).stem for w in weights]
    header = f"{'kind':<17}{'n':>5}" + "".join(f"{n[:18]:>20}" for n in names) + f"{'gnubg 0-ply':>20}"
    print("distance from GNU Backgammon 2-ply cubeless equity, mean (worst)")
    print(header)
    for kind, positions in kinds.items():
        boards = np.array(positions, np.int8)
        reference = gnubg_equities(boards, 2)
        columns = [gammon_equities(w, boards) for w in weights] + [gnubg_equities(boards, 0)]
        cells = []
        for values in columns:
            gap = np.abs(values - reference)
            cells.append(f"{gap.mean():.3f} ({gap.max():.2f})")
        print(f"{kind:<17}{len(boards):>5}" + "".join(f"{c:>20}" for c in cells), flush=True)
        if args.show:
            gap = np.abs(columns[0] - reference)
            for i in np.argsort(-gap)[: args.show]:
                pid = Position.from_array(boards[i]).position_id()
                print(f"    {pid}  gammon {columns[0][i]:+.3f}  gnubg-2 {reference[i]:+.3f}  gnubg-0 {columns[-1][i]:+.3f}")
    if args.plays and len(weights) > 1:
        compare_plays(kinds, weights, args.seed)
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()

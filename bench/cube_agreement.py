"""Cube decisions against GNU Backgammon's 2-ply decisions (tests/vectors/cube).

Usage: python bench/cube_agreement.py [--player nn] [--plies 0 1 2] [--positions N] [--show K]

For each depth, runs gammon's cube decision (``Player.cube_decision``, the same code as
``gammon cube``) on every position of the sample in its four contexts (money with the
Jacoby rule; a 7-point match at 0-0, 2-away/4-away and 4-away/2-away) and prints the
agreement with gnubg on double / no double and on take / pass: overall, by context, and on
the *clear* decisions, where gnubg's margin between the two choices exceeds 0.1.

The first line, "formulas", feeds gnubg's own cubeless probabilities (given in the
vectors) to our cubeful formulas at 0 ply: it measures the cube arithmetic alone, without
our evaluator. The clear disagreements are listed (``--show``) to look at by hand.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

import numpy as np

from gammon import GameState
from gammon.players import load_player
from gammon.cube import CubeContext, CubeDecision, cube_efficiencies, cubeful_values

VECTORS = Path(__file__).resolve().parent.parent / "tests" / "vectors" / "cube" / "cube_decisions_sample.json"
CLEAR = 0.1


def gnubg_choices(record: dict) -> tuple[bool, bool, float, float]:
    """gnubg's double and take choices, and its margins for each."""
    action = record["action"]
    double = action.startswith(("Double", "Redouble", "Optional"))
    take = action.endswith(("take", "beaver"))
    nd, dt, dp = record["no_double"], record["double_take"], record["double_pass"]
    return double, take, abs(min(dt, dp) - nd), abs(dt - dp)


def formula_decision(state: GameState, record: dict) -> CubeDecision:
    """Our formulas on gnubg's cubeless probabilities (0 ply)."""
    context = CubeContext.from_state(state)
    c = record["cubeless"]
    p = np.array([[c["p_win"], c["p_win_gammon"], c["p_win_backgammon"], c["p_lose_gammon"], c["p_lose_backgammon"]]])
    x = cube_efficiencies(state.position.array()[None, :])
    nd = cubeful_values(p, context, x)[0]
    dt = cubeful_values(p, context.doubled(), x)[0]
    n = context.normalise
    return CubeDecision.from_equities(float(n(nd)), float(n(dt)), float(n(context.cash)))


def measure(decide, positions: list[dict]) -> tuple[dict, list[tuple]]:
    total: Counter = Counter()
    agree: Counter = Counter()
    disagreements = []
    for position in positions:
        for name, record in position["contexts"].items():
            state = GameState.from_gnubg_id(f"{position['position_id']}:{record['match_id']}")
            ours = decide(state, record)
            double, take, double_margin, take_margin = gnubg_choices(record)
            for key, mine, theirs, margin in (("double", ours.double, double, double_margin),
                                              ("take", ours.take, take, take_margin)):
                clear = margin > CLEAR
                for scope in (("all", key), (name, key), ("clear", key), ("clear", name, key)):
                    if scope[0] == "clear" and not clear:
                        continue
                    total[scope] += 1
                    agree[scope] += mine == theirs
                if clear and mine != theirs:
                    disagreements.append((name, key, position["position_id"], record["action"], ours.action,
                                          record["no_double"], record["double_take"], ours.no_double, ours.double_take))
    return {"total": total, "agree": agree}, disagreements


def report(label: str, counts: dict, seconds: float, decisions: int) -> None:
    total, agree = counts["total"], counts["agree"]

    def pct(scope):
        return f"{100 * agree[scope] / total[scope]:5.1f}% ({agree[scope]}/{total[scope]})" if total[scope] else "n/a"

    both_clear = sum(agree[("clear", k)] for k in ("double", "take")), sum(total[("clear", k)] for k in ("double", "take"))
    print(f"{label}: clear decisions {100 * both_clear[0] / both_clear[1]:.1f}% ({both_clear[0]}/{both_clear[1]})"
          f"  double {pct(('clear', 'double'))}  take {pct(('clear', 'take'))}"
          f"  | all: double {pct(('all', 'double'))}  take {pct(('all', 'take'))}"
          f"  | {1000 * seconds / decisions:.1f} ms/decision")
    contexts = sorted({k[0] for k in total if len(k) == 2 and k[0] not in ("all", "clear")})
    for name in contexts:
        print(f"    {name:<12} clear double {pct(('clear', name, 'double'))}  take {pct(('clear', name, 'take'))}"
              f"  all double {pct((name, 'double'))}  take {pct((name, 'take'))}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--player", default="nn")
    parser.add_argument("--plies", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--positions", type=int, default=0, help="only the first N positions")
    parser.add_argument("--show", type=int, default=0, help="list the first K clear disagreements of each run")
    parser.add_argument("--vectors", type=Path, default=VECTORS)
    args = parser.parse_args()
    positions = json.loads(args.vectors.read_text())["positions"]
    if args.positions:
        positions = positions[: args.positions]
    decisions = sum(len(p["contexts"]) for p in positions)
    print(f"{len(positions)} positions x contexts = {decisions} decisions; clear = gnubg margin > {CLEAR}")

    start = time.perf_counter()
    counts, wrong = measure(formula_decision, positions)
    report("formulas (gnubg probabilities, 0 ply)", counts, time.perf_counter() - start, decisions)
    for row in wrong[: args.show]:
        print("   ", row)
    for plies in args.plies:
        player = load_player(f"{args.player}:{plies}")
        start = time.perf_counter()
        counts, wrong = measure(lambda state, _, player=player: player.cube_decision(state.position.array(),
                                                                                    CubeContext.from_state(state)),
                                positions)
        report(player.name if plies else f"{args.player}:0", counts, time.perf_counter() - start, decisions)
        for row in wrong[: args.show]:
            print("   ", row)


if __name__ == "__main__":
    main()

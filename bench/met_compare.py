"""gammon's constructed match equity table next to Kazaross-XG2.

Usage: python bench/met_compare.py [--out PATH] [--gammon-rate G] [--backgammon-rate B]
                                   [--efficiency X] [--crawford-gammon-rate G] [--free-drop F]

Builds :func:`gammon.cube.construct.construct_met` (defaults unless overridden), prints the
max and mean absolute MWC differences against Kazaross-XG2 (pre-Crawford up to 25- and
11-away, and the post-Crawford row), and saves a heat map of ours minus Kazaross-XG2 over the
25x25 pre-Crawford table (``docs/met-comparison.png`` by default). Needs matplotlib
(the ``train`` extra).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from gammon.cube.construct import FREE_DROP_2AWAY, compare, construct_met
from gammon.cube.janowski import CONTACT_EFFICIENCY
from gammon.cube.met import MAX_AWAY, MatchEquityTable

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "docs" / "met-comparison.png"


def heat_map(ours: MatchEquityTable, reference: MatchEquityTable, out: Path, title: str) -> None:
    """Ours minus the reference in percentage points, diverging colours centred at 0."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import TwoSlopeNorm

    diff = 100.0 * (ours.pre - reference.pre)
    limit = max(float(np.abs(diff).max()), 0.05)
    figure, axes = plt.subplots(figsize=(8.4, 7.2), layout="constrained")
    ticks = np.arange(MAX_AWAY)
    image = axes.imshow(diff, cmap="RdBu_r", norm=TwoSlopeNorm(0.0, -limit, limit), origin="upper",
                        extent=(0.5, MAX_AWAY + 0.5, MAX_AWAY + 0.5, 0.5))
    axes.set_xticks(ticks[::2] + 1)
    axes.set_yticks(ticks[::2] + 1)
    axes.set_xlabel("points needed (opponent)")
    axes.set_ylabel("points needed (player)")
    axes.set_title(title, fontsize=10)
    for i in range(min(MAX_AWAY, 11)):  # label the cells that matter most in practice
        for j in range(min(MAX_AWAY, 11)):
            value = diff[i, j]
            if abs(value) >= 0.05:
                axes.text(j + 1, i + 1, f"{value:.1f}", ha="center", va="center", fontsize=5.5,
                          color="white" if abs(value) > 0.6 * limit else "black")
    bar = figure.colorbar(image, ax=axes, shrink=0.85)
    bar.set_label("ours - Kazaross-XG2 (percentage points of MWC)")
    out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out, dpi=130)
    plt.close(figure)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--gammon-rate", type=float, default=0.27)
    parser.add_argument("--backgammon-rate", type=float, default=0.01)
    parser.add_argument("--efficiency", type=float, default=CONTACT_EFFICIENCY)
    parser.add_argument("--crawford-gammon-rate", type=float, default=0.29)
    parser.add_argument("--free-drop", type=float, default=FREE_DROP_2AWAY)
    args = parser.parse_args()

    start = time.perf_counter()
    ours = construct_met(gammon_rate=args.gammon_rate, backgammon_rate=args.backgammon_rate,
                         efficiency=args.efficiency, free_drop=args.free_drop,
                         crawford_gammon_rate=args.crawford_gammon_rate)
    seconds = time.perf_counter() - start
    reference = MatchEquityTable.default()
    figures = compare(ours, reference)

    print(f"constructed in {seconds:.2f} s (including loading or compiling the numba kernel)")
    print(ours.notice)
    print(f"{'vs Kazaross-XG2 (MWC, %)':28} {'max |diff|':>10} {'mean |diff|':>11}")
    for label, key in (("pre-Crawford, to 25-away", "pre"), ("pre-Crawford, to 11-away", "pre11"),
                       ("post-Crawford row", "post")):
        print(f"{label:28} {100 * figures[key + '_max']:10.2f} {100 * figures[key + '_mean']:11.3f}")
    me, opponent = int(figures["worst_me"]), int(figures["worst_opponent"])
    print(f"largest difference: {me}-away vs {opponent}-away, ours {ours.pre[me - 1, opponent - 1]:.4f}, "
          f"Kazaross-XG2 {reference.pre[me - 1, opponent - 1]:.4f}")
    print(f"1-away vs 2-away (Crawford): ours {ours.mwc(1, 2):.4f}, Kazaross-XG2 {reference.mwc(1, 2):.4f}")

    title = (f"Constructed MET minus Kazaross-XG2, pre-Crawford (row/col 1 = Crawford game)\n"
             f"gammons {args.gammon_rate:g}, backgammons {args.backgammon_rate:g}, efficiency {args.efficiency:g}, "
             f"Crawford gammons {args.crawford_gammon_rate:g}, free drop {args.free_drop:g}")
    heat_map(ours, reference, args.out, title)
    print(f"heat map: {args.out}")


if __name__ == "__main__":
    main()

"""Fit the logistic curve that turns a heuristic score into a win probability.

Search averages evaluations over rolls, so a score must mean the same thing whichever
position it comes from. Self-play records the score of every chosen play and who went on
to win; a logistic regression per weight set (race, contact) gives ``(a, b)`` with
``logit P(win)`` linear in the evaluator's features (see :mod:`gammon.bots.pubeval`).

Usage: ``python -m gammon.train.calibrate pubeval|simple [--games N] [--seed S]``
"""

from __future__ import annotations

import argparse

import numpy as np

from . import selfplay


def fit_logistic(features: np.ndarray, y: np.ndarray, iterations: int = 50) -> np.ndarray:
    """Maximum-likelihood weights of ``P(y=1) = sigmoid(features @ w + bias)`` by Newton's method.

    Returns the weights followed by the bias.
    """
    design = np.concatenate([features, np.ones((features.shape[0], 1))], axis=1)
    w = np.zeros(design.shape[1])
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(design @ w)))
        gradient = design.T @ (y - p)
        hessian = (design * (p * (1 - p))[:, None]).T @ design + 1e-9 * np.eye(design.shape[1])
        step = np.linalg.solve(hessian, gradient)
        w += step
        if np.abs(step).max() < 1e-10:
            break
    return w


def collect(kind: int, block: np.ndarray, games: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Sample rows of every chosen play in ``games`` self-play games (see
    :func:`gammon.train.selfplay.play_game`) and whether its mover went on to win."""
    kinds = np.array([kind, kind])
    weights = np.stack([block, block])
    rows, wins = [], []
    samples = np.empty((selfplay.MAX_TURNS, selfplay.SAMPLE_WIDTH))
    for game in range(games):
        points, n = selfplay.play_game(kinds, weights, seed, game, samples)
        if points == 0:
            continue
        winner = 0 if points > 0 else 1
        rows.append(samples[:n].copy())
        wins.append((samples[:n, 2] == winner).astype(np.float64))
    return np.concatenate(rows), np.concatenate(wins)


def calibrate(kind: int, block: np.ndarray, games: int = 20000, seed: int = 1, standalone: bool = False) -> np.ndarray:
    """Rows race and contact of (feature weights..., bias) for one evaluator's logistic curve.

    pubeval has two curves. For the plays of a roll (``standalone`` False): the play's
    score, the opponent's standing before the play and the lead after the roll, weights
    chosen by the position before the play. For a position on its own (True): its score
    and the opponent's, each by its own class, and its pip lead. The heuristic's score
    already weighs both sides and the lead, so it is fitted alone (the two curves are one),
    which keeps its weight positive and the curve monotonic.
    """
    rows, wins = collect(kind, block, games, seed)
    if standalone:
        features, races = rows[:, [6, 7, 8]], rows[:, 5] > 0.5
    else:
        features, races = rows[:, [0, 4, 3]], rows[:, 1] > 0.5
    if kind == selfplay.SIMPLE:
        features = features[:, :1]
    return np.stack([fit_logistic(features[mask], wins[mask]) for mask in (races, ~races)])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Fit score-to-probability curves from self-play.")
    parser.add_argument("evaluator", choices=["pubeval", "simple"])
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.evaluator == "pubeval":
        kind, block = selfplay.PUBEVAL, selfplay.pubeval_block()
    else:
        from ..bots.simple import SimpleWeights

        kind, block = selfplay.SIMPLE, selfplay.simple_block(SimpleWeights.load().array())
    for standalone in (False, True):
        table = calibrate(kind, block, args.games, args.seed, standalone)
        print("positions on their own:" if standalone else "plays of a roll:")
        for name, row in zip(("race", "contact"), table):
            print(f"  {name}: [{', '.join(f'{v:.6f}' for v in row)}]")


if __name__ == "__main__":
    main()

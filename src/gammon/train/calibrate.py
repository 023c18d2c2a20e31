"""Fit the logistic curve that turns a heuristic score into a win probability.

Search averages evaluations over rolls, so a score must mean the same thing whichever
position it comes from. Self-play records the score of every chosen play and who went on
to win; a logistic regression per weight set (race, contact) gives ``(a, b)`` with
``logit P(win) = a * score + c * lead + b``, ``lead`` being the mover's pip lead after
its roll.

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


def collect(kind: int, block: np.ndarray, games: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(features (score, lead), race flags, mover won) of every chosen play in ``games`` self-play games."""
    kinds = np.array([kind, kind])
    weights = np.stack([block, block])
    scores, races, wins = [], [], []
    samples = np.empty((selfplay.MAX_TURNS, 4))
    for game in range(games):
        points, n = selfplay.play_game(kinds, weights, seed, game, samples)
        if points == 0:
            continue
        rows = samples[:n]
        winner = 0 if points > 0 else 1
        scores.append(rows[:, [0, 3]].copy())
        races.append(rows[:, 1] > 0.5)
        wins.append((rows[:, 2] == winner).astype(np.float64))
    return np.concatenate(scores), np.concatenate(races), np.concatenate(wins)


def calibrate(kind: int, block: np.ndarray, games: int = 20000, seed: int = 1) -> np.ndarray:
    """Rows race and contact of (a, c, b): ``logit P(win) = a * score + c * lead + b``."""
    features, races, wins = collect(kind, block, games, seed)
    if kind == selfplay.SIMPLE:
        # The heuristic's score already counts the pip lead: fit the score alone (c = 0),
        # which keeps a > 0 so the curve cannot reorder plays.
        features = features[:, :1]
    rows = []
    for mask in (races, ~races):
        w = fit_logistic(features[mask], wins[mask])
        rows.append(w if w.size == 3 else np.array([w[0], 0.0, w[1]]))
    return np.stack(rows)


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
    table = calibrate(kind, block, args.games, args.seed)
    for name, (a, c, b) in zip(("race", "contact"), table):
        print(f"{name}: a={a:.6f} c={c:.6f} b={b:.6f}")


if __name__ == "__main__":
    main()

"""The article's trainer for the heuristic evaluator: hill climbing on self-play.

Each iteration nudges one weight of the incumbent at random; the candidate plays ``games``
duplicate-dice games against the incumbent at 0 ply and replaces it when it wins more
than 51 % of them. Iteration ``i`` draws its nudge and its dice from ``(seed, i)``, so a
run is reproducible and can stop and resume anywhere: the state file is rewritten after
every iteration. At the end the score is calibrated into a win probability
(:mod:`gammon.train.calibrate`) and the weights are written as JSON, the format of
``gammon/data/simple.json``.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from ..bots.simple import UNTRAINED_WEIGHTS, WEIGHT_NAMES, SimpleWeights
from . import calibrate, selfplay

#: Standard deviation of a nudge, and the range each weight is kept in.
STEPS = (0.3, 0.25, 0.08, 2.0, 0.03, 0.2, 0.5)
BOUNDS = ((0.0, 20.0), (0.5, 4.0), (0.0, 3.0), (0.0, 24.0), (0.0, 3.0), (-0.9, 5.0), (-10.0, 20.0))
ACCEPT = 0.51


@dataclass
class TrainingState:
    """Everything a run needs to resume: its settings, the incumbent and its history."""

    seed: int
    games: int
    iteration: int = 0
    weights: list[float] = field(default_factory=lambda: list(UNTRAINED_WEIGHTS))
    accepted: list[dict[str, object]] = field(default_factory=list)

    def save(self, path: Path) -> None:
        temporary = path.with_suffix(path.suffix + ".tmp")
        temporary.write_text(json.dumps(asdict(self), indent=1))
        os.replace(temporary, path)  # never leave a half-written state behind

    @classmethod
    def load(cls, path: Path) -> TrainingState:
        """Read a state file; ValueError says when ``path`` is not one."""
        try:
            return cls(**json.loads(path.read_text()))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, TypeError) as error:
            reason = getattr(error, "strerror", None) or str(error)
            raise ValueError(
                f"{path}: not a training state of gammon train simple ({reason}): choose another --state, "
                "or remove it to start afresh"
            ) from None


def candidate(weights: np.ndarray, seed: int, iteration: int) -> tuple[np.ndarray, int, int]:
    """Iteration ``iteration``'s nudged weights, the weight it changed and its dice seed."""
    rng = np.random.default_rng([seed, iteration])
    index = int(rng.integers(len(weights)))
    out = weights.copy()
    low, high = BOUNDS[index]
    value = out[index] + rng.normal(0.0, STEPS[index])
    if value < low:  # reflect off the bound, so a weight at 0 can still grow
        value = 2 * low - value
    out[index] = float(np.clip(value, low, high))
    dice_seed = int(rng.integers(0, 2**62))
    return out, index, dice_seed


def win_rate(challenger: np.ndarray, incumbent: np.ndarray, games: int, dice_seed: int) -> float:
    """Share of ``games`` duplicate-dice games the challenger wins against the incumbent."""
    kinds = np.array([selfplay.SIMPLE, selfplay.SIMPLE])
    blocks = np.stack([selfplay.simple_block(challenger), selfplay.simple_block(incumbent)])
    points = selfplay.duplicate_match(kinds, blocks, dice_seed, 0, games // 2)
    return float((points > 0).mean())


def train(
    state_path: str | Path,
    iterations: int = 200,
    games: int = 3000,
    seed: int = 0,
    progress: bool = True,
    calibration_games: int = 20000,
) -> tuple[TrainingState, SimpleWeights]:
    """Run (or resume) hill climbing up to ``iterations``; returns the state and calibrated weights."""
    if games < 2 or games % 2:
        raise ValueError(f"games must be an even number >= 2, got {games}")
    path = Path(state_path)
    if path.exists():
        state = TrainingState.load(path)
        if (state.seed, state.games) != (seed, games):
            raise ValueError(
                f"{path} holds a run with seed {state.seed} and {state.games} games, not {seed} and {games}: "
                "resume with those settings or choose another --state"
            )
    else:
        state = TrainingState(seed, games)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=iterations, initial=min(state.iteration, iterations), unit="it", desc="train simple")
    try:
        while state.iteration < iterations:
            incumbent = np.array(state.weights)
            challenger, index, dice_seed = candidate(incumbent, seed, state.iteration)
            rate = win_rate(challenger, incumbent, games, dice_seed)
            if rate > ACCEPT:
                state.weights = challenger.tolist()
                state.accepted.append({"iteration": state.iteration, "weight": WEIGHT_NAMES[index], "win_rate": rate})
            state.iteration += 1
            state.save(path)
            if bar is not None:
                bar.update(1)
                bar.set_postfix(accepted=len(state.accepted), last=f"{rate:.3f}")
    finally:
        if bar is not None:
            bar.close()
    weights = np.array(state.weights)
    table = calibrate.calibrate(selfplay.SIMPLE, selfplay.simple_block(weights), calibration_games, seed + 1)
    info = {
        "trainer": "gammon train simple",
        "seed": seed,
        "games_per_candidate": games,
        "iterations": state.iteration,
        "accepted": len(state.accepted),
        "calibration_games": calibration_games,
    }
    result = SimpleWeights(tuple(state.weights), (tuple(map(float, table[0])), tuple(map(float, table[1]))), info)
    return state, result

"""Supervised refinement: positions from self-play, targets from rollouts by the current net.

TD learns each position's value from the net's own estimate one play later; a rollout
plays the position out to the end many times instead, so its average is a less biased
target. The positions are the after-play boards of self-play games (each kept with
probability ``keep``); each is rolled out ``trials`` times at 0 ply by the net itself
(trial ``t`` of position ``i`` takes dice stream ``(seed, i * trials + t)``, the first
roll being the opponent's, who is on roll), and the net is then fitted to the averages by
a few epochs of stochastic gradient descent in a seeded order. The data set is written
to disk every minute, so a long job can stop and resume.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

from .. import movegen
from ..bots.evaluator import finished_probabilities, impossible_outcomes
from ..dice.streams import next_roll, opening_roll, stream_state
from ..nn.features import encode
from ..nn.network import OUTPUTS, TRAINED, WEIGHTS, Network, forward, net_of
from ..workers import Workers, ray_imap
from .selfplay import MAX_TURNS, OPENING
from .td import _choose, _step, flip_into, scratch
from ..compiled import kernel

#: Positions per chunk of the data set (one task of a worker).
CHUNK = 200
#: Seconds between saves of the growing data set (each save rewrites the whole file).
SAVE_EVERY = 60.0


@kernel(f"({WEIGHTS}, int64, int64, int64, float64)")
def sample_positions(w1, b1, w2, b2, seed, first_game, count, keep):
    """``count`` after-play boards from self-play games starting at ``first_game``; each kept with ``keep``."""
    children, moves, counts, hashes = movegen.play_buffers()
    x, hidden, raw, probs = scratch(w1)
    out = np.empty((count, 26), np.int8)
    found = 0
    game = first_game
    while found < count:
        state = stream_state(seed, game)
        choice = stream_state(seed + 1, game)  # a second stream decides which positions to keep
        board = OPENING.copy()
        d1, d2 = opening_roll(state)
        for _ in range(MAX_TURNS):
            n = movegen.generate_into(board, d1, d2, children, moves, counts, hashes, False)
            child = children[_choose(w1, b1, w2, b2, children, n, x, hidden, raw, probs)]
            if finished_probabilities(child, probs):
                break
            a1, a2 = next_roll(choice)
            c1, c2 = next_roll(choice)
            u = (((a1 - 1) * 6 + (a2 - 1)) * 36 + (c1 - 1) * 6 + (c2 - 1)) / 1296.0
            if u < keep and found < count:
                out[found] = child
                found += 1
            board = movegen.flip_board(child)
            d1, d2 = next_roll(state)
        game += 1
    return out


def self_play_where(network: Network, wanted: Callable[[np.ndarray], bool], count: int, seed: int,
                    first_game: int, keep: float = 1.0, stride: int = 100, limit: int | None = None) -> np.ndarray:
    """``count`` positions (the side on roll's boards, before the roll) for which ``wanted`` holds,
    from the net's self-play from game ``first_game`` on, in batches of 5,000 kept positions (each
    kept with ``keep``), each batch ``stride`` games on; fewer if ``limit`` batches hold too few."""
    w = network.arrays()
    found: list[np.ndarray] = []
    total = 0
    game = first_game
    batches = 0
    while total < count and (limit is None or batches < limit):
        after = sample_positions(*w, seed, game, 5000, keep)
        game += stride
        batches += 1
        boards = np.array([movegen.flip_board(b) for b in after])
        kept = boards[np.array([bool(wanted(b)) for b in boards])]
        found.append(kept)
        total += len(kept)
    if not found:
        return np.empty((0, 26), np.int8)
    return np.concatenate(found)[:count].astype(np.int8)


@kernel(f"({WEIGHTS}, readonly(int8[:, ::1]), int64, int64, int64, int64)")
def rollout(w1, b1, w2, b2, boards, seed, first, trials, truncate):
    """Mean outcome ``(N, 5)`` of ``trials`` games from each board, for the side that just moved.

    Trial ``t`` opens with ordered roll ``t % 36`` (with a multiple of 36 trials every first
    roll comes equally often); later rolls come from the trial's stream. With ``truncate``
    > 0 a trial stops after that many plays and scores the last board by the net, so 36
    trials truncated after one play are exactly the net's 1-ply value of the board.
    """
    children, moves, counts, hashes = movegen.play_buffers()
    x, hidden, raw, probs = scratch(w1)
    result = np.empty(OUTPUTS)
    seen = np.empty(OUTPUTS)
    out = np.zeros((boards.shape[0], OUTPUTS))
    for i in range(boards.shape[0]):
        for t in range(trials):
            state = stream_state(seed, (first + i) * trials + t)
            board = movegen.flip_board(boards[i])
            ours = False  # the opponent is on roll
            d1 = t % 36 // 6 + 1
            d2 = t % 6 + 1
            for turn in range(MAX_TURNS):
                if turn > 0:
                    d1, d2 = next_roll(state)
                n = movegen.generate_into(board, d1, d2, children, moves, counts, hashes, False)
                child = children[_choose(w1, b1, w2, b2, children, n, x, hidden, raw, probs)]
                done = finished_probabilities(child, result)
                if not done and (turn + 1 == truncate or turn + 1 == MAX_TURNS):
                    result[:] = probs
                    impossible_outcomes(child.reshape(1, 26), result.reshape(1, OUTPUTS))  # as evaluators do
                    done = True
                if done:
                    if ours:
                        seen[:] = result
                    else:
                        flip_into(result, seen)
                    for o in range(OUTPUTS):
                        out[i, o] += seen[o] / trials
                    break
                board = movegen.flip_board(child)
                ours = not ours
    return out


@kernel(f"({TRAINED}, readonly(int8[:, ::1]), readonly(float64[:, ::1]), readonly(int64[::1]), float64, boolean)")
def fit(w1, b1, w2, b2, boards, targets, order, alpha, entropy):
    """One epoch of SGD over ``boards`` in ``order`` (``entropy``: on cross-entropy, else squared
    error); returns the mean squared error before each step."""
    x = np.zeros(w1.shape[1])
    hidden = np.empty(w1.shape[2])
    raw = np.empty(OUTPUTS)
    delta = np.empty(w1.shape[2])
    total = 0.0
    for i in order:
        encode(boards[i], x)
        _step(w1, b1, w2, b2, net_of(boards[i]), x, targets[i], alpha, hidden, raw, delta, entropy)
        for o in range(OUTPUTS):
            total += (targets[i, o] - raw[o]) ** 2
    return total / max(1, order.shape[0])


@kernel(f"({WEIGHTS}, readonly(int8[:, ::1]), readonly(float64[:, ::1]), readonly(int64[::1]))")
def held_error(w1, b1, w2, b2, boards, targets, rows):
    """Mean squared error of the raw outputs on ``rows`` (positions never trained on)."""
    x = np.zeros(w1.shape[1])
    hidden = np.empty(w1.shape[2])
    raw = np.empty(OUTPUTS)
    total = 0.0
    for i in rows:
        encode(boards[i], x)
        forward(w1, b1, w2, b2, net_of(boards[i]), x, hidden, raw)
        for o in range(OUTPUTS):
            total += (targets[i, o] - raw[o]) ** 2
    return total / max(1, rows.shape[0])


def _chunk_task(arrays: tuple, task: tuple) -> tuple[int, np.ndarray, np.ndarray]:
    """One chunk of the data set: its positions and their rollouts (a worker's or a Ray task's)."""
    seed, index, trials, truncate, keep = task
    boards = sample_positions(*arrays, seed, index * 1_000_000, CHUNK, keep)
    targets = rollout(*arrays, boards, seed + 2, index * CHUNK, trials, truncate)
    return index, boards, targets


def build_dataset(network: Network, path: Path, positions: int, trials: int, seed: int, keep: float = 0.1,
                  workers: int = 2, progress: bool = True, truncate: int = 0,
                  ray: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Rolled-out positions, resumed from ``path`` (an ``.npz`` rewritten once a minute).

    The chunks run on ``workers`` processes, or as Ray tasks on the cluster ``ray`` names
    (``auto``: the running one): the same data set either way, chunk by chunk in order.
    """
    boards = np.empty((0, 26), np.int8)
    targets = np.empty((0, OUTPUTS))
    if path.exists():
        with np.load(path) as data:
            boards, targets = data["boards"], data["targets"]
    chunks = math.ceil(positions / CHUNK)
    todo = list(range(boards.shape[0] // CHUNK, chunks))
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=chunks * CHUNK, initial=boards.shape[0], unit="pos", desc="rollouts")
    tasks = [(seed, i, trials, truncate, keep) for i in todo]
    new_boards: list[np.ndarray] = []
    new_targets: list[np.ndarray] = []
    try:
        with Workers(1 if ray else workers) as pool:
            if ray:
                results = ray_imap(ray, _chunk_task, (network.arrays(),), tasks)
            else:
                results = pool.imap(partial(_chunk_task, network.arrays()), tasks)
            saved = time.monotonic()
            for number, (_, b, t) in enumerate(results, 1):  # in order
                new_boards.append(b)
                new_targets.append(t)
                if bar is not None:
                    bar.update(b.shape[0])
                if number == len(tasks) or time.monotonic() - saved > SAVE_EVERY:
                    boards = np.concatenate([boards, *new_boards])
                    targets = np.concatenate([targets, *new_targets])
                    new_boards, new_targets = [], []
                    temporary = path.with_name(path.name + ".tmp.npz")
                    np.savez(temporary, boards=boards, targets=targets)
                    temporary.replace(path)
                    saved = time.monotonic()
    finally:
        if bar is not None:
            bar.close()
    return boards[:positions], targets[:positions]


def train(weights: str | Path, output: str | Path, positions: int, trials: int, epochs: int, alpha: float,
          seed: int = 1, data: str | Path | None = None, workers: int = 2, progress: bool = True,
          truncate: int = 0, hidden: int = 0, alpha_final: float | None = None, holdout: float = 0.05,
          ray: str | None = None) -> Network:
    """Refine the net in ``weights`` on rolled-out self-play positions; writes ``output``.

    The rollouts are made by the net in ``weights`` (``truncate`` > 0 stops each trial after
    that many plays and scores the board by the net). ``hidden`` > its width widens it first.
    The step size falls geometrically from ``alpha`` to ``alpha_final`` over the epochs; a
    ``holdout`` share of the positions is never trained on and measures the error.
    """
    network = Network.load(weights)
    data_path = Path(data) if data else Path(output).with_suffix(".rollouts.npz")
    boards, targets = build_dataset(network, data_path, positions, trials, seed, workers=workers, progress=progress,
                                    truncate=truncate, ray=ray)
    if hidden > network.hidden:
        network = network.widen(hidden, seed)
    w1, b1, w2, b2 = (a.astype(np.float64) for a in network.arrays())
    rng = np.random.default_rng(seed)
    shuffled = rng.permutation(boards.shape[0])
    held = shuffled[: int(holdout * boards.shape[0])]
    used = shuffled[held.shape[0]:]
    final = alpha if alpha_final is None else alpha_final
    errors, held_errors = [], [float(held_error(w1, b1, w2, b2, boards, targets, held))]
    for epoch in range(epochs):
        step = alpha * (final / alpha) ** (epoch / max(1, epochs - 1))
        errors.append(float(fit(w1, b1, w2, b2, boards, targets, rng.permutation(used), step, False)))
        held_errors.append(float(held_error(w1, b1, w2, b2, boards, targets, held)))
        if progress:
            print(f"epoch {epoch + 1}/{epochs}: alpha {step:.4g}, training mse {errors[-1]:.6f}, "
                  f"held-out mse {held_errors[-1]:.6f}", flush=True)
    refined = Network(w1, b1, w2, b2, dict(network.meta))
    refined.meta["refined"] = {
        "trainer": "gammon train rollouts",
        "from": str(weights),
        "positions": int(boards.shape[0]),
        "trials": trials,
        "truncate": truncate,
        "hidden": refined.hidden,
        "epochs": epochs,
        "alpha": alpha,
        "alpha_final": final,
        "seed": seed,
        "mse_by_epoch": errors,
        "held_out_mse_by_epoch": held_errors,
    }
    refined.save(output)
    return refined

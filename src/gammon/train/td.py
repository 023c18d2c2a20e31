"""TD(lambda) self-play training of the neural nets, from random weights, on every core.

A game is played inside numba by the net itself at 0 ply (each play the argmax of the
cubeless equity of the roll's children, no exploration: the dice explore enough). The
after-play positions are kept with the values the net gave them; at the end the
lambda-returns are computed backwards from the exact result (the offline form of TD(lambda)),
and each position takes one gradient step towards its return. Storing the game instead
of carrying eligibility traces makes an update cost a few hundred multiplications per
non-zero input rather than a pass over every weight per move.

Both cores: each round, ``workers`` processes play ``round_games`` games each from the
same weights, and the new weights are the mean of theirs. (Summing their changes instead
looks like twice the progress but overshoots: every worker corrects the overall level of
the values alike, so the sum swings it back and forth round after round.) Game ``g`` of
a run uses dice stream ``(seed, g)``, so a run (and a resumed run) depends only on its
settings.

Every ``eval_every`` games the net plays ``eval_games`` duplicate-dice games against
pubeval at 0 ply, compiled (the same choices as ``gammon duel nn pubeval``); the log, a
learning-curve PNG, the latest state (for resuming) and the best weights so far are
written to the output directory.
"""

from __future__ import annotations

import json
import math
import signal
import sys
import threading
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

from .. import movegen
from ..bots.evaluator import CONTACT, OVER, board_class, finished_probabilities
from ..bots.pubeval import pubeval_score
from ..dice import ci95
from ..dice.streams import next_roll, opening_roll, stream_state
from ..nn.features import encode
from ..nn.network import OUTPUTS, TRAINED, WEIGHTS, Network, consistent, forward, net_of
from ..bots.chooser import TABLES, on_roll
from ..workers import Workers
from .selfplay import MAX_TURNS, OPENING, pubeval_block
from .settings import Settings
from ..compiled import kernel

#: Longer training games are abandoned without an update (only nets near random play them).
MAX_TRAIN_TURNS = 1500


@kernel(inline="always")
def _equity(p):
    return 2.0 * p[0] - 1.0 + p[1] + p[2] - p[3] - p[4]


@kernel("(readonly(float64[:, :, ::1]),)")
def scratch(w1):
    """The net's working arrays for :func:`_choose` (inputs, hidden units, raw outputs, probabilities)."""
    return np.zeros(w1.shape[1]), np.empty(w1.shape[2]), np.empty(OUTPUTS), np.empty(OUTPUTS)


@kernel(f"({WEIGHTS}, int8[:, ::1], int64, float64[::1], float64[::1], float64[::1], float64[::1])")
def _choose(w1, b1, w2, b2, children, n, x, hidden, raw, probs):
    """Index of the child with the best equity at 0 ply; its probabilities are left in ``probs``."""
    best = 0
    best_equity = -1e300
    p = np.empty(OUTPUTS)
    for i in range(n):
        child = children[i]
        if not finished_probabilities(child, p):
            encode(child, x)
            forward(w1, b1, w2, b2, net_of(child), x, hidden, raw)
            consistent(raw, p)
        e = _equity(p)
        if e > best_equity:
            best_equity = e
            best = i
            probs[:] = p
    return best


@kernel("(float64[::1], float64[::1])")
def flip_into(p, out):
    """``p`` seen by the other side, into ``out``: the compiled twin of
    :func:`gammon.evaluation.flip_probabilities` for one row, inside compiled loops."""
    out[0] = 1.0 - p[0]
    out[1] = p[3]
    out[2] = p[4]
    out[3] = p[1]
    out[4] = p[2]


@kernel(f"({TRAINED}, int64, readonly(float64[::1]), readonly(float64[::1]), float64, float64[::1], float64[::1], float64[::1], "
        "boolean)")
def _step(w1, b1, w2, b2, k, x, target, alpha, hidden, raw, delta_hidden, entropy):
    """One gradient step of net ``k`` towards ``target`` (only non-zero inputs move): on squared
    error, or with ``entropy`` on cross-entropy, whose gradient does not vanish where a sigmoid
    output is confidently wrong (0.98 for a target of 0.3 moves as fast as 0.6 does)."""
    forward(w1, b1, w2, b2, k, x, hidden, raw)
    h_count = hidden.shape[0]
    for j in range(h_count):
        delta_hidden[j] = 0.0
    for o in range(OUTPUTS):
        d = (target[o] - raw[o]) if entropy else (target[o] - raw[o]) * raw[o] * (1.0 - raw[o])
        for j in range(h_count):
            delta_hidden[j] += d * w2[k, j, o]
            w2[k, j, o] += alpha * d * hidden[j]
        b2[k, o] += alpha * d
    for j in range(h_count):
        delta_hidden[j] *= hidden[j] * (1.0 - hidden[j])
        b1[k, j] += alpha * delta_hidden[j]
    for i in range(w1.shape[1]):
        v = x[i]
        if v != 0.0:
            a = alpha * v
            for j in range(h_count):
                w1[k, i, j] += a * delta_hidden[j]


@kernel(f"({TRAINED}, int64, int64, float64, float64)")
def train_game(w1, b1, w2, b2, seed, game, alpha, lam):
    """Play game ``game`` of run ``seed`` by self-play and learn from it in place; returns its turns."""
    children, moves, counts, hashes = movegen.play_buffers()
    h_count = w1.shape[2]
    x = np.zeros(w1.shape[1])
    hidden = np.empty(h_count)
    raw = np.empty(OUTPUTS)
    delta_hidden = np.empty(h_count)
    positions = np.empty((MAX_TRAIN_TURNS, 26), np.int8)
    values = np.empty((MAX_TRAIN_TURNS, OUTPUTS))
    state = stream_state(seed, game)
    board = OPENING.copy()
    d1, d2 = opening_roll(state)
    turns = 0
    final = np.zeros(OUTPUTS)
    while True:
        if turns >= MAX_TRAIN_TURNS:
            return turns
        n = movegen.generate_into(board, d1, d2, children, moves, counts, hashes, False)
        best = _choose(w1, b1, w2, b2, children, n, x, hidden, raw, values[turns])
        child = children[best]
        positions[turns] = child
        turns += 1
        if finished_probabilities(child, final):
            break
        board = movegen.flip_board(child)
        d1, d2 = next_roll(state)
    # lambda-returns backwards: position t's target is seen from the side that made play t,
    # the next position's value from the other side, so every step flips.
    target = np.empty(OUTPUTS)
    flipped = np.empty(OUTPUTS)
    target[:] = final
    for t in range(turns - 2, -1, -1):
        flip_into(target, flipped)
        flip_into(values[t + 1], target)
        for o in range(OUTPUTS):
            target[o] = (1.0 - lam) * target[o] + lam * flipped[o]
        values[t + 1] = target  # reuse the row: the return of position t
    for t in range(turns - 1):
        encode(positions[t], x)
        _step(w1, b1, w2, b2, net_of(positions[t]), x, values[t + 1], alpha, hidden, raw, delta_hidden, False)
    return turns


@kernel(f"({TRAINED}, {TABLES}, readonly(int8[::1]), int64, int64, float64, float64)")
def train_from(w1, b1, w2, b2, tables, board, seed, game, alpha, lam):
    """Self-play from ``board`` (the side on roll's, before its roll; dice stream ``(seed, game)``)
    and learn from it in place, as :func:`train_game` does, with one difference: the game ends
    as soon as the bear-off tables (``tables``, as :func:`gammon.bots.chooser.on_roll` reads
    them) cover a position, whose exact value is then the final target. Returns the turns played.
    """
    children, moves, counts, hashes = movegen.play_buffers()
    h_count = w1.shape[2]
    x = np.zeros(w1.shape[1])
    hidden = np.empty(h_count)
    raw = np.empty(OUTPUTS)
    delta_hidden = np.empty(h_count)
    positions = np.empty((MAX_TRAIN_TURNS, 26), np.int8)
    values = np.empty((MAX_TRAIN_TURNS, OUTPUTS))
    state = stream_state(seed, game)
    exact = np.empty(OUTPUTS)
    flipped_board = np.empty(26, np.int8)
    board = board.copy()
    turns = 0
    final = np.zeros(OUTPUTS)
    while True:
        if turns >= MAX_TRAIN_TURNS:
            return turns
        d1, d2 = next_roll(state)
        n = movegen.generate_into(board, d1, d2, children, moves, counts, hashes, False)
        best = _choose(w1, b1, w2, b2, children, n, x, hidden, raw, values[turns])
        child = children[best]
        positions[turns] = child
        turns += 1
        if finished_probabilities(child, final):
            break
        movegen.flip_into(child, flipped_board)
        if on_roll(tables, flipped_board, exact):
            flip_into(exact, final)  # the tables answer for the side on roll: the mover's is the flip
            break
        board = flipped_board.copy()
    target = np.empty(OUTPUTS)
    flipped = np.empty(OUTPUTS)
    target[:] = final
    for t in range(turns - 2, -1, -1):
        flip_into(target, flipped)
        flip_into(values[t + 1], target)
        for o in range(OUTPUTS):
            target[o] = (1.0 - lam) * target[o] + lam * flipped[o]
        values[t + 1] = target
    for t in range(turns - 1):
        encode(positions[t], x)
        _step(w1, b1, w2, b2, net_of(positions[t]), x, values[t + 1], alpha, hidden, raw, delta_hidden, False)
    if turns >= 1 and not finished_probabilities(positions[turns - 1], final):
        # The last position's target is exact (the tables'): it trains as well.
        encode(positions[turns - 1], x)
        _step(w1, b1, w2, b2, net_of(positions[turns - 1]), x, final, alpha, hidden, raw, delta_hidden, False)
    return turns


@kernel(f"({TRAINED}, int64, int64, int64, float64, float64)")
def train_games(w1, b1, w2, b2, seed, first_game, games, alpha, lam):
    """Games ``first_game .. first_game + games - 1``; returns the total number of turns."""
    total = 0
    for g in range(games):
        total += train_game(w1, b1, w2, b2, seed, first_game + g, alpha, lam)
    return total


@kernel("(readonly(float64[:, ::1]), readonly(int8[::1]), readonly(int8[:, ::1]), int64)")
def _pubeval_choice(pubeval, board, children, n):
    kind = board_class(board)
    weights = pubeval[0] if (kind != CONTACT and kind != OVER) else pubeval[1]
    best = 0
    best_score = -1e300
    p = np.empty(OUTPUTS)
    for i in range(n):
        s = 1e200 if finished_probabilities(children[i], p) else pubeval_score(children[i], weights)
        if s > best_score:
            best_score = s
            best = i
    return best


@kernel(f"({WEIGHTS}, readonly(float64[:, ::1]), int64, int64, boolean)")
def _duel_game(w1, b1, w2, b2, pubeval, seed, game, net_first):
    """One game of the net against pubeval; returns the net's points."""
    children, moves, counts, hashes = movegen.play_buffers()
    x, hidden, raw, probs = scratch(w1)
    state = stream_state(seed, game)
    board = OPENING.copy()
    d1, d2 = opening_roll(state)
    net_turn = net_first
    for _ in range(MAX_TURNS):
        n = movegen.generate_into(board, d1, d2, children, moves, counts, hashes, False)
        if net_turn:
            best = _choose(w1, b1, w2, b2, children, n, x, hidden, raw, probs)
        else:
            best = _pubeval_choice(pubeval, board, children, n)
        child = children[best]
        points = movegen.win_kind(child)  # a cubeless game scores its win kind
        if points:
            return points if net_turn else -points
        board = movegen.flip_board(child)
        net_turn = not net_turn
        d1, d2 = next_roll(state)
    return 0


@kernel(f"({WEIGHTS}, readonly(float64[:, ::1]), int64, int64, int64)")
def duel_pubeval(w1, b1, w2, b2, pubeval, seed, first_pair, pairs):
    """The net's points in ``2 * pairs`` duplicate-dice games against pubeval (net first, then second)."""
    out = np.empty(2 * pairs, np.int64)
    for k in range(pairs):
        out[2 * k] = _duel_game(w1, b1, w2, b2, pubeval, seed, first_pair + k, True)
        out[2 * k + 1] = _duel_game(w1, b1, w2, b2, pubeval, seed, first_pair + k, False)
    return out


# -- the driver -----------------------------------------------------------------------------


def _train_task(task: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    arrays, seed, first, games, alpha, lam = task
    w1, b1, w2, b2 = (a.copy() for a in arrays)
    turns = train_games(w1, b1, w2, b2, seed, first, games, alpha, lam)
    return w1, b1, w2, b2, int(turns)


def _duel_task(task: tuple) -> np.ndarray:
    arrays, pubeval, seed, first, pairs = task
    return duel_pubeval(*arrays, pubeval, seed, first, pairs)


def pubeval_duel(network: Network, games: int, seed: int, pool: Workers | None = None, workers: int = 1) -> np.ndarray:
    """The net's points per game against pubeval, duplicate dice, split over ``workers``."""
    pairs = games // 2
    block = pubeval_block()
    share = [pairs // workers + (1 if w < pairs % workers else 0) for w in range(workers)]
    starts = np.concatenate([[0], np.cumsum(share)[:-1]])
    tasks = [(network.arrays(), block, seed, int(s), n) for s, n in zip(starts, share) if n]
    results = pool.map(_duel_task, tasks) if pool is not None else [_duel_task(t) for t in tasks]
    return np.concatenate(results)


class TrainingStateError(ValueError):
    """A state file whose settings differ from the command line's: resuming would mix two runs."""


def _save_state(path: Path, network: Network, settings: Settings, games: int, history: list, best: float, seconds: float) -> None:
    state = network.copy()
    state.meta = {"settings": asdict(settings), "games": games, "history": history, "best": best, "seconds": seconds}
    state.save(path, dtype=np.float64)


def plot_curve(history: list[dict], path: Path) -> None:
    """Points per game against pubeval over games trained, with 95 % intervals (needs matplotlib)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("gammon: no learning-curve plot: matplotlib is not installed (pip install 'gammon[train]')", file=sys.stderr)
        return
    if not history:
        return
    games = [h["games"] for h in history]
    ppg = [h["ppg"] for h in history]
    low = [h["ci95"][0] for h in history]
    high = [h["ci95"][1] for h in history]
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.fill_between(games, low, high, alpha=0.25, label="95% CI")
    ax.plot(games, ppg, marker=".", label="nn:0 vs pubeval")
    ax.axhline(0.0, color="grey", linewidth=0.8)
    ax.set_xlabel("self-play games")
    ax.set_ylabel("points per game vs pubeval")
    ax.set_title("gammon TD(lambda) learning curve")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def train(
    output: str | Path,
    games: int,
    settings: Settings,
    state_path: str | Path | None = None,
    progress: bool = True,
    command: str = "",
    snapshots: str | Path | None = None,
) -> Network:
    """Run (or resume) TD training up to ``games`` self-play games; returns the final net.

    ``output`` receives ``td.log`` (one JSON line per evaluation), ``learning-curve.png``
    and ``best.npz``; ``state_path`` (default ``output/state.npz``) the resumable state;
    ``snapshots``, when given, a directory that keeps the weights of every evaluation.
    """
    snapshots = Path(snapshots) if snapshots is not None else None
    out = Path(output)
    out.mkdir(parents=True, exist_ok=True)
    state_file = Path(state_path) if state_path else out / "state.npz"
    log_path = out / "td.log"
    history: list[dict] = []
    done = 0
    best = -math.inf
    seconds = 0.0
    if state_file.exists():
        network = Network.load(state_file)
        # Runs saved before these settings existed used the v1 encoding and summed changes.
        saved = Settings(**{"features": 1, "merge": "sum", **network.meta["settings"]})  # type: ignore[dict-item]
        if saved != settings:
            raise TrainingStateError(
                f"{state_file} holds a run with settings {asdict(saved)}, not {asdict(settings)}: "
                "resume with the same settings or choose another state file"
            )
        done = int(network.meta["games"])  # type: ignore[arg-type]
        history = list(network.meta.get("history", []))  # type: ignore[arg-type]
        best = float(network.meta.get("best", -math.inf))  # type: ignore[arg-type]
        seconds = float(network.meta.get("seconds", 0.0))  # type: ignore[arg-type]
    elif settings.init:
        network = Network.load(settings.init)
        if network.hidden > settings.hidden or network.features_version != settings.features:
            raise TrainingStateError(
                f"{settings.init} has {network.hidden} hidden units and feature encoding v{network.features_version}, "
                f"not at most {settings.hidden} and v{settings.features}"
            )
        network = network.widen(settings.hidden, settings.seed)  # a narrower net grows, answering as before
        network.meta = {}
    else:
        network = Network.random(settings.hidden, settings.seed, features=settings.features)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=games, initial=min(done, games), unit="game", desc="train td", smoothing=0.05)
    workers = settings.workers
    per_round = workers * settings.round_games
    saved = done
    # A plain `kill` should stop a run as cleanly as Ctrl-C: keep the last whole round.
    previous = signal.signal(signal.SIGTERM, _terminate) if _main_thread() else None
    try:
        with Workers(workers) as pool:
            while done < games:
                start = time.perf_counter()
                alpha = settings.alpha_at(done)
                lam = settings.lam_at(done)
                tasks = [
                    (network.arrays(), settings.seed, done + w * settings.round_games, settings.round_games, alpha, lam)
                    for w in range(workers)
                ]
                results = pool.map(_train_task, tasks)
                old = network.arrays()
                if settings.merge == "sum":
                    arrays = [old[i] + sum(r[i] - old[i] for r in results) for i in range(4)]
                else:
                    arrays = [np.mean([r[i] for r in results], axis=0) for i in range(4)]
                network = Network(*arrays, meta=network.meta)
                turns = sum(r[4] for r in results)
                done += per_round
                elapsed = time.perf_counter() - start
                seconds += elapsed
                if bar is not None:
                    bar.update(per_round)
                    bar.set_postfix(alpha=f"{alpha:.4f}", lam=lam, gps=f"{per_round / elapsed:.1f}", turns=turns // per_round)
                if done % settings.eval_every == 0 or done >= games:
                    t0 = time.perf_counter()
                    points = pubeval_duel(network, settings.eval_games, settings.eval_seed, pool, workers)
                    low, high = ci95(points)
                    entry = {
                        "games": done,
                        "train_seconds": round(seconds, 1),
                        "games_per_second": round(per_round / elapsed, 2),
                        "alpha": alpha,
                        "lambda": lam,
                        "ppg": round(float(points.mean()), 4),
                        "ci95": [round(low, 4), round(high, 4)],
                        "eval_games": int(points.size),
                        "eval_seconds": round(time.perf_counter() - t0, 1),
                        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                    }
                    history.append(entry)
                    with log_path.open("a") as log:
                        log.write(json.dumps(entry) + "\n")
                    if bar is not None:
                        bar.write(f"{done} games: {entry['ppg']:+.3f} ppg vs pubeval [{low:+.3f}, {high:+.3f}]")
                    if entry["ppg"] > best:
                        best = entry["ppg"]
                        shipped = network.copy()
                        shipped.meta = {
                            "trainer": "gammon train td",
                            "command": command,
                            "settings": asdict(settings),
                            "games": done,
                            "train_seconds": round(seconds, 1),
                            "pubeval_ppg": entry["ppg"],
                            "pubeval_ci95": entry["ci95"],
                            "eval_games": entry["eval_games"],
                        }
                        shipped.save(out / "best.npz")
                    plot_curve(history, out / "learning-curve.png")
                    if snapshots is not None:
                        snapshots.mkdir(parents=True, exist_ok=True)
                        network.save(snapshots / f"games-{done:08d}.npz")
                    saved = done
                    _save_state(state_file, network, settings, done, history, best, seconds)
    finally:
        if bar is not None:
            bar.close()
        if done != saved:  # finished or interrupted between evaluations: keep the last whole round
            _save_state(state_file, network, settings, done, history, best, seconds)
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    return network


def _terminate(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def average(paths: list[str | Path]) -> Network:
    """The mean of several snapshots of one run (weight averaging smooths out the noise that
    a still-large learning rate leaves in any single snapshot)."""
    if not paths:
        raise ValueError("average needs at least one weights file")
    nets = [Network.load(p) for p in paths]
    shapes = {tuple(a.shape for a in n.arrays()) for n in nets}
    if len(shapes) != 1:
        raise ValueError(f"cannot average nets of different shapes: {sorted(shapes)}")
    arrays = [np.mean([n.arrays()[i] for n in nets], axis=0) for i in range(4)]
    return Network(*arrays, meta={"trainer": "gammon train average", "averaged": [Path(p).name for p in paths]})

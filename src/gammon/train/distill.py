"""Distillation: a teacher's 2-ply search taught to the 0-ply nets, one decision at a time.

TD self-play and rollouts played by the net's own 0-ply choices converge to the same fixed
point (training/README.md); a stronger player has to teach. Here the teacher is a net searched
at 2 ply (``teacher``: a weights file, the shipped net in the first round, the last round's
net after that) and the pupil its 0-ply self.

**The data set** (:func:`build`) is made of *decisions*: a position from the pupil's self-play
(ordinary positions, and :data:`RARE_SHARE` of them of the rare kinds of
:mod:`gammon.train.kinds`) with one seeded roll. Its plays are scored at 0 ply and the candidate
window kept (up to :data:`WINDOW` plays within :data:`WITHIN` of the best, as GNU Backgammon's
default move filter keeps); each kept play is valued by the teacher at 2 ply (five
probabilities, the side that played). A decision where the teacher's best play is better than
the 0-ply choice by :data:`DISAGREEMENT` or more is always kept, the rest with probability
``sample`` (1 by default: whether a decision disagrees is known only once it is labelled, and
an agreeing decision still teaches the differences between its plays). Decision ``i`` of chunk
``c`` depends only on ``(seed, c, i)`` and the two nets, so the data set depends only on its
settings; it grows chunk by chunk in one compressed ``.npz``, saved once a minute, and a rerun
with a larger ``--decisions`` goes on where it stopped.

**The fit** (:func:`fit`) moves each play's net (:func:`~gammon.nn.network.net_of`) on two
losses: the *ranking* (each play's equity less its decision's mean, against the teacher's,
squared: a decision turns on differences of 0.005-0.04 that a fit on values alone does not
teach) with disagreements weighted up, and the *level* (cross-entropy on the teacher's
probabilities). Plays the bear-off tables answer, or that end the game, keep their exact value
and move nothing. A share of the decisions is held out; the *teacher loss* there, the
teacher's value of its best candidate less that of the net's 0-ply choice, is the round's
measure.
"""

from __future__ import annotations

import json
import math
import time
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import movegen
from ..bots.evaluator import BEAROFF, OVER, CompositeEvaluator, board_classes, load_bearoff
from ..bots.search import Search
from ..errors import DataSetError
from ..evaluation import equities
from ..nn.evaluator import NNEvaluator
from ..nn.features import encode_batch
from ..nn.network import NETS, Network, net_of
from ..workers import Workers
from ..nn import kinds
from .rollouts import sample_positions

#: Decisions drawn per chunk (one task of a worker; the unit the data set grows by).
CHUNK = 24
#: The 0-ply candidate window: at most this many plays ...
WINDOW = 8
#: ... within this much equity of the 0-ply best.
WITHIN = 0.16
#: A decision where 0 and 2 ply differ by this much equity or more is always kept.
DISAGREEMENT = 0.01
#: The share of a chunk's positions drawn from the rare kinds (the rest: ordinary self-play).
RARE_SHARE = 0.3
#: Self-play positions a chunk's decisions are drawn from.
POOL = 1500
#: Seconds between saves of the growing data set.
SAVE_EVERY = 60.0
#: Equity of a probability vector, as the gradient sees it.
EQUITY_WEIGHTS = np.array([2.0, 1.0, 1.0, -1.0, -1.0])

_FIELDS = {"boards": ((0, 26), np.int8), "teacher": ((0, 5), np.float32), "static": ((0, 5), np.float32),
           "starts": ((0,), np.int64), "parents": ((0, 26), np.int8), "rolls": ((0, 2), np.int8),
           "chunks": ((0,), np.int64)}


def empty() -> dict[str, np.ndarray]:
    return {name: np.empty(shape, dtype) for name, (shape, dtype) in _FIELDS.items()}


def load(path: str | Path) -> dict[str, np.ndarray]:
    """A data set as its arrays (``starts``: where each decision's plays begin in ``boards``)."""
    try:
        with np.load(path, allow_pickle=False) as stored:
            data = {name: stored[name] for name in _FIELDS}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, zlib.error) as error:
        raise DataSetError(f"{path}: not a distillation data set ({error})") from None
    for name, (shape, dtype) in _FIELDS.items():
        if data[name].dtype != dtype or data[name].shape[1:] != shape[1:]:
            raise DataSetError(f"{path}: field {name!r} should be {dtype.__name__} rows of shape {shape[1:]}, "
                               f"found {data[name].dtype} {data[name].shape}")
    return data


def first_decisions(data: dict[str, np.ndarray], count: int) -> dict[str, np.ndarray]:
    """The decisions a data set held when it had ``count`` (it only grows at its end), to fit again
    what was fitted then (its ``chunks`` are left whole: the view is for fitting, not for growing)."""
    if count >= data["starts"].shape[0]:
        return data
    rows = int(data["starts"][count])
    return {**{name: data[name][:rows] for name in ("boards", "teacher", "static")},
            **{name: data[name][:count] for name in ("starts", "parents", "rolls")}, "chunks": data["chunks"]}


def settings_of(path: str | Path) -> dict[str, object]:
    """The settings a data set was made with (empty for a file without them)."""
    with np.load(path, allow_pickle=False) as stored:
        return json.loads(str(stored["settings"])) if "settings" in stored else {}


# -- the decisions -------------------------------------------------------------------------------
def positions(network: Network, seed: int, chunk: int, count: int = CHUNK) -> np.ndarray:
    """Chunk ``chunk``'s positions (the side on roll's boards), drawn from one stretch of the pupil's
    self-play: :data:`RARE_SHARE` of them of the rare kinds in turn (an ordinary one where the
    stretch holds none of a kind), the rest ordinary, in a seeded order."""
    rng = np.random.default_rng([seed, chunk, 3])
    first = 10_000_000 + 100_000 * chunk  # far from the TD runs' and the phase data sets' games
    stretch = np.array([movegen.flip_board(b) for b in
                        sample_positions(*network.arrays(), seed, first, POOL, 0.5)], np.int8)
    rare = round(RARE_SHARE * count)
    picked = list(rng.choice(POOL, count - rare, replace=False))
    names = list(kinds.RARE)
    for number in range(rare):
        test = kinds.RARE[names[(chunk * rare + number) % len(names)]]
        found = next((i for i in rng.permutation(POOL) if i not in picked and test(stretch[i])), None)
        picked.append(found if found is not None else next(i for i in rng.permutation(POOL) if i not in picked))
    return stretch[np.array(picked)]


@dataclass
class LabelledDecision:
    """One decision's kept plays: boards after each play, 0-ply and teacher probabilities."""

    parent: np.ndarray
    roll: tuple[int, int]
    boards: np.ndarray
    static: np.ndarray
    teacher: np.ndarray

    @property
    def disagreement(self) -> float:
        """How much better the teacher's best play is than the 0-ply choice (the first), by the teacher."""
        values = equities(self.teacher)
        return float(values.max() - values[0])


def candidates(evaluator: CompositeEvaluator, board: np.ndarray, d1: int, d2: int
               ) -> tuple[np.ndarray, np.ndarray]:
    """The 0-ply candidate window of a roll: its plays best first (the 0-ply choice first) and their probabilities."""
    children = movegen.generate(board, d1, d2)[0]
    static = evaluator.evaluate_batch(children)
    values = equities(static)
    order = np.argsort(-values, kind="stable")[:WINDOW]
    order = order[values[order] >= values[order[0]] - WITHIN]
    return children[order], static[order]


def decide(evaluator: CompositeEvaluator, teacher: Search, board: np.ndarray, d1: int, d2: int,
           plies: int = 2) -> LabelledDecision | None:
    """A decision labelled by the teacher at ``plies``; None when the window holds one play."""
    boards, static = candidates(evaluator, board, d1, d2)
    if boards.shape[0] < 2:
        return None
    return LabelledDecision(board, (d1, d2), boards, static, teacher.value(boards, plies))


# -- the data set ----------------------------------------------------------------------------------
_players: dict[str, object] = {}


def _start(pupil: str, teacher: str) -> None:
    """Set up a worker: the pupil's 0-ply evaluator and the teacher's search."""
    bearoff = load_bearoff()
    network = Network.load(pupil)
    _players["pupil"] = CompositeEvaluator(NNEvaluator(network), bearoff)
    _players["teacher"] = Search(CompositeEvaluator(NNEvaluator(Network.load(teacher)), bearoff))
    _players["network"] = network


def _chunk(task: tuple) -> tuple[int, list[LabelledDecision]]:
    """One chunk: its decisions, the kept ones labelled."""
    seed, index, sample, plies = task
    pupil = _players["pupil"]
    teacher = _players["teacher"]
    assert isinstance(pupil, CompositeEvaluator) and isinstance(teacher, Search)
    network = _players["network"]
    assert isinstance(network, Network)
    rng = np.random.default_rng([seed, index, 5])
    kept = []
    for board in positions(network, seed, index):
        d1, d2 = (int(d) for d in rng.integers(1, 7, 2))
        keep_anyway = rng.random() < sample
        decision = decide(pupil, teacher, board, d1, d2, plies)
        if decision is not None and (keep_anyway or decision.disagreement >= DISAGREEMENT):
            kept.append(decision)
        teacher.clear_cache()
    return index, kept


def _append(data: dict[str, np.ndarray], results: list[tuple[int, list[LabelledDecision]]]) -> dict[str, np.ndarray]:
    boards = [data["boards"]]
    teacher, static, starts = [data["teacher"]], [data["static"]], [data["starts"]]
    parents, rolls, chunks = [data["parents"]], [data["rolls"]], [data["chunks"]]
    row = data["boards"].shape[0]
    for index, decisions in results:
        chunks.append(np.array([index], np.int64))
        for decision in decisions:
            starts.append(np.array([row], np.int64))
            boards.append(decision.boards)
            teacher.append(decision.teacher.astype(np.float32))
            static.append(decision.static.astype(np.float32))
            parents.append(decision.parent[None, :].astype(np.int8))
            rolls.append(np.array([decision.roll], np.int8))
            row += decision.boards.shape[0]
    return {"boards": np.concatenate(boards), "teacher": np.concatenate(teacher),
            "static": np.concatenate(static), "starts": np.concatenate(starts),
            "parents": np.concatenate(parents), "rolls": np.concatenate(rolls), "chunks": np.concatenate(chunks)}


def _save(path: Path, data: dict[str, np.ndarray], settings: dict[str, object]) -> None:
    """Write the data set whole to a temporary file, then put it in place (a kill leaves the old one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".part")
    with open(temporary, "wb") as handle:
        np.savez_compressed(handle, settings=np.array(json.dumps(settings)), **data)
    temporary.replace(path)


def build(path: str | Path, decisions: int, pupil: str | Path, teacher: str | Path, seed: int = 1,
          sample: float = 1.0, workers: int = 1, plies: int = 2, progress: bool = True) -> dict[str, np.ndarray]:
    """Grow the data set at ``path`` to at least ``decisions`` kept decisions (see the module
    docstring), on ``workers`` processes; the same data set whatever the workers."""
    path = Path(path)
    data = load(path) if path.exists() else empty()
    settings: dict[str, object] = {"pupil": str(pupil), "teacher": str(teacher), "seed": seed, "sample": sample,
                                   "plies": plies, "window": WINDOW, "within": WITHIN, "chunk": CHUNK}
    if path.exists():
        for name, before in settings_of(path).items():
            if name in settings and settings[name] != before:
                raise DataSetError(f"{path} was made with {name} {before!r}, not {settings[name]!r}: "
                                   "grow it with its own settings, or start another file")
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=decisions, initial=min(decisions, data["starts"].shape[0]), unit="decision",
                   desc="2-ply labels", smoothing=0.05)
    saved = time.monotonic()
    pending: list[tuple[int, list[LabelledDecision]]] = []
    try:
        with Workers(workers, initializer=_start, initargs=(str(pupil), str(teacher))) as pool:
            while data["starts"].shape[0] + sum(len(p[1]) for p in pending) < decisions:
                have = data["starts"].shape[0] + sum(len(p[1]) for p in pending)
                done = {int(c) for c in data["chunks"]} | {p[0] for p in pending}
                per_chunk = max(1.0, have / max(1, len(done))) if done else CHUNK * (sample + 0.2)
                wanted = max(workers, math.ceil((decisions - have) / per_chunk))
                following = max(done, default=-1) + 1
                tasks = [(seed, following + i, sample, plies) for i in range(wanted)]
                for result in pool.imap(_chunk, tasks):
                    pending.append(result)
                    if bar is not None:
                        bar.update(len(result[1]))
                    if time.monotonic() - saved > SAVE_EVERY:
                        data = _append(data, pending)
                        pending = []
                        _save(path, data, settings)
                        saved = time.monotonic()
    finally:
        if pending:
            data = _append(data, pending)
        _save(path, data, settings)
        if bar is not None:
            bar.close()
    return data


# -- the fit -----------------------------------------------------------------------------------------
@dataclass
class Groups:
    """A data set's decisions ready for the fit: inputs, targets, which rows move which net."""

    inputs: np.ndarray  # (rows, inputs)
    nets: np.ndarray  # each row's net; -1 where the bear-off tables or the game's end answer
    teacher: np.ndarray  # (rows, 5)
    fixed: np.ndarray  # (rows, 5): the exact value of rows no net answers
    starts: np.ndarray
    sizes: np.ndarray

    @classmethod
    def of(cls, data: dict[str, np.ndarray]) -> Groups:
        boards = data["boards"]
        classes = board_classes(boards)
        nets = np.array([net_of(b) for b in boards], np.int64)
        nets[(classes == BEAROFF) | (classes == OVER)] = -1
        starts = data["starts"].astype(np.int64)
        sizes = np.diff(np.append(starts, boards.shape[0]))
        return cls(encode_batch(boards), nets, data["teacher"].astype(np.float64),
                   data["static"].astype(np.float64), starts, sizes)

    def rows(self, decisions: np.ndarray) -> np.ndarray:
        return np.concatenate([np.arange(self.starts[d], self.starts[d] + self.sizes[d]) for d in decisions])


def _forward(network: Network, x: np.ndarray, nets: np.ndarray) -> tuple[np.ndarray, list[tuple]]:
    """Raw outputs ``(rows, 5)`` of each row's net (zeros where no net answers) and what backprop needs."""
    out = np.zeros((x.shape[0], 5))
    cache = []
    for k in range(NETS):
        mask = np.flatnonzero(nets == k)
        if not mask.size:
            continue
        inputs = x[mask, : network.w1.shape[1]]
        hidden = 1.0 / (1.0 + np.exp(-(inputs @ network.w1[k] + network.b1[k])))
        out[mask] = 1.0 / (1.0 + np.exp(-(hidden @ network.w2[k] + network.b2[k])))
        cache.append((k, mask, inputs, hidden))
    return out, cache


def decision_losses(network: Network, groups: Groups, decisions: np.ndarray) -> np.ndarray:
    """The teacher loss of each decision: the teacher's value of its best candidate less that of
    the net's 0-ply choice among them (0 where they agree)."""
    rows = groups.rows(decisions)
    raw, _ = _forward(network, groups.inputs[rows], groups.nets[rows])
    fixed = groups.nets[rows] < 0
    raw[fixed] = groups.fixed[rows][fixed]
    mine = equities(np.clip(raw, 0.0, 1.0))
    taught = equities(groups.teacher[rows])
    losses = np.empty(decisions.size)
    offset = 0
    for n, d in enumerate(decisions):
        size = int(groups.sizes[d])
        part = slice(offset, offset + size)
        losses[n] = taught[part].max() - taught[part][int(np.argmax(mine[part]))]
        offset += size
    return losses


def fit(weights: str | Path, data: list[str | Path], output: str | Path, epochs: int = 8, alpha: float = 0.0003,
        ranking: float = 20.0, boost: float = 3.0, level: float = 1.0, batch: int = 64, seed: int = 1,
        holdout: float = 0.1, anchor: float = 0.0, rollouts: list[str | Path] | None = None,
        rollout_weight: float = 1.0, first: list[int] | None = None, progress: bool = True) -> Network:
    """Fit the nets of ``weights`` to the decisions of ``data`` (see the module docstring) with Adam
    at step ``alpha``: ``ranking`` weighs the differences within a decision (``boost`` more where the
    teacher disagreed with 0 ply), ``level`` the probabilities, ``anchor`` the squared distance from
    the starting weights (what TD taught, kept where the data do not speak). ``rollouts`` names
    data sets of rolled-out positions (``gammon train phase-data``: the race, gammonish and crashed
    sets) fitted beside, each batch as many of their positions as it has decisions, on
    cross-entropy weighted ``rollout_weight``, so the phase nets keep what rollouts taught them. Writes ``output``; its
    metadata keeps the held-out teacher loss before and after each epoch and its paired change
    (the mean of each held-out decision's change, with its standard error: most decisions do
    not change, so the paired figure sees a change the two means' noise would hide)."""
    network = Network.load(weights)
    network = Network(*(a.astype(np.float64) for a in network.arrays()), dict(network.meta))
    sets = [load(p) for p in data]
    if first:  # a fit made when the sets were smaller, made again
        if len(first) != len(sets):
            raise DataSetError(f"first: {len(first)} counts for {len(sets)} data sets; give one count per data set")
        sets = [first_decisions(d, n) for d, n in zip(sets, first)]
    merged = sets[0]
    for more in sets[1:]:
        shift = merged["boards"].shape[0]
        merged = {**{k: np.concatenate([merged[k], more[k]]) for k in ("boards", "teacher", "static", "parents",
                                                                        "rolls", "chunks")},
                  "starts": np.concatenate([merged["starts"], more["starts"] + shift])}
    groups = Groups.of(merged)
    count = groups.starts.shape[0]
    rng = np.random.default_rng([seed, 17])
    order = rng.permutation(count)
    held = np.sort(order[: max(1, int(holdout * count))])
    used = order[held.size:]
    taught = equities(groups.teacher)
    disagree = np.array([taught[s:s + n].max() - taught[s] >= DISAGREEMENT
                         for s, n in zip(groups.starts, groups.sizes)])
    rolled = _rolled_out(rollouts or [])
    if rolled is not None:
        rolled_equities, never = equities(rolled.teacher), np.zeros(rolled.starts.shape[0], bool)
    initial = decision_losses(network, groups, held)
    before = float(initial.mean())
    params = list(network.arrays())
    start = [p.copy() for p in params]
    moments = [np.zeros_like(p) for p in params]
    squares = [np.zeros_like(p) for p in params]
    step_count = 0
    history = []
    for epoch in range(epochs):
        rng.shuffle(used)
        for offset in range(0, used.size, batch):
            decisions = used[offset:offset + batch]
            grads = _gradients(network, groups, decisions, taught, disagree, ranking, boost, level)
            if rolled is not None:
                sample = rng.integers(0, rolled.starts.shape[0], decisions.size)
                extra = _gradients(network, rolled, sample, rolled_equities, never, 0.0, 0.0, rollout_weight)
                for g, more in zip(grads, extra):
                    g += more
            if anchor:
                for g, p, p0 in zip(grads, params, start):
                    g += anchor * (p - p0)
            step_count += 1
            for p, g, m, v in zip(params, grads, moments, squares):
                m *= 0.9
                m += 0.1 * g
                v *= 0.999
                v += 0.001 * g * g
                p -= alpha * (m / (1 - 0.9 ** step_count)) / (np.sqrt(v / (1 - 0.999 ** step_count)) + 1e-8)
        losses = decision_losses(network, groups, held)
        change = losses - initial
        error = float(change.std(ddof=1) / math.sqrt(change.size)) if change.size > 1 else 0.0
        history.append({"epoch": epoch + 1, "held_out_teacher_loss": float(losses.mean()),
                        "paired_change": float(change.mean()), "paired_error": error,
                        "choices_changed": int((np.abs(change) > 0).sum())})
        if progress:
            print(f"epoch {epoch + 1}/{epochs}: held-out teacher loss {losses.mean():.5f} (before {before:.5f}; "
                  f"paired change {change.mean():+.5f} +- {error:.5f}, {history[-1]['choices_changed']} of "
                  f"{change.size} choices changed)", flush=True)
    fitted = Network(*params, dict(network.meta))
    fitted.meta.setdefault("distill", []).append({  # type: ignore[union-attr]
        "trainer": "gammon train distill-fit", "from": str(weights), "data": [str(p) for p in data],
        "decisions": count, "first": [int(d["starts"].shape[0]) for d in sets], "held_out": int(held.size),
        "epochs": epochs, "alpha": alpha, "ranking": ranking,
        "boost": boost, "level": level, "anchor": anchor, "rollouts": [str(p) for p in rollouts or []],
        "rollout_weight": rollout_weight, "seed": seed, "held_out_teacher_loss_before": before,
        "held_out_teacher_loss_after": history[-1]["held_out_teacher_loss"] if history else before,
        "history": history,
    })
    fitted.save(output)
    return fitted


def _rolled_out(paths: list[str | Path]) -> Groups | None:
    """Rolled-out positions as decisions of one play each (their ranking term is then zero)."""
    if not paths:
        return None
    boards, targets = [], []
    for path in paths:
        try:
            with np.load(path, allow_pickle=False) as stored:
                boards.append(stored["boards"].astype(np.int8))
                targets.append(stored["targets"].astype(np.float64))
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, zlib.error) as error:
            raise DataSetError(f"{path}: not a data set of rolled-out positions ({error})") from None
    board = np.concatenate(boards)
    target = np.concatenate(targets)
    return Groups.of({"boards": board, "teacher": target, "static": target, "starts": np.arange(board.shape[0])})


def _terms(network: Network, groups: Groups, decisions: np.ndarray, taught: np.ndarray, disagree: np.ndarray,
           boost: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[tuple]]:
    """What the loss and its gradient share: the rows, their raw outputs (exact values where no
    net answers), which rows are fixed, each row's decision weight and centred equity error."""
    rows = groups.rows(decisions)
    nets = groups.nets[rows]
    raw, cache = _forward(network, groups.inputs[rows], nets)
    fixed = nets < 0
    raw[fixed] = groups.fixed[rows][fixed]
    mine = raw @ EQUITY_WEIGHTS
    target = taught[rows]
    sizes = groups.sizes[decisions]
    group_of = np.repeat(np.arange(decisions.size), sizes)
    weights = np.where(disagree[decisions], 1.0 + boost, 1.0)[group_of]
    centred = (mine - (np.bincount(group_of, mine) / sizes)[group_of]) \
        - (target - (np.bincount(group_of, target) / sizes)[group_of])
    return rows, raw, fixed, weights, centred, cache


def objective(network: Network, groups: Groups, decisions: np.ndarray, taught: np.ndarray, disagree: np.ndarray,
              ranking: float, boost: float, level: float) -> float:
    """The fit's loss over ``decisions``, per decision: ``ranking`` times the weighted squared
    errors of the plays' equities about their decision's mean, plus ``level`` times the
    cross-entropy of the outputs against the teacher's probabilities (rows no net answers excepted)."""
    rows, raw, fixed, weights, centred, _ = _terms(network, groups, decisions, taught, disagree, boost)
    target = groups.teacher[rows]
    clipped = np.clip(raw, 1e-12, 1 - 1e-12)
    entropy = -(target * np.log(clipped) + (1 - target) * np.log(1 - clipped)).sum(axis=1)
    entropy[fixed] = 0.0
    return float((ranking * (weights * centred ** 2).sum() + level * entropy.sum()) / decisions.size)


def _gradients(network: Network, groups: Groups, decisions: np.ndarray, taught: np.ndarray, disagree: np.ndarray,
               ranking: float, boost: float, level: float) -> list[np.ndarray]:
    """The gradients of :func:`objective` for ``w1, b1, w2, b2``."""
    rows, raw, fixed, weights, centred, cache = _terms(network, groups, decisions, taught, disagree, boost)
    # The centring's own gradient sums to zero over a decision, so d/d equity is 2 w (centred error).
    d_equity = 2.0 * ranking * weights * centred
    # d loss / d pre-activation of each output: the ranking through the equity, the level by cross-entropy.
    d_out = d_equity[:, None] * EQUITY_WEIGHTS[None, :] * raw * (1.0 - raw) + level * (raw - groups.teacher[rows])
    d_out[fixed] = 0.0
    d_out /= decisions.size
    grads = [np.zeros_like(a) for a in network.arrays()]
    for k, mask, inputs, hidden in cache:
        delta = d_out[mask]
        grads[2][k] = hidden.T @ delta
        grads[3][k] = delta.sum(axis=0)
        back = (delta @ network.w2[k].T) * hidden * (1.0 - hidden)
        grads[0][k, : inputs.shape[1]] = inputs.T @ back
        grads[1][k] = back.sum(axis=0)
    return grads

"""Nets by phase trained on rolled-out positions: the race and crashed nets' data sets and their fit.

TD self-play teaches a net the positions its own games reach. A race where one side has
checkers off and a straggler far from home (what a late hit leaves), or a bear-off against a
checker still on the bar, are rare there, and the nets misjudged them badly. Here each phase
gets positions of every kind it must judge, labelled by gammon's own rollouts:

* ``race``: races from the net's self-play -- 40 % with stragglers (a side with checkers off
  and some outside its home board, what a late hit leaves), 40 % the rest -- and 20 % races
  drawn at random (each side some checkers off, a few or many outside its home board:
  stragglers, uneven bear-offs, gammonish races);
* ``crashed``: crashed positions from self-play (60 %), and bear-offs hit late drawn at random
  (a side with checkers off and one or two back, on the bar or in the other's home board,
  against a home board);
* ``gammonish``: lopsided races drawn at random, all for the race net: one side bearing off,
  the other with none off and some checkers still in the first side's home board, so a
  gammon or a backgammon is likely or certain (a race's biggest misjudgements were there).

Each position is rolled out ``trials`` times by the net at 0 ply (quasi-random dice, luck
adjustment, to the end: a cubeless trial stops exactly where the bear-off tables cover the
position), with seed ``seed + index``, so a data set depends only on its settings. The data
set grows chunk by chunk in one ``.npz`` (``boards`` after a play, ``targets`` for the side
that moved, ``errors``: each target's standard error in equity), rewritten once a minute:
rerun the command with a larger ``--positions`` and it goes on from where it stopped.

:func:`fit` then trains the named nets of a weights file on these targets by SGD, each
position by the net :func:`gammon.nn.network.net_of` gives it, a share held out. Fitted alone,
a few thousand rolled-out positions teach a net the level of a position but not the small
differences between the plays of one roll, which TD had taught it, and the bot played worse;
the plays of one roll in the net's own self-play (:func:`siblings`), fitted beside them to the
starting net's differences between them, keep those while the rollouts set the level.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np

from .. import movegen
from ..bots.evaluator import BEAROFF, CONTACT, RACE
from ..nn.network import CRASHED_NET, NET_NAMES, RACE_NET, Network, evaluate_boards, net_of
from ..players import load_player
from ..rollout.run import consistent
from ..rollout.trial import Roller
from ..workers import Workers, ray_imap
from .rollouts import fit as fit_epoch
from .rollouts import held_error, sample_positions, self_play_where

#: The phases a data set is made for, with the net each trains.
KINDS = {"race": RACE_NET, "crashed": CRASHED_NET, "gammonish": RACE_NET}
#: Positions per chunk (one task of a worker; the unit the data set grows by).
CHUNK = 40
#: Seconds between saves of the growing data set.
SAVE_EVERY = 60.0


# -- positions ------------------------------------------------------------------------------------
def _place(rng: np.random.Generator, count: int, low: int, high: int, spread: float) -> np.ndarray:
    """``count`` checkers on points ``low``..``high`` (counts per point, index 0 = ``low``), piled
    more (small ``spread``) or less on a few points."""
    weights = rng.dirichlet(np.full(high - low + 1, spread))
    return np.bincount(rng.choice(high - low + 1, size=count, p=weights), minlength=high - low + 1)


def _side(rng: np.random.Generator, stragglers: bool) -> tuple[int, np.ndarray]:
    """One side of a race: checkers off, and the counts on its points 1-24 (its own numbering)."""
    off = 0 if rng.random() < 0.3 else int(rng.integers(1, 14))
    left = 15 - off
    if stragglers:
        outside = int(rng.integers(1, min(3, left) + 1))
    else:
        outside = int(rng.integers(0, left + 1))
    points = np.zeros(25, np.int64)
    points[1:7] = _place(rng, left - outside, 1, 6, rng.choice([0.3, 1.0, 3.0]))
    if outside:
        far = int(rng.integers(7, 25))
        points[7:far + 1] = _place(rng, outside, 7, far, 0.5)
    return off, points


def random_race(rng: np.random.Generator) -> np.ndarray:
    """A race (some checker outside its home board, no contact), the side on roll's board."""
    while True:
        straggler = rng.random() < 0.5
        _, mine = _side(rng, straggler and rng.random() < 0.5)
        _, theirs = _side(rng, straggler and rng.random() < 0.5)
        board = np.zeros(26, np.int8)
        board[1:25] = mine[1:25]
        board[1:25] -= theirs[24:0:-1].astype(np.int8)  # their point q is our point 25 - q
        if np.any((mine[1:25] > 0) & (theirs[24:0:-1] > 0)):
            continue
        if movegen.board_class(board) == RACE:
            return board


def random_late_hit(rng: np.random.Generator) -> np.ndarray:
    """A bear-off hit late: one side (on roll or not) with checkers off and one or two back -- on
    the bar or in the other's home board -- against a home board; the side on roll's board."""
    while True:
        off = int(rng.integers(4, 14))
        back = int(rng.integers(1, 3))
        bearing = np.zeros(26, np.int64)  # the side hit, in its own numbering (25: its bar)
        bearing[1:7] = _place(rng, 15 - off - back, 1, 6, 1.0)
        for _ in range(back):
            bearing[25 if rng.random() < 0.6 else int(rng.integers(19, 25))] += 1
        hitter = np.zeros(26, np.int64)  # the other side, in its own numbering
        home = int(rng.integers(6, 14))
        hitter[1:7] = _place(rng, home, 1, 6, 2.0)
        hitter[7:25] = _place(rng, 15 - home, 7, 24, 0.7)
        board = np.zeros(26, np.int8)
        board[:] = bearing.astype(np.int8)
        board[0] = 0
        # the hitter's point q is the hit side's point 25 - q (its bar, 25, is the hit side's 0)
        for q in range(1, 25):
            if hitter[q]:
                if board[25 - q] > 0:
                    break
                board[25 - q] = -hitter[q]
        else:
            if rng.random() < 0.5:
                board = movegen.flip_board(board)  # the hitter on roll
            if movegen.board_class(board) == CONTACT and net_of(movegen.flip_board(board)) == CRASHED_NET:
                return board


def random_gammonish(rng: np.random.Generator) -> np.ndarray:
    """A lopsided race: a side with checkers off, all left on its points 1..``high``, against a side
    with none off, some of them in the first side's home board above ``high`` (a backgammon
    possible), the rest in its outer board and its own home; either side on roll."""
    while True:
        off = int(rng.integers(3, 15))
        high = int(rng.integers(1, 7))
        leader = np.zeros(25, np.int64)  # the side bearing off, its own numbering
        leader[1:high + 1] = _place(rng, 15 - off, 1, high, rng.choice([0.3, 1.0, 3.0]))
        trailer = np.zeros(25, np.int64)  # the other side, its own numbering
        back = int(rng.integers(0, 5)) if high < 6 else 0
        if back:
            trailer[19:25 - high] = _place(rng, back, 19, 24 - high, 0.7)  # the leader's points high+1..6
        far = int(rng.integers(7, 19))  # at most 18: the leader's 7 point, above its checkers
        trailer[1:far + 1] = _place(rng, 15 - back, 1, far, rng.choice([0.3, 1.0, 3.0]))
        board = np.zeros(26, np.int8)
        board[1:25] = leader[1:25]
        board[1:25] -= trailer[24:0:-1].astype(np.int8)  # the trailer's point q is the leader's 25 - q
        if rng.random() < 0.5:
            board = movegen.flip_board(board)  # the trailer on roll
        if movegen.board_class(board) == RACE:  # not both sides home: a bear-off is the tables'
            return board


def straggler(board: np.ndarray) -> bool:
    """A race where a side has borne checkers off and still has one outside its home board."""
    if movegen.board_class(board) != RACE:
        return False
    mine, theirs = board[board > 0].sum(), -board[board < 0].sum()
    mine_out = board[7:26][board[7:26] > 0].sum()
    theirs_out = -board[0:19][board[0:19] < 0].sum()
    return bool((mine < 15 and mine_out > 0) or (theirs < 15 and theirs_out > 0))


#: The positions a phase is judged and trained on: a predicate on the side on roll's board.
SELF_PLAY = {
    "straggler": straggler,
    "race": lambda board: movegen.board_class(board) == RACE and not straggler(board),
    "crashed": lambda board: net_of(movegen.flip_board(board)) == CRASHED_NET,
}
#: Each phase's mix: shares of self-play positions by kind, the rest drawn at random.
MIX = {"race": (("straggler", 0.4), ("race", 0.4)), "crashed": (("crashed", 0.6),), "gammonish": ()}
#: Each phase's drawn positions.
DRAWN = {"race": random_race, "crashed": random_late_hit, "gammonish": random_gammonish}


def self_play_positions(network: Network, which: str, count: int, seed: int, first_game: int) -> np.ndarray:
    """``count`` positions of :data:`SELF_PLAY` kind ``which`` from the net's self-play, from game
    ``first_game`` on (the side on roll's boards, before the roll)."""
    return self_play_where(network, SELF_PLAY[which], count, seed, first_game)


def positions(network: Network, kind: str, count: int, seed: int, chunk: int) -> np.ndarray:
    """Chunk ``chunk`` of a phase's positions (side on roll's boards): self-play and drawn, as
    :data:`MIX` shares them, in a seeded order."""
    rng = np.random.default_rng([seed, chunk])
    boards: list[np.ndarray] = []
    for which, share in MIX[kind]:
        boards.extend(self_play_positions(network, which, round(share * count), seed, 1_000_000 * (chunk + 1)))
    drawn = DRAWN[kind]
    boards.extend(drawn(rng) for _ in range(count - len(boards)))
    order = rng.permutation(len(boards))
    return np.array(boards, np.int8)[order]


# -- labels ------------------------------------------------------------------------------------------
_roller: Roller | None = None


def _start(player: str) -> None:
    global _roller
    bot = load_player(player)
    _roller = Roller(bot)  # type: ignore[arg-type]


def label(roller: Roller, board: np.ndarray, trials: int, seed: int) -> tuple[np.ndarray, float]:
    """The side on roll's rolled-out probabilities of ``board`` and the standard error of its equity."""
    samples = roller.trials(board, None, seed, 0, trials)
    means = consistent([float(v) for v in samples[:, :5].mean(axis=0)])
    error = float(samples[:, 5].std(ddof=1) / math.sqrt(trials))
    return np.array(means.as_tuple()), error


def _ray_chunk(player: str, task: tuple) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """One chunk as a Ray task: the labelling player is made once per Ray worker process."""
    if getattr(_ray_chunk, "player", None) != player or _roller is None:
        _start(player)
        _ray_chunk.player = player  # type: ignore[attr-defined]
    return _chunk(task)


def _chunk(task: tuple) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """One chunk: its positions and their rollouts, as boards after a play with the mover's targets."""
    weights, kind, seed, index, trials = task
    assert _roller is not None
    network = Network.load(weights)
    boards = positions(network, kind, CHUNK, seed, index)
    after = np.empty_like(boards)
    targets = np.empty((len(boards), 5))
    errors = np.empty(len(boards))
    for i, board in enumerate(boards):
        probabilities, errors[i] = label(_roller, board, trials, seed + index * CHUNK + i)
        after[i] = movegen.flip_board(board)
        targets[i] = probabilities[[0, 3, 4, 1, 2]]  # the mover's view: 1 - win, then its wins are our losses
        targets[i, 0] = 1.0 - probabilities[0]
    return index, after, targets, errors


def build(path: str | Path, kind: str, count: int, trials: int = 36, seed: int = 1, workers: int = 1,
          player: str = "nn", weights: str | None = None, progress: bool = True,
          ray: str | None = None) -> dict[str, np.ndarray]:
    """Grow the data set at ``path`` to ``count`` positions of ``kind`` (see the module docstring),
    on ``workers`` processes or as Ray tasks on the cluster ``ray`` names: the same data set either way."""
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    path = Path(path)
    from ..nn.evaluator import default_weights_path

    weights = str(weights or default_weights_path())
    data = {"boards": np.empty((0, 26), np.int8), "targets": np.empty((0, 5)), "errors": np.empty(0)}
    if path.exists():
        with np.load(path) as stored:
            data = {key: stored[key] for key in data}
    done = data["boards"].shape[0] // CHUNK
    todo = list(range(done, math.ceil(count / CHUNK)))
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(todo) * CHUNK, unit="pos", desc=f"{kind} rollouts", smoothing=0.05)
    new: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    saved = time.monotonic()
    try:
        with Workers(1 if ray else workers, initializer=None if ray else _start, initargs=(player,)) as pool:
            tasks = [(weights, kind, seed, i, trials) for i in todo]
            results = ray_imap(ray, _ray_chunk, (player,), tasks) if ray else pool.imap(_chunk, tasks)
            for number, (_, boards, targets, errors) in enumerate(results, 1):
                new.append((boards, targets, errors))
                if bar is not None:
                    bar.update(len(boards))
                if number == len(tasks) or time.monotonic() - saved > SAVE_EVERY:
                    data = _save(path, data, new)
                    new = []
                    saved = time.monotonic()
    finally:
        if new:
            data = _save(path, data, new)
        if bar is not None:
            bar.close()
    return data


def _save(path: Path, data: dict[str, np.ndarray], new: list[tuple[np.ndarray, np.ndarray, np.ndarray]]
          ) -> dict[str, np.ndarray]:
    data = {
        "boards": np.concatenate([data["boards"], *(n[0] for n in new)]),
        "targets": np.concatenate([data["targets"], *(n[1] for n in new)]),
        "errors": np.concatenate([data["errors"], *(n[2] for n in new)]),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp.npz")
    np.savez_compressed(temporary, **data)
    temporary.replace(path)
    return data


# -- TD from the phase's positions --------------------------------------------------------------------
def _td_task(task: tuple) -> tuple[tuple[np.ndarray, ...], int]:
    arrays, tables, kind, seed, first, games, alpha, lam = task
    from .td import train_from

    w1, b1, w2, b2 = (a.copy() for a in arrays)
    turns = 0
    # The starts: the phase's mix, chunk by chunk of the run (its self-play by the starting net).
    starts = positions(Network(*arrays), kind, games, seed + 7, first)
    for game, board in zip(range(first, first + games), starts):
        turns += train_from(w1, b1, w2, b2, tables, board, seed, game, alpha, lam)
    return (w1, b1, w2, b2), turns


def td(weights: str | Path, output: str | Path, kind: str, games: int, alpha: float = 0.005, lam: float = 0.7,
       seed: int = 1, workers: int = 1, round_games: int = 200, progress: bool = True) -> Network:
    """TD(lambda) self-play from drawn positions of ``kind`` (games end exactly at the bear-off
    tables), starting from the nets in ``weights``; the workers' weights are averaged each round.

    Self-play from the opening reaches these positions too rarely to learn them; started there,
    every game teaches them, and a race or a late hit is over in a few turns.
    """
    from ..bots import load_bearoff
    from ..bots.chooser import tables_of

    network = Network.load(weights)
    tables = tables_of(load_bearoff())
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=games, unit="game", desc=f"td {kind}", smoothing=0.05)
    done = 0
    total_turns = 0
    start = time.perf_counter()
    with Workers(workers) as pool:
        while done < games:
            share = min(round_games, math.ceil((games - done) / workers))
            tasks = [(network.arrays(), tables, kind, seed, done + w * share, share, alpha, lam) for w in range(workers)]
            results = pool.map(_td_task, tasks)
            arrays = [np.mean([r[0][i] for r in results], axis=0) for i in range(4)]
            network = Network(*arrays, meta=network.meta)
            total_turns += sum(r[1] for r in results)
            done += share * workers
            if bar is not None:
                bar.update(share * workers)
    if bar is not None:
        bar.close()
    network.meta = dict(network.meta)
    network.meta.setdefault("phases", []).append({  # type: ignore[union-attr]
        "trainer": "gammon train phase-td", "from": str(weights), "kind": kind, "games": done, "alpha": alpha,
        "lambda": lam, "seed": seed, "turns": total_turns, "seconds": round(time.perf_counter() - start, 1),
    })
    network.save(output)
    return network


# -- the fit -------------------------------------------------------------------------------------------
def siblings(network: Network, nets: set[int], count: int, seed: int
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """About ``count`` boards of the nets in ``nets``, in groups of sibling plays (the plays of one
    roll of a position from the network's self-play), none a straggler race nor a bear-off (the
    tables answer those): the boards, the network's own outputs for them, and where each group starts.

    The differences between the plays of one roll decide what a bot plays, and TD taught them
    well: its targets for siblings are consistent with each other, where rollouts' are not.
    """
    w = network.arrays()
    rng = np.random.default_rng([seed, 71])
    groups: list[np.ndarray] = []
    total = 0
    game = 50_000_000  # far from the games the data sets' positions came from
    while total < count:
        after = sample_positions(*w, seed, game, 5_000, 0.5)
        game += 400
        for board in after:
            d1, d2 = (int(d) for d in rng.integers(1, 7, 2))
            children = movegen.generate(movegen.flip_board(board), d1, d2)[0]
            kept = [c for c in children if int(net_of(c)) in nets and movegen.board_class(c) != BEAROFF
                    and not straggler(movegen.flip_board(c))]
            if len(kept) >= 2 and total < count:
                groups.append(np.array(kept, np.int8))
                total += len(kept)
    boards = np.concatenate(groups)
    starts = np.cumsum([0] + [len(g) for g in groups[:-1]])
    return boards, network.evaluate(boards), starts


def sibling_targets(values: np.ndarray, now: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """The siblings' targets: the starting net's differences between the plays of each group
    (``values``), around the group's mean now (``now``: the net's current outputs), so the group's
    level is free to follow the rolled-out positions."""
    sizes = np.diff(np.append(starts, values.shape[0]))
    shift = (np.add.reduceat(now, starts) - np.add.reduceat(values, starts)) / sizes[:, None]
    return np.clip(values + np.repeat(shift, sizes, axis=0), 0.0, 1.0)


def fit(weights: str | Path, data: list[str | Path], output: str | Path, epochs: int = 20, alpha: float = 0.05,
        alpha_final: float = 0.002, seed: int = 1, holdout: float = 0.05, progress: bool = True,
        sibling_boards: int = 0) -> Network:
    """Train the nets of ``weights`` that the data sets' positions belong to on their targets; write ``output``.

    Each position trains the net :func:`~gammon.nn.network.net_of` gives it, so a race data set
    moves only the race net, on cross-entropy (a confidently wrong output learns fastest, where
    squared error would barely move it); the step size falls geometrically over the epochs, and a
    ``holdout`` share is never trained on and measures the error per net before and after.
    About ``sibling_boards`` plays of the net's self-play (:func:`siblings`) are fitted beside
    them, to their differences only (:func:`sibling_targets`, renewed each epoch).
    """
    network = Network.load(weights)
    boards = np.concatenate([np.load(p)["boards"] for p in data])
    targets = np.concatenate([np.load(p)["targets"] for p in data])
    labelled = boards.shape[0]
    w1, b1, w2, b2 = (a.astype(np.float64) for a in network.arrays())
    rng = np.random.default_rng(seed)
    shuffled = rng.permutation(labelled)
    held = shuffled[: int(holdout * labelled)]
    used = shuffled[held.shape[0]:]
    nets = np.array([net_of(b) for b in boards])
    if sibling_boards:
        kept, values, starts = siblings(network, {int(k) for k in np.unique(nets)}, sibling_boards, seed)
        boards = np.concatenate([boards, kept])
        targets = np.concatenate([targets, values])
        used = np.concatenate([used, np.arange(labelled, boards.shape[0])])
    before = {NET_NAMES[k]: float(held_error(w1, b1, w2, b2, boards, targets, held[nets[held] == k]))
              for k in np.unique(nets)}
    history = []
    for epoch in range(epochs):
        step = alpha * (alpha_final / alpha) ** (epoch / max(1, epochs - 1))
        if sibling_boards:
            targets[labelled:] = sibling_targets(values, evaluate_boards(w1, b1, w2, b2, kept), starts)
        error = float(fit_epoch(w1, b1, w2, b2, boards, targets, rng.permutation(used), step, True))
        held_out = float(held_error(w1, b1, w2, b2, boards, targets, held))
        history.append({"epoch": epoch + 1, "alpha": step, "train_mse": error, "held_out_mse": held_out})
        if progress:
            print(f"epoch {epoch + 1}/{epochs}: alpha {step:.4g}, training mse {error:.6f}, held-out mse {held_out:.6f}",
                  flush=True)
    after = {NET_NAMES[k]: float(held_error(w1, b1, w2, b2, boards, targets, held[nets[held] == k]))
             for k in np.unique(nets)}
    fitted = Network(w1, b1, w2, b2, dict(network.meta))
    fitted.meta.setdefault("phases", []).append({  # type: ignore[union-attr]
        "trainer": "gammon train phases fit", "from": str(weights), "data": [str(p) for p in data],
        "positions": labelled, "siblings": sibling_boards, "epochs": epochs, "alpha": alpha, "alpha_final": alpha_final,
        "seed": seed, "held_out_mse_before": before, "held_out_mse_after": after, "history": history,
    })
    fitted.save(output)
    return fitted

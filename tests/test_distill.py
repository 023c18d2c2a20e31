"""The distillation data set and fit (gammon.train.distill) and the rare kinds of position (gammon.nn.kinds)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gammon import movegen
from gammon.bots.evaluator import CompositeEvaluator, load_bearoff
from gammon.bots.search import Search
from gammon.errors import DataSetError
from gammon.evaluation import equities
from gammon.nn.evaluator import NNEvaluator, default_weights_path, load_network
from gammon.nn.network import Network
from gammon.nn import kinds
from gammon.train import distill
from gammon.train.rollouts import self_play_where

WEIGHTS = str(default_weights_path())


def _checkers(board: np.ndarray) -> tuple[int, int]:
    return int(board[board > 0].sum()), int(-board[board < 0].sum())


def test_a_chunks_positions_depend_only_on_the_seed_and_the_chunk() -> None:
    network = Network.load(WEIGHTS)
    first = distill.positions(network, 3, 7)
    assert first.shape == (distill.CHUNK, 26)
    assert (distill.positions(network, 3, 7) == first).all()
    assert not (distill.positions(network, 3, 8) == first).all()
    for board in first:
        mine, theirs = _checkers(board)
        assert mine <= 15 and theirs <= 15


def _board(points: dict[int, int], bar: int = 0, their_bar: int = 0) -> np.ndarray:
    board = np.zeros(26, np.int8)
    for point, count in points.items():
        board[point] = count
    board[25], board[0] = bar, -their_bar
    return board


def test_the_rare_kinds_recognise_their_positions() -> None:
    # Both sides hold five-point primes: ours 4-8, theirs (in our numbering) 17-21.
    primes = _board({4: 2, 5: 2, 6: 2, 7: 2, 8: 2, 24: 2, 13: 3,
                     17: -2, 18: -2, 19: -2, 20: -2, 21: -2, 1: -2, 12: -3})
    assert kinds.prime_against_prime(primes)
    assert not kinds.backgame(primes)
    # We hold their 1- and 3-points (our 24 and 22) and trail by 127 pips: a backgame, seen from either side.
    back = _board({24: 2, 22: 2, 13: 5, 8: 3, 6: 3, 23: -3, 21: -3, 20: -3, 19: -3, 18: -3})
    assert kinds.backgame(back)
    assert kinds.backgame(movegen.flip_board(back))
    assert not kinds.prime_against_prime(back)
    # Every one of our checkers home, one of theirs still on our 2-point: bearing off against contact.
    bearing = _board({1: 3, 3: 3, 4: 3, 5: 3, 6: 3, 2: -1, 19: -14})
    assert kinds.bearing_off_against_contact(bearing)
    assert not kinds.bearing_off_against_contact(back)
    # One of our checkers on their side behind four of their points 2-11: contained.
    trapped = _board({23: 1, 8: 3, 6: 5, 13: 6, 22: -2, 21: -2, 20: -2, 19: -2, 18: -3, 12: -4})
    assert kinds.containment(trapped)
    network = Network.load(WEIGHTS)
    for test in kinds.RARE.values():
        found = self_play_where(network, test, 5, 1, 0, keep=0.5, stride=1000, limit=3)
        assert len(found) == 5 and all(test(board) for board in found)


@pytest.fixture(scope="module")
def small_set(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, np.ndarray]]:
    path = tmp_path_factory.mktemp("distill") / "set.npz"
    data = distill.build(path, 16, WEIGHTS, WEIGHTS, seed=4, plies=1, progress=False)
    return str(path), data


def test_a_decision_keeps_the_zero_ply_window_labelled_by_the_teacher(small_set: tuple) -> None:
    _, data = small_set
    assert data["starts"].shape[0] >= 16
    assert data["starts"][0] == 0 and (np.diff(data["starts"]) >= 2).all()
    evaluator = CompositeEvaluator(NNEvaluator(load_network(WEIGHTS)), load_bearoff())
    teacher = Search(CompositeEvaluator(NNEvaluator(load_network(WEIGHTS)), load_bearoff()))
    ends = np.append(data["starts"][1:], data["boards"].shape[0])
    for number, (start, end) in enumerate(zip(data["starts"], ends)):
        parent, (d1, d2) = data["parents"][number], data["rolls"][number]
        children = movegen.generate(parent, int(d1), int(d2))[0]
        values = equities(evaluator.evaluate_batch(children))
        group = data["boards"][start:end]
        # The window: the 0-ply choice first, every kept play a legal play within 0.16 of it.
        assert (group[0] == children[int(np.argmax(values))]).all()
        for board in group:
            assert (children == board).all(axis=1).any()
        kept = equities(data["static"][start:end].astype(float))
        assert kept[0] == pytest.approx(values.max(), abs=1e-6)
        assert (kept >= kept[0] - distill.WITHIN - 1e-6).all() and end - start <= distill.WINDOW
        assert np.allclose(data["teacher"][start:end], teacher.value(group, 1), atol=1e-6)


def test_a_data_set_grows_where_it_stopped_and_refuses_other_settings(small_set: tuple, tmp_path) -> None:
    _, whole = small_set
    path = tmp_path / "grown.npz"
    first = distill.build(path, 1, WEIGHTS, WEIGHTS, seed=4, plies=1, progress=False)
    grown = distill.build(path, first["starts"].shape[0] + 1, WEIGHTS, WEIGHTS, seed=4, plies=1, progress=False)
    assert grown["starts"].shape[0] > first["starts"].shape[0]
    rows = min(grown["boards"].shape[0], whole["boards"].shape[0])
    assert (grown["boards"][:rows] == whole["boards"][:rows]).all()
    assert (grown["chunks"] == np.arange(grown["chunks"].shape[0])).all()
    earlier = distill.first_decisions(grown, first["starts"].shape[0])
    for name in ("boards", "teacher", "static", "starts", "parents", "rolls"):
        assert (earlier[name] == first[name]).all()
    with pytest.raises(DataSetError, match="seed 4, not 5"):
        distill.build(path, 9, WEIGHTS, WEIGHTS, seed=5, plies=1, progress=False)
    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"not an archive")
    with pytest.raises(DataSetError, match="not a distillation data set"):
        distill.load(broken)


def test_the_fits_gradient_is_the_objectives(small_set: tuple) -> None:
    _, data = small_set
    groups = distill.Groups.of(data)
    network = Network.load(WEIGHTS)
    network = Network(*(a.astype(np.float64) for a in network.arrays()))
    decisions = np.arange(groups.starts.shape[0])
    taught = equities(groups.teacher)
    disagree = np.array([i % 2 == 0 for i in decisions])
    settings = (taught, disagree, 20.0, 3.0, 1.0)
    grads = distill._gradients(network, groups, decisions, *settings)
    rng = np.random.default_rng(0)
    for which in range(4):
        array = network.arrays()[which]
        nonzero = np.argwhere(np.abs(grads[which]) > 1e-6)
        for index in nonzero[rng.choice(len(nonzero), 3, replace=False)]:
            index = tuple(index)
            saved = array[index]
            array[index] = saved + 1e-6
            up = distill.objective(network, groups, decisions, *settings)
            array[index] = saved - 1e-6
            down = distill.objective(network, groups, decisions, *settings)
            array[index] = saved
            assert grads[which][index] == pytest.approx((up - down) / 2e-6, rel=1e-3, abs=1e-8)


def test_a_fit_lowers_its_objective_and_records_the_teacher_loss(small_set: tuple, tmp_path) -> None:
    path, data = small_set
    output = tmp_path / "fitted.npz"
    groups = distill.Groups.of(data)
    decisions = np.arange(groups.starts.shape[0])
    taught = equities(groups.teacher)
    disagree = np.zeros(decisions.size, bool)
    start = Network.load(WEIGHTS)
    before = distill.objective(start, groups, decisions, taught, disagree, 20.0, 0.0, 1.0)
    fitted = distill.fit(WEIGHTS, [path], output, epochs=20, alpha=0.002, boost=0.0, holdout=0.2, progress=False)
    assert distill.objective(fitted, groups, decisions, taught, disagree, 20.0, 0.0, 1.0) < before
    record = Network.load(output).meta["distill"][-1]
    assert record["decisions"] == decisions.size and record["held_out"] >= 1
    assert record["held_out_teacher_loss_before"] >= 0 and len(record["history"]) == 20
    assert all(0 <= epoch["choices_changed"] <= record["held_out"] for epoch in record["history"])
    # The phase nets' rolled-out positions fitted beside: from a net that knows nothing, the race
    # net's cross-entropy on them falls further than the decisions alone take it.
    race = Path(__file__).parent.parent / "training" / "phases" / "race.npz"
    blank = tmp_path / "blank.npz"
    Network.random(hidden=16, seed=3).save(blank)
    rolled = distill._rolled_out([race])
    sample = np.arange(0, rolled.starts.shape[0], 40)
    never = np.zeros(rolled.starts.shape[0], bool)
    level = lambda net: distill.objective(net, rolled, sample, equities(rolled.teacher), never, 0.0, 0.0, 1.0)  # noqa: E731
    beside = distill.fit(blank, [path], tmp_path / "beside.npz", epochs=3, alpha=0.01, holdout=0.2,
                         rollouts=[race], progress=False)
    alone = distill.fit(blank, [path], tmp_path / "alone.npz", epochs=3, alpha=0.01, holdout=0.2, progress=False)
    assert level(beside) < level(alone)
    assert Network.load(tmp_path / "beside.npz").meta["distill"][-1]["rollouts"] == [str(race)]
    # A fit of the first decisions only is the fit of the data set as it was then.
    with pytest.raises(DataSetError, match="one count per data set"):
        distill.fit(WEIGHTS, [path], tmp_path / "x.npz", epochs=1, first=[3, 4], progress=False)
    again = distill.fit(WEIGHTS, [path], tmp_path / "first.npz", epochs=2, holdout=0.2, first=[8], progress=False)
    assert again.meta["distill"][-1]["first"] == [8] and again.meta["distill"][-1]["decisions"] == 8


def test_the_commands_say_what_is_wrong(tmp_path) -> None:
    command = [sys.executable, "-m", "gammon", "train"]
    bad_sample = subprocess.run(command + ["distill-data", "--data", str(tmp_path / "d.npz"), "--decisions", "2",
                                           "--pupil", WEIGHTS, "--teacher", WEIGHTS, "--sample", "2"],
                                capture_output=True, text=True, timeout=120)
    assert bad_sample.returncode == 1 and "--sample must be between 0 and 1" in bad_sample.stderr
    assert "Traceback" not in bad_sample.stderr
    missing = subprocess.run(command + ["distill-data", "--data", str(tmp_path / "d.npz"), "--decisions", "2",
                                        "--pupil", str(tmp_path / "none.npz"), "--teacher", WEIGHTS],
                             capture_output=True, text=True, timeout=120)
    assert missing.returncode == 1 and "--pupil" in missing.stderr and "Traceback" not in missing.stderr
    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"junk")
    fit = subprocess.run(command + ["distill-fit", str(broken), "--weights", WEIGHTS,
                                    "--output", str(tmp_path / "out.npz")], capture_output=True, text=True, timeout=120)
    assert fit.returncode == 1 and "not a distillation data set" in fit.stderr and "Traceback" not in fit.stderr

"""`gammon train td`: a run is fixed by its settings, and a resumed run ends where a straight one does."""

from __future__ import annotations

import json

from pathlib import Path

import numpy as np
import pytest

from gammon.cli import main
from gammon.nn.network import Network
from gammon.train.td import Settings, TrainingStateError, train

TINY = Settings(seed=3, hidden=4, workers=1, round_games=2, eval_every=4, eval_games=2)


def test_resumed_run_equals_straight_run(tmp_path) -> None:
    straight = train(tmp_path / "a", 8, TINY, progress=False)
    train(tmp_path / "b", 4, TINY, progress=False)
    resumed = train(tmp_path / "b", 8, TINY, progress=False)
    for x, y in zip(straight.arrays(), resumed.arrays()):
        np.testing.assert_array_equal(x, y)
    log = [json.loads(line) for line in (tmp_path / "b" / "td.log").read_text().splitlines()]
    assert [entry["games"] for entry in log] == [4, 8]
    best = Network.load(tmp_path / "b" / "best.npz")
    assert best.meta["trainer"] == "gammon train td" and best.meta["games"] in (4, 8)


def test_resume_with_other_settings_is_refused(tmp_path) -> None:
    train(tmp_path, 2, TINY, progress=False)
    other = Settings(**{**TINY.__dict__, "alpha": 0.5})
    with pytest.raises(TrainingStateError, match="settings"):
        train(tmp_path, 4, other, progress=False)


def test_cli_trains(tmp_path, capsys) -> None:
    args = ["train", "td", "--games", "4", "--output", str(tmp_path), "--hidden", "4", "--workers", "1",
            "--round-games", "2", "--eval-every", "4", "--eval-games", "2"]
    assert main(args) == 0
    assert (tmp_path / "best.npz").exists() and (tmp_path / "td.log").exists()
    assert "4 games" in capsys.readouterr().out


def test_rollouts_refinement(tmp_path) -> None:
    from gammon.train import rollouts

    start = Network.random(4, seed=1)
    start.save(tmp_path / "start.npz", dtype=np.float64)
    boards = rollouts.sample_positions(*start.arrays(), 5, 0, 6, 0.5)
    assert boards.shape == (6, 26) and (boards[:, 1:25] != 0).any()
    targets = rollouts.rollout(*start.arrays(), boards[:2], 5, 0, 3, 0)
    assert targets.shape == (2, 5) and ((targets >= 0) & (targets <= 1)).all()
    assert (targets[:, 1] <= targets[:, 0]).all() and (targets[:, 3] <= 1 - targets[:, 0] + 1e-12).all()
    args = ["train", "rollouts", "--weights", str(tmp_path / "start.npz"), "--output", str(tmp_path / "r.npz"),
            "--positions", "10", "--trials", "2", "--epochs", "1", "--workers", "1"]
    assert main(args) == 0
    refined = Network.load(tmp_path / "r.npz")
    assert refined.meta["refined"]["positions"] == 10
    assert not np.array_equal(refined.w1.astype(np.float32), start.w1.astype(np.float32))


def test_a_rollout_truncated_after_one_play_with_every_roll_is_the_one_ply_value() -> None:
    """36 trials, one for each ordered first roll, stopped after the reply: the net's 1-ply
    value of the board as the search computes it (the search's own code, another route)."""
    from gammon.bots.search import Search
    from gammon.nn.evaluator import NNEvaluator, load_network
    from gammon.train import rollouts

    # A committed net no training changes (the shipped one before issue 38): the self-play's choice
    # (train.td._choose) clips to consistent outputs but does not zero the outcomes a board makes
    # impossible, as the search does, so a net with a near tie there can reply otherwise.
    network = load_network(Path(__file__).parent.parent / "training" / "distill" / "round0.npz")
    arrays = tuple(a.astype(np.float64) for a in network.arrays())
    boards = rollouts.sample_positions(*arrays, 9, 0, 40, 0.2)
    rolled = rollouts.rollout(*arrays, boards, 4, 0, 36, 1)
    searched = Search(NNEvaluator(network)).value(boards, 1)
    assert np.allclose(rolled, searched, atol=1e-5)
    deeper = rollouts.rollout(*arrays, boards, 4, 0, 72, 2)  # another depth, not the same numbers
    assert not np.allclose(deeper, rolled, atol=1e-3)


def test_a_widened_net_answers_as_before_until_trained(tmp_path) -> None:
    from gammon.train import rollouts

    start = Network.random(8, seed=2)
    wide = start.widen(20, seed=3)
    assert wide.hidden == 20
    boards = rollouts.sample_positions(*start.arrays(), 5, 0, 30, 0.5)
    assert np.allclose(start.evaluate(boards), wide.evaluate(boards), atol=1e-12)
    with pytest.raises(ValueError, match="cannot be widened"):
        wide.widen(10)
    start.save(tmp_path / "start.npz", dtype=np.float64)
    args = ["train", "rollouts", "--weights", str(tmp_path / "start.npz"), "--output", str(tmp_path / "w.npz"),
            "--positions", "200", "--trials", "36", "--truncate", "1", "--hidden", "12", "--epochs", "2",
            "--alpha", "0.05", "--alpha-final", "0.01", "--workers", "1"]
    assert main(args) == 0
    refined = Network.load(tmp_path / "w.npz")
    info = refined.meta["refined"]
    assert refined.hidden == 12 and info["truncate"] == 1 and info["alpha_final"] == 0.01
    assert len(info["mse_by_epoch"]) == 2 and len(info["held_out_mse_by_epoch"]) == 3
    assert info["held_out_mse_by_epoch"][-1] < info["held_out_mse_by_epoch"][0]  # it learnt, off the training set


def test_second_phase_starts_from_given_weights(tmp_path) -> None:
    first = train(tmp_path / "a", 4, TINY, progress=False)
    second = Settings(**{**TINY.__dict__, "alpha": 0.01, "init": str(tmp_path / "a" / "state.npz")})
    after = train(tmp_path / "b", 2, second, progress=False)
    assert np.abs(after.w1 - first.w1).max() < 0.05  # small steps away from phase 1's weights
    assert not np.array_equal(after.w1, first.w1)
    narrower = Settings(**{**second.__dict__, "hidden": TINY.hidden - 1})
    with pytest.raises(TrainingStateError, match="hidden units"):
        train(tmp_path / "c", 2, narrower, progress=False)
    wider = Settings(**{**second.__dict__, "hidden": TINY.hidden + 3})  # phase 1's net, widened, goes on
    grown = train(tmp_path / "d", 2, wider, progress=False)
    assert grown.hidden == TINY.hidden + 3
    assert np.abs(grown.w1[:, :, :TINY.hidden] - first.w1).max() < 0.05


def test_average_of_snapshots(tmp_path) -> None:
    a, b = Network.random(4, seed=1), Network.random(4, seed=2)
    a.save(tmp_path / "a.npz", dtype=np.float64)
    b.save(tmp_path / "b.npz", dtype=np.float64)
    assert main(["train", "average", str(tmp_path / "a.npz"), str(tmp_path / "b.npz"), "--output", str(tmp_path / "m.npz")]) == 0
    mean = Network.load(tmp_path / "m.npz")
    np.testing.assert_allclose(mean.w1, (a.w1 + b.w1) / 2, atol=1e-6)
    assert mean.meta["averaged"] == ["a.npz", "b.npz"]
    Network.random(5, seed=3).save(tmp_path / "c.npz")
    assert main(["train", "average", str(tmp_path / "a.npz"), str(tmp_path / "c.npz"), "--output", str(tmp_path / "x.npz")]) == 1

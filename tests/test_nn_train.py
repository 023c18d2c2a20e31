"""`gammon train td`: a run is fixed by its settings, and a resumed run ends where a straight one does."""

from __future__ import annotations

import json

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
    targets = rollouts.rollout(*start.arrays(), boards[:2], 5, 0, 3)
    assert targets.shape == (2, 5) and ((targets >= 0) & (targets <= 1)).all()
    assert (targets[:, 1] <= targets[:, 0]).all() and (targets[:, 3] <= 1 - targets[:, 0] + 1e-12).all()
    args = ["train", "rollouts", "--weights", str(tmp_path / "start.npz"), "--output", str(tmp_path / "r.npz"),
            "--positions", "10", "--trials", "2", "--epochs", "1", "--workers", "1"]
    assert main(args) == 0
    refined = Network.load(tmp_path / "r.npz")
    assert refined.meta["refined"]["positions"] == 10
    assert not np.array_equal(refined.w1.astype(np.float32), start.w1.astype(np.float32))


def test_second_phase_starts_from_given_weights(tmp_path) -> None:
    first = train(tmp_path / "a", 4, TINY, progress=False)
    second = Settings(**{**TINY.__dict__, "alpha": 0.01, "init": str(tmp_path / "a" / "state.npz")})
    after = train(tmp_path / "b", 2, second, progress=False)
    assert np.abs(after.w1 - first.w1).max() < 0.05  # small steps away from phase 1's weights
    assert not np.array_equal(after.w1, first.w1)
    wrong = Settings(**{**second.__dict__, "hidden": 5})
    with pytest.raises(TrainingStateError, match="hidden units"):
        train(tmp_path / "c", 2, wrong, progress=False)


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

"""Duels (determinism, JSON, agreement with compiled self-play), the CLI and the trainer's resume."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gammon.duel import DuelResult, duel, game_points, play_pair
from gammon.bots import Bot
from gammon.bots.pubeval import PubevalEvaluator
from gammon.bots.simple import SimpleEvaluator, SimpleWeights
from gammon.cli import main
from gammon.train import selfplay
from gammon.train.simple import TrainingState, train


def test_duel_is_deterministic_whatever_the_workers() -> None:
    one = duel("pubeval", "random:0", 16, seed=11, workers=1)
    two = duel("pubeval", "random", 16, seed=11, workers=2)
    np.testing.assert_array_equal(one.points, two.points)
    other = duel("pubeval", "random", 16, seed=12, workers=1)
    assert not np.array_equal(one.points, other.points)
    assert one.ppg > 1.5


def test_duplicate_games_mirror_for_identical_players() -> None:
    result = duel("pubeval", "pubeval", 10, seed=3, workers=1)
    assert result.ppg == 0.0 and result.points.reshape(-1, 2).sum(axis=1).tolist() == [0] * 5


def test_python_games_match_compiled_self_play() -> None:
    # Same dice streams, same 0-ply choices: the Python game loop and the numba one agree.
    weights = SimpleWeights.load()
    a = Bot(PubevalEvaluator())
    b = Bot(SimpleEvaluator(weights))
    python = [p for k in range(6) for p in play_pair(a, b, 5, k)]
    kinds = np.array([selfplay.PUBEVAL, selfplay.SIMPLE])
    blocks = np.stack([selfplay.pubeval_block(), selfplay.simple_block(weights.array())])
    assert python == selfplay.duplicate_match(kinds, blocks, 5, 0, 6).tolist()


def test_duel_result_statistics() -> None:
    result = DuelResult("a", "b", 0, np.array([1, -1, 2, 1, -3, 1]))
    assert result.ppg == pytest.approx(1 / 6)
    low, high = result.ci95
    assert low < result.ppg < high
    data = result.as_dict()
    assert (data["a_wins"], data["a_gammons"], data["b_wins"], data["b_backgammons"]) == (4, 1, 2, 1)


def test_game_points() -> None:
    board = np.zeros(26, np.int8)
    board[20] = -15
    assert game_points(board) == 2
    board[20], board[2] = -14, -1
    assert game_points(board) == 3
    board[2] = 0
    assert game_points(board) == 1


def test_duel_command_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["duel", "pubeval", "random", "--games", "4", "--seed", "2", "--workers", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games"] == 4 and len(data["ci95"]) == 2
    assert isinstance(data["ppg"], float) and data["ci95"][0] <= data["ppg"] <= data["ci95"][1]
    assert data["a"] == "pubeval" and data["b"] == "random"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["duel", "pubeval", "random", "--games", "3"], "even number"),
        (["duel", "pubeval", "nobody"], "unknown player 'nobody'"),
        (["hint", "4HPwATDgc/ABMA", "3", "1", "--player", "pubeval:7"], "ply must be"),
    ],
)
def test_commands_reject_bad_arguments(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 1
    assert message in capsys.readouterr().err


def test_hint_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["hint", "4HPwATDgc/ABMA", "3", "1", "--player", "pubeval", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["plays"][0]["play"] == "8/5 6/5" and data["plays"][0]["loss"] == 0.0
    assert len(data["plays"]) == 16
    assert main(["hint", "4HPwATDgc/ABMA", "31", "--player", "pubeval:1", "--limit", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 5 and lines[1].lstrip().startswith("1.")
    assert lines[4].startswith("Depths: ") and "at 1-ply" in lines[4]  # pubeval:1 takes only the best deeper


def test_training_resumes_to_the_same_result(tmp_path) -> None:
    straight, _ = train(tmp_path / "a.json", iterations=4, games=40, seed=3, progress=False, calibration_games=40)
    train(tmp_path / "b.json", iterations=2, games=40, seed=3, progress=False, calibration_games=40)
    resumed, weights = train(tmp_path / "b.json", iterations=4, games=40, seed=3, progress=False, calibration_games=40)
    assert resumed.weights == straight.weights and resumed.iteration == 4
    assert TrainingState.load(tmp_path / "b.json").iteration == 4
    assert SimpleWeights.from_json(weights.to_json()).values == tuple(resumed.weights)
    with pytest.raises(ValueError, match="seed 3"):
        train(tmp_path / "b.json", iterations=5, games=40, seed=4, progress=False)

"""What a new user hit, one test per fault: a clear message and an exit status, never a traceback."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from gammon.cli import batch, main
from gammon.duel import MatchDuelResult
from gammon.errors import NotationError
from gammon.state import GameState

JACOBY_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:1:0:10"  # money, the Jacoby rule


def run(argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        stdin: str = "") -> tuple[int, str, str]:
    """``gammon ARGV`` in process; an argparse refusal (SystemExit) gives its status too."""
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    try:
        status = main(argv)
    except SystemExit as stop:
        status = stop.code
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return status, out, err


# -- files and folders ----------------------------------------------------------------------------------
def test_bearoff_build_makes_a_missing_out_folder(tmp_path: Path, capsys, monkeypatch) -> None:
    out = tmp_path / "not" / "yet"
    status, _, err = run(["bearoff", "build", "--onesided", "2", "--twosided", "2", "--out", str(out), "--quiet"],
                         capsys, monkeypatch)
    assert status == 0, err
    assert (out / "onesided-2x15.bearoff").is_file() and (out / "twosided-6x2.bearoff").is_file()


def test_bearoff_build_refuses_an_out_that_is_a_file(tmp_path: Path, capsys, monkeypatch) -> None:
    taken = tmp_path / "tables"
    taken.write_text("mine")
    status, _, err = run(["bearoff", "build", "--onesided", "2", "--out", str(taken), "--quiet"], capsys, monkeypatch)
    assert status == 1
    assert f"--out {taken}: a file, not a folder" in err
    assert taken.read_text() == "mine"


def test_train_simple_makes_a_missing_state_folder(tmp_path: Path, capsys, monkeypatch) -> None:
    state, output = tmp_path / "runs" / "state.json", tmp_path / "weights" / "simple.json"
    status, out, err = run(["train", "simple", "--iterations", "1", "--games", "2", "--calibration-games", "2",
                            "--state", str(state), "--output", str(output)], capsys, monkeypatch)
    assert status == 0, err
    assert state.is_file() and output.is_file() and "1 iterations" in out


@pytest.mark.parametrize("where, message", [("file/state.json", "is a file, not a folder"),
                                            (".", "is a folder")])
def test_train_simple_refuses_a_state_it_cannot_write(where: str, message: str, tmp_path: Path, capsys,
                                                      monkeypatch) -> None:
    (tmp_path / "file").write_text("")
    monkeypatch.chdir(tmp_path)
    status, _, err = run(["train", "simple", "--state", where], capsys, monkeypatch)
    assert status == 1 and f"--state {where}: " in err and message in err


def test_train_simple_names_a_state_file_that_is_not_one(tmp_path: Path, capsys, monkeypatch) -> None:
    state = tmp_path / "state.json"
    state.write_text("not json")
    status, _, err = run(["train", "simple", "--state", str(state)], capsys, monkeypatch)
    assert status == 1 and "not a training state of gammon train simple" in err


# -- counts ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "argv, option, expected",
    [
        (["train", "simple", "--iterations", "-1"], "--iterations", "a whole number >= 1"),
        (["train", "simple", "--games", "0"], "--games", "an even whole number >= 2"),
        (["train", "simple", "--games", "3"], "--games", "an even whole number >= 2"),
        (["train", "simple", "--calibration-games", "-5"], "--calibration-games", "a whole number >= 1"),
        (["train", "simple", "--seed", "-1"], "--seed", "a whole number >= 0"),
        (["train", "td", "--games", "0"], "--games", "a whole number >= 1"),
        (["train", "td", "--games", "4", "--hidden", "0"], "--hidden", "a whole number >= 1"),
        (["train", "td", "--games", "4", "--workers", "-2"], "--workers", "a whole number >= 1"),
        (["train", "td", "--games", "4", "--round-games", "0"], "--round-games", "a whole number >= 1"),
        (["train", "td", "--games", "4", "--eval-every", "0"], "--eval-every", "a whole number >= 1"),
        (["train", "td", "--games", "4", "--eval-games", "-2"], "--eval-games", "an even whole number >= 2"),
        (["train", "td", "--games", "4", "--lambda-until", "-1"], "--lambda-until", "a whole number >= 0"),
        (["train", "rollouts", "--weights", "w", "--output", "o", "--positions", "0"], "--positions", "a whole number >= 1"),
        (["train", "rollouts", "--weights", "w", "--output", "o", "--trials", "-3"], "--trials", "a whole number >= 1"),
        (["train", "rollouts", "--weights", "w", "--output", "o", "--epochs", "-1"], "--epochs", "a whole number >= 0"),
        (["train", "rollouts", "--weights", "w", "--output", "o", "--workers", "0"], "--workers", "a whole number >= 1"),
        (["train", "simple", "--iterations", "many"], "--iterations", "a whole number >= 1"),
        (["hint", "4HPwATDgc/ABMA", "3", "1", "--limit", "0"], "--limit", "a whole number >= 1"),
    ],
)
def test_counts_below_their_minimum_are_refused_as_argparse_does(argv: list[str], option: str, expected: str,
                                                                 capsys, monkeypatch) -> None:
    status, _, err = run(argv, capsys, monkeypatch)
    assert status == 2
    assert f"error: argument {option}: expected {expected}" in err


# -- duel -----------------------------------------------------------------------------------------------
def test_match_duel_interval_stays_within_0_and_100_percent_and_counts_read_right() -> None:
    wins = np.array([1, 1, 1, 1, 1, 1, 1, 0])  # near 100 %: the normal approximation spills over
    result = MatchDuelResult("a", "b", 0, 3, wins, np.full(wins.size, 2))
    low, high = result.ci95
    assert 0.0 <= low <= result.win_rate <= high == 1.0
    assert "[95% CI" in result.summary() and "100.0%]" in result.summary()
    assert "b: 1 match\n" in result.summary() and "a: 7 matches" in result.summary()
    assert json.loads(result.to_json())["ci95"][1] == 1.0


def test_duel_match_command_with_one_pair(capsys, monkeypatch) -> None:
    status, out, _ = run(["duel", "pubeval", "random", "--match", "1", "--games", "2", "--workers", "1"],
                         capsys, monkeypatch)
    assert status == 0
    interval = out.split("[95% CI ")[1].split("]")[0]
    low, high = (float(x.rstrip("%")) for x in interval.split(", "))
    assert 0.0 <= low <= high <= 100.0


def test_duel_json_with_one_pair_of_games_is_strict_json(capsys, monkeypatch) -> None:
    status, out, _ = run(["duel", "pubeval", "random", "--games", "2", "--workers", "1", "--json"], capsys, monkeypatch)

    def refuse(constant: str) -> None:
        raise ValueError(f"{constant} is not JSON")

    assert status == 0 and json.loads(out, parse_constant=refuse)["ci95"] == [None, None]


# -- hint -----------------------------------------------------------------------------------------------
def test_hint_shows_each_plays_depth_and_says_when_they_differ(capsys, monkeypatch) -> None:
    status, out, _ = run(["hint", "4HPwATDgc/ABMA", "3", "1", "--player", "pubeval:1"], capsys, monkeypatch)
    rows = [line for line in out.splitlines() if line[:4].strip().rstrip(".").isdigit()]
    assert status == 0 and len(rows) == 16
    depths = [int(row.split("-ply")[0].split()[-1]) for row in rows]
    assert depths == sorted(depths, reverse=True) and depths[0] == 1 and depths[-1] == 0
    note = out.splitlines()[-1]
    assert note.startswith(f"Depths: {depths.count(1)} at 1-ply, {depths.count(0)} at 0-ply.")
    status, out, _ = run(["hint", "4HPwATDgc/ABMA", "3", "1", "--player", "pubeval"], capsys, monkeypatch)
    assert "Depths" not in out  # one depth: nothing to explain


# -- batch ----------------------------------------------------------------------------------------------
BATCHES = [
    (["moves", "--batch"], "4HPwATDgc/ABMA 3 1", "4HPwATDgc/ABMA 9 1", {"pid", "dice", "results"}),
    (["bearoff", "query", "--batch"], "1 0 0 0 0 0", "1 2 3", {"counts", "mean_rolls", "dist"}),
    (["cube", "--batch", "--player", "pubeval"], "4HPwATDgc/ABMA:cAkAAAAAAAAA", "4HPwATDgc/ABMA:ZZZZ",
     {"double", "take", "action"}),
]


@pytest.mark.usefixtures("bearoff_cache")
@pytest.mark.parametrize("argv, good, bad, fields", BATCHES, ids=lambda v: v[0] if isinstance(v, list) else None)
def test_batch_modes_skip_blank_lines_echo_every_input_and_share_one_error_object(
    argv: list[str], good: str, bad: str, fields: set[str], capsys, monkeypatch
) -> None:
    status, out, _ = run(argv, capsys, monkeypatch, f"{good}\n\n   \n{bad}\n{good}\r\n")
    assert status == 0
    answers = [json.loads(line) for line in out.splitlines()]
    assert [a["input"] for a in answers] == [good, bad, good]
    assert fields <= set(answers[0]) and answers[0] == answers[2]
    assert set(answers[1]) == {"error", "line", "input"} and answers[1]["line"] == 4  # blank lines counted


@pytest.mark.usefixtures("bearoff_cache")
@pytest.mark.parametrize("argv, good, bad, fields", BATCHES, ids=lambda v: v[0] if isinstance(v, list) else None)
def test_batch_modes_build_their_error_objects_with_the_one_constructor(
    argv: list[str], good: str, bad: str, fields: set[str], capsys, monkeypatch
) -> None:
    monkeypatch.setattr(batch, "error", lambda message, number, text: {"from": "gammon.cli.batch.error"})
    _, out, _ = run(argv, capsys, monkeypatch, f"{bad}\n")
    assert json.loads(out) == {"from": "gammon.cli.batch.error"}


# -- notations ------------------------------------------------------------------------------------------
def test_fibs_refuses_a_game_it_cannot_carry(capsys, monkeypatch) -> None:
    state = GameState.from_xgid(JACOBY_XGID)
    with pytest.raises(NotationError, match="Jacoby rule"):
        state.fibs()
    with pytest.raises(NotationError, match="Jacoby rule and beavers"):
        state.replace(beavers=True).fibs_board()
    status, out, err = run(["convert", JACOBY_XGID, "--to", "fibs"], capsys, monkeypatch)
    assert status == 1 and out == "" and "FIBS board" in err and "Jacoby rule" in err
    status, out, _ = run(["convert", JACOBY_XGID.replace(":1:0:10", ":0:0:10"), "--to", "fibs"], capsys, monkeypatch)
    assert status == 0 and out.startswith("board:")


# -- help -----------------------------------------------------------------------------------------------
def test_duel_help_prints_a_plain_percent_sign() -> None:
    result = subprocess.run([sys.executable, "-m", "gammon", "duel", "--help"], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0 and "Traceback" not in result.stderr
    assert "95% confidence" in " ".join(result.stdout.split()) and "%%" not in result.stdout


@pytest.mark.parametrize("command", [["convert"], ["train"], ["train", "simple"], ["show"], ["moves"]])
def test_commands_have_a_description(command: list[str], capsys, monkeypatch) -> None:
    status, out, _ = run([*command, "--help"], capsys, monkeypatch)
    assert status == 0
    description = out.split("\n\n")[1]
    assert not description.startswith(("positional arguments", "options")) and len(description) > 20

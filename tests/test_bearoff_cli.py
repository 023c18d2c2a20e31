"""``gammon bearoff build | show | query`` from the shell's side."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from gammon import Position
from gammon.bearoff import onesided
from gammon.cli import main


def _run(
    argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, stdin: str = ""
) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.usefixtures("bearoff_cache")
def test_batch_query_answers_every_line(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [
        "1 0 0 0 0 0",
        "0,0,0,0,0,1",
        "[0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1]",
        "1 2 3",
        "a b c d e f",
        "",
        "0 0 0 0 0 16",
        "0 0 0 0 0 -1",
        "3 3 3 3 3 0 0 0 0 0 0 15",
        "0 3 0 4 2 5",
    ]
    status, out, _ = _run(["bearoff", "query", "--batch"], capsys, monkeypatch, "\n".join(lines) + "\n")
    assert status == 0
    answers = [json.loads(line) for line in out.splitlines()]
    assert [a["input"] for a in answers] == [line for line in lines if line]  # the blank line is skipped
    results = dict(zip([n for n, line in enumerate(lines) if line], answers))  # by input line, from 0
    assert results[0] == {
        "counts": [1, 0, 0, 0, 0, 0],
        "mean_rolls": 1.0,
        "dist": {"1": 1.0},
        "mean_rolls_first_off": 0.0,
        "dist_first_off": {"0": 1.0},
        "input": "1 0 0 0 0 0",
    }
    assert abs(results[1]["dist"]["1"] - 27 / 36) < 2e-5
    pair = results[2]
    assert abs(pair["p_win"] - 13 / 16) < 2e-5
    assert abs(pair["cubeless_equity"] - (2 * pair["p_win"] - 1)) < 1e-9
    for key in ("cubeful_equity_owned", "cubeful_equity_centred", "cubeful_equity_opponent_owns"):
        assert -1 <= pair[key] <= 1
    for number in (3, 4, 6, 7):
        assert set(results[number]) == {"error", "line", "input"} and results[number]["line"] == number + 1
    assert "6 or 12" in results[3]["error"] and "whole numbers" in results[4]["error"]
    assert "16 checkers" in results[6]["error"] and "negative" in results[7]["error"]
    race = results[8]  # outside the two-sided table: the one-sided estimate, no cubeful values
    assert race["method"] == "one-sided" and race["cubeful_equity_centred"] is None and 0 <= race["p_win"] <= 1
    # A vector of GNU Backgammon's (first-off distribution included).
    assert abs(results[9]["mean_rolls"] - 8.647608) < 1e-3 and abs(results[9]["dist"]["9"] - 0.3280537) < 2e-5


@pytest.mark.usefixtures("bearoff_cache")
def test_single_query_and_errors(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    status, out, _ = _run(["bearoff", "query", "0", "0", "0", "0", "0", "1"], capsys, monkeypatch)
    assert status == 0 and json.loads(out)["mean_rolls"] == pytest.approx(1.25, abs=1e-4)
    status, out, _ = _run(["bearoff", "query", "7"], capsys, monkeypatch)
    assert status == 1 and "error" in json.loads(out)
    status, _, err = _run(["bearoff", "query"], capsys, monkeypatch)
    assert status == 1 and "no counts" in err


@pytest.mark.usefixtures("bearoff_cache")
def test_show_prints_rolls_and_winning_chance(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    position = Position.from_checkers([1, 2, 3] + [0] * 22, [0, 1, 1] + [0] * 22)
    status, out, _ = _run(["bearoff", "show", position.position_id()], capsys, monkeypatch)
    assert status == 0
    assert "expected rolls 2.9763" in out and "wins 6.41% (exact, two-sided table)" in out
    assert "centred cube:" in out
    race = Position.from_checkers([3, 3, 3, 3, 3] + [0] * 20, [0, 1, 1, 2] + [0] * 21)
    status, out, _ = _run(["bearoff", "show", race.position_id()], capsys, monkeypatch)
    assert status == 0 and "one-sided approximation" in out and "rolls to first off" in out
    status, _, err = _run(["bearoff", "show", Position().position_id()], capsys, monkeypatch)
    assert status == 1 and "not a bear-off position" in err
    status, _, err = _run(["bearoff", "show", "not-a-position"], capsys, monkeypatch)
    assert status == 1 and "POSITION" in err


def test_build_into_a_folder_and_resume_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    status, out, _ = _run(
        ["bearoff", "build", "--onesided", "2", "--twosided", "2", "--out", str(tmp_path), "--quiet"],
        capsys,
        monkeypatch,
    )
    assert status == 0
    assert (tmp_path / "onesided-2x15.bearoff").exists() and (tmp_path / "twosided-6x2.bearoff").exists()
    status, out, _ = _run(
        ["bearoff", "build", "--onesided", "2", "--out", str(tmp_path), "--quiet"], capsys, monkeypatch
    )
    assert status == 0 and "already built" in out

    def interrupted(*args: object, **kwargs: object) -> Path:
        raise KeyboardInterrupt

    monkeypatch.setattr(onesided, "build", interrupted)
    status, _, err = _run(
        ["bearoff", "build", "--onesided", "3", "--out", str(tmp_path), "--quiet"], capsys, monkeypatch
    )
    assert status == 130 and "resume" in err
    status, _, err = _run(["bearoff", "build", "--onesided", "11", "--out", str(tmp_path)], capsys, monkeypatch)
    assert status == 1 and "--onesided 11" in err


def test_query_reads_tables_from_a_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    status, _, err = _run(
        ["bearoff", "query", "--tables", str(tmp_path), "1", "0", "0", "0", "0", "0"], capsys, monkeypatch
    )
    assert status == 1 and "no such bear-off table" in err


@pytest.mark.usefixtures("bearoff_cache")
def test_a_race_with_a_side_already_off_is_refused(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 13: no checkers on either side was answered p_win 1.0."""
    lines = ["0 0 0 0 0 0 0 0 0 0 0 0", "0 0 0 0 0 0 1 0 0 0 0 0", "1 0 0 0 0 0 0 0 0 0 0 0", "0 0 0 0 0 0"]
    status, out, _ = _run(["bearoff", "query", "--batch"], capsys, monkeypatch, "\n".join(lines) + "\n")
    answers = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and len(answers) == 4
    assert all("no checkers left" in a["error"] for a in answers[:3])
    assert answers[3]["mean_rolls"] == 0.0  # one side alone, all off: nothing left to roll

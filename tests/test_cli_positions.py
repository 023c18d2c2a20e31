"""``gammon show``, ``convert`` and ``moves``, run in-process; the batch mode against the oracle."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from gammon import Position
from gammon.cli import main
from gammon.cli import positions

VECTORS = Path(__file__).parent / "vectors" / "legal_plays.jsonl"
OPENING_BPN = "b4E1C3eE3c1e4B-w0b0-w31-n10-0:0:7"


def run(args: list[str], capsys: pytest.CaptureFixture[str], stdin: str = "") -> tuple[int, str, str]:
    old = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        status = main(args)
    finally:
        sys.stdin = old
    out, err = capsys.readouterr()
    return status, out, err


def without_input(out: str, inputs: list[str]) -> list[str]:
    """The answers of ``out`` as the vectors write them: each echoes its line as input, the rest compact."""
    answers = [json.loads(line) for line in out.splitlines()]
    assert [a.pop("input") for a in answers] == inputs
    return [json.dumps(a, separators=(",", ":")) for a in answers]


def test_batch_matches_the_oracle(capsys: pytest.CaptureFixture[str]) -> None:
    expected = VECTORS.read_text().splitlines()
    lines = [json.loads(line) for line in expected]
    inputs = [f"{item['pid']} {item['dice'][0]} {item['dice'][1]}" for item in lines]
    status, out, err = run(["moves", "--batch"], capsys, "".join(f"{line}\n" for line in inputs))
    assert status == 0 and err == ""
    assert without_input(out, inputs) == expected


def test_batch_reads_json_lines_too(capsys: pytest.CaptureFixture[str]) -> None:
    expected = VECTORS.read_text().splitlines()[:500]
    status, out, _ = run(["moves", "--batch"], capsys, "\n".join(expected) + "\n")
    assert status == 0 and without_input(out, expected) == expected


def test_batch_bad_lines_are_reported_and_skipped(capsys: pytest.CaptureFixture[str]) -> None:
    stdin = "\n".join(
        [
            "4HPwATDgc/ABMA 3 1",
            "garbage",
            "4HPwATDgc/ABM! 3 1",
            "4HPwATDgc/ABMA 7 1",
            "4HPwATDgc/ABMA 3 x",
            "////////////// 3 1",  # 80 one-bits: too many checkers
            "",
            '{"pid": "4HPwATDgc/ABMA", "dice": [6]}',
            "{not json",
            "4HPwATDgc/ABMA 6 6",
        ]
    )
    status, out, _ = run(["moves", "--batch"], capsys, stdin)
    rows = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and len(rows) == 9
    assert rows[0]["pid"] == "4HPwATDgc/ABMA" and len(rows[0]["results"]) == 16
    errors = rows[1:8]
    assert [e["line"] for e in errors] == [2, 3, 4, 5, 6, 8, 9]
    assert errors[0]["input"] == "garbage" and errors[0]["error"].startswith("line:")
    assert errors[1]["error"].startswith("pid:") and errors[4]["error"].startswith("pid:")
    assert errors[2]["error"].startswith("d1:") and errors[3]["error"].startswith("d2:")
    assert errors[5]["error"].startswith("dice:") and errors[6]["error"].startswith("line:")
    assert rows[8]["dice"] == [6, 6] and len(rows[8]["results"]) == 11


def test_batch_pass_gives_the_input(capsys: pytest.CaptureFixture[str]) -> None:
    values = [0] * 26
    values[25], values[13] = 1, 14
    for p in range(19, 25):
        values[p] = -2
    values[1] = -3
    pid = Position(values).position_id()
    _, out, _ = run(["moves", "--batch"], capsys, f"{pid} 6 5\n")
    assert json.loads(out) == {"pid": pid, "dice": [6, 5], "results": [pid], "input": f"{pid} 6 5"}


def test_batch_chunks_keep_order(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(positions, "BATCH_CHUNK", 7)
    expected = VECTORS.read_text().splitlines()[:40]
    lines = [json.loads(line) for line in expected]
    stdin = "".join(f"{i['pid']} {i['dice'][0]} {i['dice'][1]}\n" + ("bad\n" if n % 5 == 0 else "") for n, i in enumerate(lines))
    _, out, _ = run(["moves", "--batch"], capsys, stdin)
    good = "\n".join(line for line in out.splitlines() if '"error"' not in line)
    inputs = [f"{i['pid']} {i['dice'][0]} {i['dice'][1]}" for i in lines]
    assert without_input(good, inputs) == expected and out.count('"error"') == 8


def test_moves_table(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["moves", "4HPwATDgc/ABMA", "3", "1"], capsys)
    lines = out.splitlines()
    assert status == 0 and lines[0] == "White (X) to play 3-1: 16 legal plays"
    after = Position().apply("8/5 6/5").position_id()
    assert any(line.split()[1:] == ["8/5", "6/5", after] for line in lines[2:])
    assert len(lines) == 18


def test_moves_uses_the_positions_dice(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["moves", OPENING_BPN], capsys)
    assert status == 0 and out.startswith("White (X) to play 3-1: 16 legal plays")


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["moves", "4HPwATDgc/ABMA", "3"], "DIE"),
        (["moves", "4HPwATDgc/ABMA", "3", "9"], "DIE"),
        (["moves", "nonsense", "3", "1"], "POSITION"),
        (["moves"], "POSITION"),
        (["moves", "--batch", "4HPwATDgc/ABMA"], "--batch"),
        (["show", "4HPwATDgc/ABM!"], "POSITION"),
        (["convert", "xyz", "--to", "bpn"], "POSITION"),
    ],
)
def test_errors_name_the_argument(args: list[str], field: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(args, capsys)
    assert status == 1 and out == ""
    assert err.startswith("gammon: ") and field in err and "Traceback" not in err


def test_show(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["show", "4HPwATDgc/ABMA"], capsys)
    assert status == 0 and "BAR" in out and out.count("pips 167") == 2
    _, plain, _ = run(["show", "4HPwATDgc/ABMA", "--plain"], capsys)
    assert "White (X): 2 checkers on the 24-point" in plain and "|" not in plain
    _, black, _ = run(["show", "4HPwATDgc/ABMA", "--perspective", "black"], capsys)
    assert "X White  (on roll)" in black.splitlines()[2]


def test_convert(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(["convert", "4HPwATDgc/ABMA", "--to", "pid"], capsys)
    assert out == "4HPwATDgc/ABMA\n"
    status, out, _ = run(["convert", OPENING_BPN, "--to", "xgid"], capsys)
    assert status == 0 and out.startswith("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:")
    status, out, _ = run(["convert", OPENING_BPN, "--to", "bpn"], capsys)
    assert status == 0 and out == OPENING_BPN + "\n"
    status, out, _ = run(["convert", OPENING_BPN, "--to", "gnubgid"], capsys)
    assert status == 0 and out.startswith("4HPwATDgc/ABMA:")
    status, out, _ = run(["convert", OPENING_BPN, "--to", "fibs"], capsys)
    assert status == 0 and out.startswith("board:")


def test_entry_point_has_no_traceback() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "gammon", "moves", "4HPwATDgc/ABMA", "3", "0"], capture_output=True, text=True
    )
    assert done.returncode == 1 and "DIE" in done.stderr and "Traceback" not in done.stderr


def test_convert_rewrites_a_sites_match_file_and_tells_what_it_accommodated(capsys, tmp_path) -> None:
    from gammon.record import MatchRecord

    source = Path(__file__).parent / "records" / "dialects" / "choue.txt"
    status, out, err = run(["convert", str(source), "--to", "mat"], capsys)
    assert status == 0
    assert MatchRecord.from_mat(out) == MatchRecord.read(source) and MatchRecord.from_mat(out).warnings == ()
    assert f"{source}: warning: game 1, line 8: 'Doubles ==> 2' read as 'Doubles => 2'" in err
    status, out, _ = run(["convert", str(source), "--to", "sgf"], capsys)
    assert status == 0 and MatchRecord.from_sgf(out) == MatchRecord.read(source)
    status, _, err = run(["convert", str(source), "--to", "xgid"], capsys)
    assert status != 0 and "--to xgid: a match file is written --to mat or sgf" in err


def test_convert_refuses_what_the_target_cannot_carry(capsys) -> None:
    beavers = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:2:0:10"
    status, _, err = run(["convert", beavers, "--to", "gnubgid"], capsys)
    assert status != 0 and "beavers" in err and "convert to xgid or bpn" in err
    status, out, _ = run(["convert", beavers, "--to", "bpn"], capsys)
    assert status == 0 and out.strip()

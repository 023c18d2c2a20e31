"""``gammon ubgi-check``: the suite's parts, a fake engine at level 0 (and broken fakes that
fail), and gammon's own engine, with gammon's player and with GNU Backgammon behind it."""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path

import pytest

from gammon.cli import main
from gammon.errors import IllegalPlayError
from gammon.position import Position
from gammon.conformance import (
    FAIL,
    PASS,
    SKIP,
    CheckReport,
    CheckResult,
    CheckSetupError,
    builtin_corpus,
    judge_play,
    read_corpus,
    run_check,
)
from gammon.state import GameState

FAKE = Path(__file__).with_name("ubgi_fake_engine.py")
#: Seconds after which a test calls an engine hung: a guard against hangs, not a speed check.
#: Level 2 asks that stop and movetime answer promptly; tests check that they answer (and
#: legally), and leave how fast to bench/.
HANG_GUARD = 60.0


def fake(*flags: str) -> str:
    return shlex.join([sys.executable, str(FAKE), *flags])


def gammon_engine(player: str) -> str:
    return shlex.join([sys.executable, "-m", "gammon", "engine", "--player", player])


def statuses(report: CheckReport) -> dict[str, str]:
    return {check.name: check.status for check in report.checks}


# -- the parts ----------------------------------------------------------------------------
def test_judge_play_is_strict() -> None:
    legal = Position().legal_plays(3, 1)
    assert str(judge_play("8/5 6/5", legal)) == "8/5 6/5"
    assert str(judge_play("8/5* 6/5", legal)) == "8/5 6/5"  # v0.2's hit marks are tolerated
    for text in ("", "8/5", "pass", "8/5 6/5 6/5", "8/4", "8/5,6/5"):
        with pytest.raises(IllegalPlayError):
            judge_play(text, legal)
    with pytest.raises(IllegalPlayError):  # UBGI writes every step: no (2)
        judge_play("24/18(2) 13/7(2)", Position().legal_plays(6, 6))


def test_builtin_corpus_is_what_it_says() -> None:
    corpus = {item.name: item for item in builtin_corpus()}
    closed = corpus["closed-board"]
    assert all(closed.state.position.legal_plays(*roll).is_pass() for roll in closed.rolls)
    bar = corpus["bar-entry"].state.position
    assert bar.legal_plays(5, 4).is_pass() and not bar.legal_plays(6, 5).is_pass()
    assert [p.ubgi() for p in corpus["larger-die"].state.position.legal_plays(6, 5)] == ["13/7"]
    assert [p.ubgi() for p in corpus["bear-off"].state.position.legal_plays(6, 5)] == ["3/off 3/off"]
    assert len(next(iter(corpus["double-sixes"].state.position.legal_plays(6, 6)))) == 4
    assert corpus["black-to-act"].state.position.turn.name == "BLACK"
    # Each goes over the wire as a GNU Backgammon ID that reads back the same.
    for item in corpus.values():
        assert GameState.from_gnubg_id(item.state.gnubg_id()) == item.state


def test_levels_add_up() -> None:
    def report(*checks: tuple[str, int | None, bool]) -> CheckReport:
        return CheckReport("x", "v0.1", [CheckResult(f"c{i}", s, "", level, optional)
                                         for i, (s, level, optional) in enumerate(checks)])

    assert report((PASS, 0, False), (SKIP, 1, False), (PASS, 2, False)).level == 0
    assert report((PASS, 0, False), (SKIP, 0, True), (PASS, 1, False), (PASS, 2, False)).level == 2
    assert report((PASS, 0, False), (FAIL, 0, True)).level == -1  # optional: may skip, not fail
    assert report((PASS, 0, False), (FAIL, None, False), (SKIP, 2, False)).level == 1  # extensions don't count
    assert report((PASS, 0, False), (FAIL, 2, False)).level == 1
    assert not report((FAIL, 0, False)).ok() and report((PASS, 0, False), (SKIP, 1, False)).ok()
    assert not report((PASS, 0, False), (SKIP, 1, False)).ok(require_level=1)


def test_read_corpus(tmp_path: Path) -> None:
    path = tmp_path / "positions.txt"
    path.write_text("# tricky\n\n4HPwATDgc/ABMA:cAkAAAAAAAAE\n" + GameState(dice=(6, 6)).bpn() + "\n")
    corpus = read_corpus(path, seed=3)
    assert [item.name for item in corpus] == ["line 3", "line 4"]
    assert all(len(item.rolls) == 3 for item in corpus) and corpus[1].rolls[0] == (6, 6)
    assert corpus[1].state.dice is None
    path.write_text("not a position\n")
    with pytest.raises(CheckSetupError, match="line 1"):
        read_corpus(path)
    with pytest.raises(CheckSetupError):
        read_corpus(tmp_path / "missing.txt")


# -- a fake engine: level 0, and broken ones ----------------------------------------------
def test_fake_engine_reaches_level_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ubgi-check", "--games", "2", fake()]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-2] == "compliance level: 0"
    assert lines[-1].startswith("checks: ") and " 0 failed" in lines[-1]
    assert all(line.split()[0] in ("PASS", "SKIP") for line in lines[:-2])
    assert "PASS handshake: 'fake-ubgi' by 'gammon tests', dialect v0.2 (proto 0.2), 2 keys" in lines
    assert any(line.startswith("SKIP cube: not supported (error unsupported_feature") for line in lines)
    assert any(line.startswith("PASS games: 2 games") for line in lines)
    # Asked for more than it does: exit 1, same report.
    assert main(["ubgi-check", "--games", "0", "--require-level", "1", fake()]) == 1


def test_json_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ubgi-check", "--games", "1", "--json", fake()]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["engine"] == fake() and report["dialect"] == "v0.2" and report["level"] == 0
    assert report["failed"] == 0 and report["passed"] + report["skipped"] == len(report["checks"])
    assert {"name", "status", "detail"} <= set(report["checks"][0])
    assert {check["status"] for check in report["checks"]} == {"pass", "skip"}


def test_illegal_moves_fail(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ubgi-check", "--games", "1", fake("--break", "illegal")]) == 1
    out = capsys.readouterr().out
    assert "FAIL corpus-larger-die: " in out and "'pass' but 1 legal plays exist" in out
    assert "FAIL games: game 1 ply 1: " in out
    assert "compliance level: -1" in out


def test_crash_on_bad_input_fails() -> None:
    report = run_check(fake("--break", "crash"), games=0)
    found = statuses(report)
    assert found["bad-input-garbage"] == FAIL and found["no-traceback"] == FAIL
    assert "killed the engine" in next(c.detail for c in report.checks if c.name == "bad-input-garbage")
    assert found["position-gnubgid"] == PASS and report.level == -1 and not report.ok()


def test_output_after_bestmove_fails_level_2_only() -> None:
    report = run_check(fake("--break", "late-info"), games=0)
    movetime = next(check for check in report.checks if check.name == "movetime")
    assert movetime.status == FAIL and "the search went on after its answer" in movetime.detail
    assert report.level == 0 and report.ok() and not report.ok(2)


def test_a_hung_engine_does_not_hang_the_suite() -> None:
    start = time.monotonic()
    report = run_check(fake("--hang-after", "25"), games=1, timeout=1.0)
    assert time.monotonic() - start < HANG_GUARD
    games = next(check for check in report.checks if check.name == "games")
    assert games.status == FAIL and "no answer within 1 s" in games.detail
    assert statuses(report)["quit"] == PASS  # a fresh engine carried on


def test_positions_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "positions.txt"
    path.write_text("\n".join([Position().apply("8/5 6/5").position_id(), GameState().xgid()]) + "\n")
    assert main(["ubgi-check", "--games", "0", "--positions", str(path), fake()]) == 0
    out = capsys.readouterr().out
    assert "PASS corpus-file: 2 positions, 6 rolls, legal plays" in out and "corpus-bar-entry" not in out


def test_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ubgi-check", str(tmp_path / "no-such-engine")]) == 2
    assert "cannot start engine" in capsys.readouterr().err
    assert main(["ubgi-check", "--positions", str(tmp_path / "missing"), fake()]) == 2
    assert main(["ubgi-check", "'unbalanced"]) == 2
    assert "Traceback" not in capsys.readouterr().err


# -- gammon's engine ----------------------------------------------------------------------
def test_gammon_engine_reaches_level_2() -> None:
    report = run_check(gammon_engine("pubeval"), games=2, stop_limit=HANG_GUARD)
    out = report.text()
    assert "FAIL" not in out and "compliance level: 2" in out


def test_gnubg_behind_gammon_engine() -> None:
    # GNU Backgammon cannot stop: gammon's engine answers stop and movetime for it (the deepest
    # setting takes seconds), with a legal play, and nothing after the answer.
    report = run_check(gammon_engine("gnubg:0"), games=1, stop_limit=HANG_GUARD)
    failures = [check.line() for check in report.checks if check.status == FAIL]
    assert failures == [] and report.dialect == "v0.1" and report.level == 2


# -- faults of an engine nobody here wrote ---------------------------------------------------
def test_the_peers_faults_are_each_reported_with_the_exchange(tmp_path: Path) -> None:
    # The peer: refuses keys it announces, takes garbage after an ID, reads a long line as
    # several commands, ignores movetime, and does not know gammon's position bpn.
    path = tmp_path / "positions.txt"
    path.write_text(Position().position_id() + "\n")
    report = run_check(fake("--peer", "--delay", "1.2"), games=0, positions=path, stop_limit=HANG_GUARD)
    found = {check.name: check for check in report.checks}
    assert found["position-bpn"].status == SKIP and "unknown_command" in found["position-bpn"].detail
    assert found["position-xgid"].status == SKIP
    garbage = found["bad-input-position-trailing-garbage"]
    assert garbage.status == FAIL and f"exchange: > position gnubgid {GameState().gnubg_id()} trailing garbage" \
        in garbage.detail and "< readyok" in garbage.detail
    long = found["long-command"]
    assert long.status == FAIL and "as if read as several commands" in long.detail
    assert long.detail.count("< error") == 2
    movetime = found["movetime"]
    assert movetime.status == FAIL and "'go role chequer movetime 200' ignored" in movetime.detail
    assert "> go role chequer movetime 200 | < bestmove" in movetime.detail
    assert found["options-defaults"].status == FAIL and "error unsupported key" in found["options-defaults"].detail
    assert report.level == -1


def test_the_plain_fake_passes_the_new_checks() -> None:
    report = run_check(fake(), games=0)
    found = {check.name: check for check in report.checks}
    assert found["bad-input-position-trailing-garbage"].status == PASS
    assert found["long-command"].status == PASS and "read as one command" in found["long-command"].detail
    assert "cannot be told" in found["movetime"].detail
    assert "60 s" in found["isready"].detail

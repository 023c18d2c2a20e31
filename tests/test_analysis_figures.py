"""The figures players quote (issue 39, step 3) and the reports that travel (step 5, on the
command line): PR on XG's counting rules, the marks of each style, the cube breakdown, luck
figures, ``--json`` with position ids, analysed SGF read back, and an .xg file's own analysis."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path

import pytest

import xg_files as xg
from gammon import Color, GameState
from gammon.analysis import (
    GNUBG,
    XG,
    Analysis,
    Candidate,
    CubeEquities,
    Decision,
    analyse,
    carried,
    carries_analysis,
    luck_mark,
    luck_rating,
    style_of,
)
from gammon.analysis.figures import summarise
from gammon.cli import main
from gammon.record import MatchRecord

RECORDS = Path(__file__).parent / "records"
NAMES = {Color.WHITE: "w", Color.BLACK: "b"}
_cache: dict[str, Analysis] = {}


def _analysed(name: str) -> Analysis:
    if name not in _cache:
        _cache[name] = analyse(MatchRecord.read(str(RECORDS / name)), "nn:0", workers=1)
    return _cache[name]


def _checker(error: float, *, forced: bool = False, luck: float = 0.0, color: Color = Color.WHITE) -> Decision:
    state = GameState(match_length=0)
    return Decision(1, 1, color, NAMES[color], "checker", error, "a", "b", (Candidate("b", 0.0),), state,
                    forced=forced, luck=luck)


def _cube(equities: CubeEquities, color: Color = Color.WHITE) -> Decision:
    return Decision(1, 1, color, NAMES[color], "cube", equities.error(), "x", "y", (), GameState(match_length=0),
                    cube=equities)


def test_pr_is_the_error_per_counted_decision_times_500_and_a_forced_play_does_not_count() -> None:
    decisions = [_checker(0.1), _checker(0.0), _checker(0.0, forced=True), _checker(0.0, color=Color.BLACK)]
    white = summarise(decisions, NAMES, {})[Color.WHITE]
    assert (white.checker_decisions, white.xg_decisions) == (2, 2)  # the forced play is not a decision
    assert white.pr == pytest.approx(500 * 0.1 / 2)  # 25.0
    assert white.error_rate == pytest.approx(1000 * 0.1 / 2)  # 50 mEMG, GNU Backgammon's "Awful!"
    assert white.rating == "Awful!" and white.moves == 3  # the forced roll has its luck


def test_the_cube_breakdown_and_which_cube_decisions_count() -> None:
    missed = CubeEquities(0.5, 0.7, 1.0, doubled=False)  # double/take was right: a missed double below CP
    missed_cash = CubeEquities(0.9, 1.2, 1.0, doubled=False)  # he should have doubled her out
    too_good = CubeEquities(1.1, 1.3, 1.0, doubled=True)  # doubled a position too good to double
    early = CubeEquities(0.3, 0.1, 1.0, doubled=True)  # doubled too early
    wrong_take = CubeEquities(0.9, 1.2, 1.0, doubled=True, answer="take")
    wrong_pass = CubeEquities(0.5, 0.7, 1.0, doubled=True, answer="pass")
    assert [e.kind() for e in (missed, missed_cash, too_good, early, wrong_take, wrong_pass)] == [
        "missed_double_below_cp", "missed_double_above_cp", "wrong_double_above_tg", "wrong_double_below_dp",
        "wrong_take", "wrong_pass"]
    assert [round(e.error(), 6) for e in (missed, missed_cash, too_good, early, wrong_take, wrong_pass)] == [
        0.2, 0.1, 0.1, 0.2, 0.2, 0.3]
    decisions = [_cube(missed), _cube(missed_cash), _cube(too_good), _cube(early), _cube(wrong_take, Color.BLACK),
                 _cube(wrong_pass, Color.BLACK)]
    figures = summarise(decisions, NAMES, {})
    white, black = figures[Color.WHITE], figures[Color.BLACK]
    assert white.cube["missed_double_below_cp"] == {"count": 1, "error": pytest.approx(0.2), "error_mwc": pytest.approx(0.2)}
    assert white.cube["doubles"] == 2 and black.cube["takes"] == 1 and black.cube["passes"] == 1
    assert white.cube_error == pytest.approx(0.6) and black.cube["wrong_pass"]["count"] == 1
    # Playing on for a gammon (too good, not doubled): GNU Backgammon counts it when close, XG does not.
    playing_on = CubeEquities(1.05, 1.3, 1.0, doubled=False)
    assert playing_on.error() == 0 and playing_on.counted(GNUBG) and not playing_on.counted(XG)
    clear = CubeEquities(0.4, 0.1, 1.0, doubled=False)  # no double by 0.3: no decision in either style
    assert not clear.counted(GNUBG) and not clear.counted(XG)


def test_marks_by_style() -> None:
    errors = (0.019, 0.020, 0.03, 0.031, 0.06, 0.061, 0.079, 0.080, 0.12, 0.121)
    assert [style_of("xg").mark(e) for e in errors] == [
        None, "error", "error", "error", "error", "error", "error", "blunder", "blunder", "blunder"]
    assert [style_of("gnubg").mark(e) for e in errors] == [
        None, None, None, "doubtful", "doubtful", "error", "error", "error", "error", "blunder"]
    with pytest.raises(ValueError, match="xg or gnubg"):
        style_of("snowie")


def test_luck_marks_rate_and_rating() -> None:
    assert [luck_mark(v) for v in (0.7, 0.4, 0.1, -0.4, -0.7)] == [
        "very lucky", "lucky", None, "unlucky", "very unlucky"]
    # GNU Backgammon's ratings of match5.txt: -84.3 mEMG a roll "Go to bed", -27.1 "None".
    assert [luck_rating(r) for r in (-0.0843, -0.0271, -0.04, 0.04, 0.08)] == [
        "Go to bed", "None", "Bad dice, man!", "Good dice, man!", "Go to Las Vegas"]
    decisions = [_checker(0.0, luck=0.7), _checker(0.0, luck=-0.1), _checker(0.0, luck=0.3, color=Color.BLACK)]
    figures = summarise(decisions, NAMES, {Color.WHITE: 1.0, Color.BLACK: -1.0})
    white = figures[Color.WHITE]
    assert white.luck_rate == pytest.approx(300.0) and white.luck_marks["very lucky"] == 1
    assert white.luck_adjusted == pytest.approx(1.0 - (0.6 - 0.3))  # less his luck, plus the opponent's


def test_a_match_analysis_adds_up_and_gives_errors_in_match_winning_chances() -> None:
    analysis = _analysed("match3.sgf")
    for side in analysis.players.values():
        mine = [d for d in analysis.decisions if d.color == side.color]
        assert side.error_mwc == pytest.approx(sum(d.error_mwc or 0.0 for d in mine))
        assert side.xg_decisions == sum(d.counted(XG) for d in mine)
        assert side.pr == pytest.approx(500 * side.error / side.xg_decisions)
        assert 0 < side.error_mwc < side.error  # a 3-point match: an EMG is worth less than 100% MWC
    restyled = analysis.restyled("xg")
    assert [d.mark for d in restyled.decisions] == [XG.mark(d.error) for d in analysis.decisions]


def _cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(list(argv))
    return code, out.getvalue()


def test_json_ids_read_back_and_sgf_reads_back_as_the_record(tmp_path: Path) -> None:
    sgf = tmp_path / "analysed.sgf"
    code, text = _cli("analyse", str(RECORDS / "match3.mat"), "--json", "--style", "gnubg", "--sgf", str(sgf))
    assert code == 0
    data = json.loads(text)
    assert data["style"] == "gnubg"
    record = MatchRecord.read(str(RECORDS / "match3.mat"))
    for decision in data["decisions"]:
        ids = decision["ids"]
        assert GameState.parse(ids["xgid"]).position == GameState.parse(ids["gnubg"]).position
        if decision["kind"] == "checker":
            state = GameState.parse(ids["xgid"])
            assert state.dice is not None and sorted(state.dice) == sorted(decision["dice"])
            assert decision["played"] in [c["play"] for c in decision["candidates"]]
            best = decision["candidates"][0]
            assert decision["error"] == pytest.approx(max(0.0, best["equity"] - next(
                c["equity"] for c in decision["candidates"] if c["play"] == decision["played"])), abs=2e-6)
        assert decision["mark"] == GNUBG.mark(decision["error"])
    back = MatchRecord.from_sgf(sgf.read_text())
    assert back.history() == record.history()
    assert (back.white, back.black, back.length) == (record.white, record.black, record.length)
    assert [g.result for g in back.games] == [g.result for g in record.games]
    assert carries_analysis(back)
    # The analysis written is the analysis read: GNU Backgammon's properties carried back.
    again = carried(back)
    ours = {(d.game, d.index): d for d in _analysed_mat("match3.mat").decisions if d.kind == "checker" and not d.forced}
    theirs = {(d.game, d.index): d for d in again.decisions if d.kind == "checker" and not d.forced}
    assert ours.keys() == theirs.keys()
    for key, decision in ours.items():
        assert theirs[key].error == pytest.approx(decision.error, abs=2e-6)
        assert theirs[key].luck == pytest.approx(decision.luck, abs=1e-5)


def _analysed_mat(name: str) -> Analysis:
    if name not in _cache:
        _cache[name] = analyse(MatchRecord.read(str(RECORDS / name)), "nn:0", workers=1)
    return _cache[name]


def _xg_match() -> bytes:
    return xg.xg_file([
        xg.match_header(5, "Kemal", "Sofia"),
        xg.game_header(0, 0, 1),
        xg.real("2_Cube.bin"),
        xg.real("3_Move.bin"),
        xg.move(1, (5, 2), (12, 7, 12, 10)),
        xg.cube(-1, double=1, take=0, equities=(0.2, 0.3, 1.0), err_cube=0.1, err_take=0.0),
        xg.game_footer(-1, 1, 0),
        xg.match_footer(),
    ])


def test_an_xg_file_is_shown_with_xgs_own_analysis(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "match.xg"
    path.write_bytes(_xg_match())
    code, text = _cli("analyse", str(path), "--json")
    assert code == 0
    data = json.loads(text)
    assert data["source"] == "eXtreme Gammon" and data["analyst"] == "eXtreme Gammon"
    opening = next(d for d in data["decisions"] if d["kind"] == "checker")
    assert opening["played"] == "24/18 13/10" and opening["error"] == 0.0  # XG's own verdict on its 6-3
    assert opening["candidates"][0]["equity"] == pytest.approx(0.0061, abs=1e-3)  # XG's equity, not gammon's
    double = next(d for d in data["decisions"] if d["kind"] == "cube" and d["played"] == "Double")
    nd, dt, dp = (c["equity"] for c in double["candidates"])  # XG's three equities, as the file gives them
    assert (nd, dt, dp) == pytest.approx((0.2, 0.3, 1.0))
    assert double["error"] == pytest.approx(max(0.0, nd - min(dt, dp)))  # doubling was right: no error
    code, text = _cli("analyse", str(path))
    assert code == 0 and text.startswith("the file's own analysis, by eXtreme Gammon")

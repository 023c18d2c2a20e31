"""gammon analyse: the invariants of an analysis, its JSON contract, its HTML report, and how its
verdicts compare with GNU Backgammon's own analysis of the same matches (tests/records)."""

from __future__ import annotations

import io
import json
import re
import shlex
import sys
from contextlib import redirect_stdout
from html.parser import HTMLParser
from pathlib import Path

import pytest

from gammon import Color, GameState, GameStatus, Match
from gammon.analysis import THRESHOLDS, Analysis, analyse, mark, rating
from gammon.analysis.views import analysis_json
from gammon.cli import main
from gammon.dice import SeededDice
from gammon.engine.gnubg import find_gnubg
from gammon.match import ActionKind
from gammon.players import cube_hint, hint, load_player
from gammon.record import MatchRecord

RECORDS = Path(__file__).parent / "records"
ANALYST = "nn:0"
_cache: dict[str, Analysis] = {}


def analysed(name: str) -> Analysis:
    if name not in _cache:
        _cache[name] = analyse(MatchRecord.read(str(RECORDS / name)), ANALYST, workers=1)
    return _cache[name]


def test_marks_and_ratings_follow_gnubg() -> None:
    assert [mark(e) for e in (0.0, 0.03, 0.031, 0.06, 0.07, 0.12, 0.5)] == [
        None, None, "doubtful", "doubtful", "error", "error", "blunder"]
    assert THRESHOLDS[0] == (0.12, "blunder")
    assert [rating(r) for r in (0.001, 0.004, 0.007, 0.011, 0.017, 0.025, 0.034, 0.05)] == [
        "Supernatural", "World class", "Expert", "Advanced", "Intermediate", "Casual player", "Beginner", "Awful!"]


def test_a_player_who_plays_the_analysts_choice_makes_no_error() -> None:
    analyst = load_player(ANALYST)
    match = Match(3, dice=SeededDice(7))
    while not match.is_over and len(match.history) < 400:
        state = match.state
        if match.game_over:
            match.new_game()
        elif state.status.name == "NONE":
            match.roll()
        elif state.double_offered:
            decision = cube_hint(state, analyst)
            (match.take if decision.take else match.drop)()
        elif state.dice is None:
            if match.can_double() and cube_hint(state, analyst).double:
                match.double()
            else:
                match.roll()
        else:
            match.play(hint(state, *state.dice, analyst)[0].play)
    record = MatchRecord.from_match(match, white="copy", black="cat")
    result = analyse(record, analyst)
    checker = [d for d in result.decisions if d.kind == "checker"]
    assert checker and all(d.error == pytest.approx(0.0, abs=1e-9) for d in checker)
    assert all(d.error == pytest.approx(0.0, abs=1e-9) for d in result.decisions)
    assert result.players[match.winner].result == 0.5  # type: ignore[index]


def test_the_same_analysis_on_one_or_two_workers() -> None:
    """Every decision's figures, the summaries and the course: equal, not close, on two processes."""
    two = analyse(MatchRecord.read(str(RECORDS / "match3.sgf")), ANALYST, workers=2)
    one = analysed("match3.sgf")
    assert analysis_json(two) == analysis_json(one)
    assert two.decisions == one.decisions and two.players == one.players and two.course == one.course


@pytest.mark.parametrize("name", ["match3.sgf", "match5.mat", "money.sgf"])
def test_errors_are_never_negative_and_totals_add_up(name: str) -> None:
    result = analysed(name)
    assert all(d.error >= 0 for d in result.decisions)
    for side in result.players.values():
        mine = [d for d in result.decisions if d.color == side.color and not d.forced]
        assert side.checker_error == pytest.approx(sum(d.error for d in mine if d.kind == "checker"))
        assert side.cube_error == pytest.approx(sum(d.error for d in mine if d.kind == "cube"))
        assert side.checker_decisions == sum(d.kind == "checker" for d in mine)


def _gnubg_statistics(name: str) -> dict[str, list[float]]:
    """GNU Backgammon's figures for both players (player 0 = black first) from its statistics text."""
    text = (RECORDS / name).read_text()
    figures: dict[str, list[float]] = {}
    for label in ("Unforced moves", "Error rate mEMG"):
        rows = re.findall(rf"^{re.escape(label)}.*?(-?[\d.]+)\s.*?(-?[\d.]+)\s", text, re.MULTILINE)
        figures[label] = [abs(float(v)) for v in rows[-1]]  # the last: the overall figure
    return figures


@pytest.mark.parametrize("name", ["match3", "match5", "money"])
def test_same_decisions_and_ranking_as_gnubg(name: str) -> None:
    result = analysed(f"{name}.sgf")
    gnubg = _gnubg_statistics(f"{name}.txt")
    black, white = result.players[0], result.players[1]  # Color.BLACK is gnubg's player 0
    assert [black.checker_decisions, white.checker_decisions] == gnubg["Unforced moves"]
    rates = gnubg["Error rate mEMG"]
    # The player GNU Backgammon finds worse is the one gammon finds worse (the noisier bot).
    assert (black.error_rate > white.error_rate) == (rates[0] > rates[1])


def test_blunders_found_as_gnubg_marks_them() -> None:
    """Of the checker plays GNU Backgammon marks bad or very bad (BM), most get a mark here too."""
    found = total = 0
    for name in ("match3.sgf", "match5.sgf", "money.sgf"):
        result = analysed(name)
        ours = {(d.game, d.move, d.color): d for d in result.decisions if d.kind == "checker"}
        for number, game in enumerate(result.record.games, 1):
            rows = game.moves()
            for index, action in enumerate(game.actions):
                if action.kind == ActionKind.PLAY and "BM" in dict(game.notes.get(index, ())):
                    total += 1
                    found += ours[(number, rows[index], action.color)].mark is not None
    assert total >= 10 and found / total >= 0.6


def _cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(list(argv))
    return code, out.getvalue()


def test_json_is_exactly_the_contract(tmp_path: Path) -> None:
    """The --json contract of docs/analysis.md (format 2, issue 39): every key, and the figures
    consistent with the decisions they are made of."""
    code, text = _cli("analyse", str(RECORDS / "match5.mat"), "--json", "--ply", "0")
    assert code == 0
    data = json.loads(text)
    assert set(data) == {"format", "analyst", "verifier", "source", "style", "match", "players", "decisions", "course"}
    assert data["format"] == 2 and data["style"] == "xg" and data["source"] is None and data["verifier"] is None
    assert set(data["players"]) == {"gnubg", "root"}
    for figures in data["players"].values():
        assert set(figures) == {
            "color", "pr", "decisions", "error_rate", "rating", "checker_decisions", "checker_error",
            "checker_error_rate", "cube_decisions", "xg_cube_decisions", "cube_error", "cube_error_rate", "error",
            "error_mwc", "checker_error_mwc", "cube_error_mwc", "marks", "moves", "luck", "luck_rate", "luck_rating",
            "luck_marks", "luck_value", "result", "luck_adjusted", "cube"}
        assert figures["checker_error_rate"] == pytest.approx(
            1000 * figures["checker_error"] / figures["checker_decisions"], abs=1e-3)
        assert figures["pr"] == pytest.approx(500 * figures["error"] / figures["decisions"], abs=0.01)
        assert set(figures["cube"]) == {"doubles", "takes", "passes", "missed_double_below_cp",
                                        "missed_double_above_cp", "wrong_double_below_dp", "wrong_double_above_tg",
                                        "wrong_take", "wrong_pass"}
    rows = {int(m) for m in re.findall(r"^\s*(\d+)\)", (RECORDS / "match5.mat").read_text(), re.MULTILINE)}
    for decision in data["decisions"]:
        assert set(decision) == {"game", "move", "index", "player", "color", "kind", "dice", "played", "best",
                                 "forced", "error", "error_mwc", "mark", "marks", "counted", "luck", "luck_mark",
                                 "ply", "verified", "rare_kind", "weak_judge", "candidates", "probabilities", "ids",
                                 "board", "score", "cube"}
        assert decision["verified"] is None
        assert decision["weak_judge"] == (decision["rare_kind"] in ("backgame", "crashed"))
        assert decision["kind"] in ("checker", "cube") and decision["error"] >= 0
        assert decision["mark"] in (None, "error", "blunder")  # XG's marks: no "doubtful"
        assert decision["game"] in (1, 2) and decision["move"] in rows
        for candidate in decision["candidates"]:
            assert set(candidate) == {"play", "equity", "loss", "mwc", "ply", "judge", "probabilities"}
            if decision["kind"] == "checker":
                assert candidate["judge"] in ("contact net", "race net", "crashed net", "bear-off table", "game over")
    checker = [d for d in data["decisions"] if d["kind"] == "checker"]
    assert len([d for d in checker if not d["forced"]]) == sum(p["checker_decisions"] for p in data["players"].values())
    assert len(checker) == sum(p["moves"] for p in data["players"].values())  # every roll has its luck


def test_verified_errors_are_the_deeper_analysts() -> None:
    """--verify: every decision nn:0 charges 0.020 or more is judged again by nn:1, whose error is charged."""
    from gammon.analysis.core import VERIFY_AT, deeper

    assert deeper("nn:0") == "nn:1" and deeper("pubeval:1:beginner") == "pubeval:2:beginner"
    assert deeper("ubgi:gammon engine") is None
    record = MatchRecord.read(str(RECORDS / "match3.sgf"))
    verified = analyse(record, ANALYST, workers=1, verify="nn:1")
    first = analysed("match3.sgf")
    deep = analyse(record, "nn:1", workers=1)
    assert verified.verifier == "nn:1"
    key = lambda d: (d.game, d.index, d.kind, d.color)  # noqa: E731
    shallow, deeper_ones = {key(d): d for d in first.decisions}, {key(d): d for d in deep.decisions}
    rechecked = 0
    for mine in verified.decisions:
        if mine.verified is None:  # charged less than VERIFY_AT by nn:0: nn:0's judgement stands
            assert mine.error == shallow[key(mine)].error and mine.error < VERIFY_AT
            continue
        rechecked += 1
        assert mine.verified >= VERIFY_AT and mine.error == pytest.approx(deeper_ones[key(mine)].error, abs=1e-9)
        if mine.kind == "checker":
            assert mine.verified == pytest.approx(shallow[key(mine)].error)
            assert mine.luck == shallow[key(mine)].luck  # the dice are judged once, by the luck player
    assert rechecked > 0
    assert sum(d.error for d in verified.decisions) < sum(d.error for d in first.decisions)
    code, text = _cli("analyse", str(RECORDS / "match3.mat"), "--verify")
    assert code == 0 and re.search(r"verified by nn:1: \d+ decisions charged 0.020 or more judged again", text)
    code, text = _cli("analyse", str(RECORDS / "match3.mat"), "--player", "ubgi:gammon engine", "--verify")
    assert code != 0


class _Tags(HTMLParser):
    """Counts the SVG boards and checks that every element opened is closed in order."""

    VOID = frozenset({"meta", "br", "img", "hr", "input", "link"})

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.svgs = 0
        self.sections = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "svg":
            self.svgs += 1
        if tag == "section":
            self.sections += 1
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        if tag == "svg":
            self.svgs += 1

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes <{self.stack[-1] if self.stack else None}>"
        self.stack.pop()


def test_html_report_is_whole_with_a_board_per_move(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    code, _ = _cli("analyse", str(RECORDS / "money.sgf"), "--html", str(out))
    assert code == 0
    page = out.read_text()
    parser = _Tags()
    parser.feed(page)
    parser.close()
    assert parser.stack == []
    result = analysed("money.sgf")
    plays = sum(a.kind == ActionKind.PLAY for g in result.record.games for a in g.actions)
    assert parser.sections == len(result.decisions) and parser.sections >= plays
    assert parser.svgs == len(result.decisions) + 1  # a board per move and the course of the match
    assert "http" not in re.sub(r'xmlns="http://www.w3.org/2000/svg"', "", page)  # nothing fetched
    assert "Luck-adjusted result" in page and "<polyline" in page


def test_bad_file_and_bad_player_are_clear_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.mat"
    bad.write_text(" 3 point match\n\n Game 1\n a : 0     b : 0\n  1) 31: 8/5 6/1\n")
    assert main(["analyse", str(bad)]) == 1
    assert "game 1, move 1" in capsys.readouterr().err
    assert main(["analyse", str(RECORDS / "match5.mat"), "--player", "nobody"]) == 1
    assert "nobody" in capsys.readouterr().err
    empty = tmp_path / "empty.mat"
    empty.write_text(" 3 point match\n\n Game 1\n a : 0     b : 0\n")
    assert main(["analyse", str(empty)]) == 1
    assert "no decision" in capsys.readouterr().err
    assert main(["analyse", str(RECORDS / "match5.mat"), "--html", str(tmp_path / "no" / "such" / "dir.html")]) == 1
    assert "cannot write" in capsys.readouterr().err
    # An engine that names its plays without evaluating them cannot judge: said so, not judged as 0.000.
    fake = "ubgi:" + shlex.join([sys.executable, str(Path(__file__).with_name("ubgi_fake_engine.py"))])
    assert main(["analyse", str(RECORDS / "match3.mat"), "--player", fake, "--workers", "1"]) == 1
    assert "gives no evaluation of its plays" in capsys.readouterr().err


def test_gnubg_as_the_analyst_gives_gnubgs_own_figures() -> None:
    """With GNU Backgammon at 0 ply as the analyst, each side's errors and decisions are the ones
    its own analysis of the match printed: the error arithmetic, the EMG scale and the choice of
    cube decisions agree with GNU Backgammon's."""
    assert find_gnubg() is not None, "GNU Backgammon must be installed for this test (make gnubg)"
    result = analyse(MatchRecord.read(str(RECORDS / "match5.sgf")), "gnubg:0", workers=1)
    text = (RECORDS / "match5.txt").read_text()
    totals = [tuple(abs(float(v)) for v in row)
              for row in re.findall(r"^Error total EMG \(MWC\)\s+(-?[\d.]+) \(.*?\)\s+(-?[\d.]+) ", text, re.MULTILINE)]
    checker, cube = totals[0], totals[1]  # chequerplay, then cube decisions (then overall)
    black, white = result.players[0], result.players[1]
    assert (black.checker_error, white.checker_error) == pytest.approx(checker, abs=0.006)
    assert (black.cube_error, white.cube_error) == pytest.approx(cube, abs=0.006)
    assert (black.checker_decisions, white.checker_decisions) == (25, 42)
    assert (black.cube_decisions, white.cube_decisions) == (7, 7)  # "close or actual cube decisions"


def test_luck_is_what_a_roll_is_worth_above_the_average() -> None:
    """The opening roll is judged as GNU Backgammon judges it: against the opening itself, each
    non-double won by either side, so at an even score nothing is expected and a roll's luck is
    what its best play is worth (3-1 the luckiest). Later, luck averages to nothing over the 36 rolls."""
    from gammon.analysis.core import _luck, _Task

    player = load_player(ANALYST)
    start = GameState(match_length=0).replace(status=GameStatus.PLAYING)
    lucks = {}
    for d1 in range(1, 7):
        for d2 in range(1, d1):
            task = _Task("checker", 1, 1, Color.WHITE, start.replace(dice=(d1, d2)), opening=True)
            lucks[(d1, d2)] = _luck(player, task)
            best = hint(start.replace(dice=(d1, d2)), d1, d2, player)[0].equity
            assert lucks[(d1, d2)] == pytest.approx(best, abs=1e-9)
    assert lucks[(3, 1)] == max(lucks.values()) > 0
    later = start.replace(position=start.position.apply("8/5 6/5", dice=(3, 1)))
    total = 0.0
    for d1 in range(1, 7):
        for d2 in range(1, d1 + 1):
            task = _Task("checker", 1, 2, Color.BLACK, later.replace(dice=(d1, d2)))
            total += _luck(player, task) * (1 if d1 == d2 else 2)
    assert total / 36 == pytest.approx(0.0, abs=1e-9)

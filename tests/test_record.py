"""Match records: GNU Backgammon's own files read, replayed and written back byte for byte;
gammon's own records through both formats; the errors a bad file gets."""

from __future__ import annotations

import random
import re
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gammon import Color, GameState, Match
from gammon.engine.gnubg import find_gnubg
from gammon.errors import GammonError
from gammon.match import Action, ActionKind
from gammon.record import MatchRecord, RecordError, Rules
from gammon.state import GameStatus, Resignation
from gammon.variant import Variant

RECORDS = Path(__file__).parent / "records"
GNUBG_FILES = sorted(RECORDS.glob("*.mat")) + sorted(RECORDS.glob("*.sgf"))


def _read(path: Path) -> MatchRecord:
    text = path.read_text()
    return MatchRecord.from_mat(text) if path.suffix == ".mat" else MatchRecord.from_sgf(text)


def _write(record: MatchRecord, suffix: str) -> str:
    return record.mat() if suffix == ".mat" else record.sgf()


# -- files written by GNU Backgammon ------------------------------------------------------------
@pytest.mark.parametrize("path", GNUBG_FILES, ids=lambda p: p.name)
def test_gnubg_file_round_trips_byte_for_byte(path: Path) -> None:
    record = _read(path)
    text = _write(record, path.suffix)
    assert text == path.read_text()
    assert _read_text(text, path.suffix) == record


def _read_text(text: str, suffix: str) -> MatchRecord:
    return MatchRecord.from_mat(text) if suffix == ".mat" else MatchRecord.from_sgf(text)


@pytest.mark.parametrize("name", ["match3", "match5", "money"])
def test_mat_and_sgf_of_one_match_hold_the_same_games(name: str) -> None:
    mat = MatchRecord.from_mat((RECORDS / f"{name}.mat").read_text())
    sgf = MatchRecord.from_sgf((RECORDS / f"{name}.sgf").read_text())
    assert mat.history() == sgf.history()
    assert [g.result for g in mat.games] == [g.result for g in sgf.games]
    assert (mat.white, mat.black, mat.length) == (sgf.white, sgf.black, sgf.length)
    assert mat.metadata["date"] == sgf.metadata["date"]


def test_gnubg_match_replays_to_its_final_score() -> None:
    record = MatchRecord.from_mat((RECORDS / "match5.mat").read_text())
    match = record.to_match()
    assert record.length == 5 and match.is_over
    assert match.winner == Color.WHITE  # the right-hand column: GNU Backgammon's player 1
    assert match.score == (0, 5)
    assert [str(g.result) for g in record.games] == [
        "white wins 2 points (gammon, resigned)", "white wins 3 points (backgammon)"]
    # A resignation that the .mat leaves unwritten is read back as the loser's, accepted.
    assert [str(a) for a in record.games[0].actions[-2:]] == ["black resign gammon", "white accept"]


def test_gnubg_beaver_and_doubles() -> None:
    record = MatchRecord.from_mat((RECORDS / "money.mat").read_text())
    kinds = [a.kind for a in record.games[0].actions]
    assert ActionKind.BEAVER in kinds and record.rules.beavers and record.length == 0
    assert record.games[0].result is not None and record.games[0].result.cube == 4


def test_gnubg_analysis_is_kept_on_the_move() -> None:
    record = MatchRecord.from_sgf((RECORDS / "match5.sgf").read_text())
    game = record.games[0]
    plays = [i for i, a in enumerate(game.actions) if a.kind == ActionKind.PLAY]
    noted = dict(game.notes[plays[1]])
    assert "A" in noted and re.fullmatch(r"[a-z]* E ver 3 .*", noted["A"][1])
    assert any(name == "GS" for name, _ in game.properties)


def test_move_numbers_are_the_mat_rows() -> None:
    record = MatchRecord.from_mat((RECORDS / "match3.mat").read_text())
    game = record.games[0]
    rows = game.moves()
    lines = (RECORDS / "match3.mat").read_text().splitlines()
    # Every play's row in the file holds its dice.
    for action, roll, row in zip(game.actions[1:], game.actions, rows[1:]):
        if action.kind == ActionKind.PLAY:
            line = next(text for text in lines if re.match(rf"\s*{row}\)", text))
            assert f"{roll.dice[0]}{roll.dice[1]}:" in line


# -- errors ---------------------------------------------------------------------------------------
def test_illegal_play_names_game_move_and_legal_plays() -> None:
    text = (RECORDS / "match5.mat").read_text().replace("  3) 31: 8/5 6/5 ", "  3) 31: 8/5 6/1 ", 1)
    if text == (RECORDS / "match5.mat").read_text():  # the row to spoil must be there
        pytest.fail("fixture row not found")
    with pytest.raises(RecordError) as caught:
        MatchRecord.from_mat(text)
    message = str(caught.value)
    assert "game 1, move 3" in message and "legal" in message and "8/5 6/5" in message
    assert isinstance(caught.value, GammonError)


def _mat(body: str) -> str:
    return f" 3 point match\n\n Game 1\n a : 0                          b : 0\n{body}"


@pytest.mark.parametrize(("body", "where", "expected"), [
    ("  1) 31: 8/5 6/5 nonsense\n", "line 5", "checker move"),
    ("  1) 3x: 8/5 6/5\n", "line 5", "roll"),
    ("  1) 31: 8/5 6/5\n  3) 42: 8/4 6/4\n", "line 6", "row 2"),
    ("  1) 31: 8/5 6/5\n  2)  Doubles => x\n", "line 6", "Doubles => N"),
    ("  1) 33: 8/5 6/5\n", "line 5", "two different dice"),
    ("this is not a row\n", "line 5", "numbered row"),
])
def test_malformed_mat_line_is_named(body: str, where: str, expected: str) -> None:
    with pytest.raises(RecordError) as caught:
        MatchRecord.from_mat(_mat(body))
    assert caught.value.where == where and expected in caught.value.message


def test_mat_without_header_and_wrong_score() -> None:
    with pytest.raises(RecordError, match="point match"):
        MatchRecord.from_mat("hello\n")
    text = (RECORDS / "match5.mat").read_text().replace("root : 2", "root : 3")
    with pytest.raises(RecordError, match="game 2.*score"):
        MatchRecord.from_mat(text)


def test_wins_line_that_the_play_contradicts() -> None:
    text = (RECORDS / "match5.mat").read_text().replace("Wins 3 points", "Wins 1 point")
    with pytest.raises(RecordError, match="game 2.*wins 1"):
        MatchRecord.from_mat(text)


@pytest.mark.parametrize("cut", [10, 200, 5000, -3, -2])
def test_truncated_sgf_says_what_was_expected(cut: int) -> None:
    text = (RECORDS / "match5.sgf").read_text()
    with pytest.raises(RecordError) as caught:
        MatchRecord.from_sgf(text[:cut])
    assert "expected" in str(caught.value) and "line" in caught.value.where


def test_bad_sgf_move_and_game() -> None:
    with pytest.raises(RecordError, match="GM"):
        MatchRecord.from_sgf("(;FF[4]GM[1])")
    with pytest.raises(RecordError, match="game 1, move 1.*letter"):
        MatchRecord.from_sgf("(;FF[4]GM[6]MI[length:3]PW[a]PB[b];B[31!!])")
    with pytest.raises(RecordError, match="game 1, move 1.*not allowed"):
        MatchRecord.from_sgf("(;FF[4]GM[6]MI[length:3]PW[a]PB[b];B[31aabb])")


def test_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="cannot read"):
        MatchRecord.read(str(tmp_path / "missing.mat"))
    with pytest.raises(RecordError, match="cannot read"):
        MatchRecord.read(str(tmp_path))
    bad = tmp_path / "bad.mat"
    bad.write_bytes(b"\xff\xfe garbage")
    with pytest.raises(RecordError, match="bad.mat"):
        MatchRecord.read(str(bad))
    assert MatchRecord.read(str(RECORDS / "match3.sgf")) == _read(RECORDS / "match3.sgf")


# -- gammon's own records ---------------------------------------------------------------------------
def play_random(rng: random.Random, length: int, steps: int, *, rules: Rules = Rules()) -> Match:  # noqa: B008 - frozen
    """A match played by random dice and random choices among everything the referee allows."""
    match = Match(length, crawford=rules.crawford, jacoby=rules.jacoby, beavers=rules.beavers,
                  cube_limit=rules.cube_limit, variant=rules.variant)
    for _ in range(steps):
        if match.is_over:
            break
        if match.game_over:
            if rng.random() < 0.3:
                break
            match.new_game()
            continue
        state = match.state
        if state.status.name == "NONE":
            first = rng.randint(1, 6)
            match.roll(dice=(first, rng.choice([d for d in range(1, 7) if d != first])))
        elif state.resignation is not None:
            (match.accept if rng.random() < 0.5 else match.reject)()
        elif state.double_offered:
            choice = rng.random()
            if choice < 0.15 and match.beavers:
                try:
                    match.beaver()
                    continue
                except GammonError:
                    pass
            (match.take if choice < 0.7 else match.drop)()
        elif state.dice is None:
            choice = rng.random()
            if choice < 0.1 and match.can_double():
                match.double()
            elif choice < 0.13:
                match.resign(rng.choice(list(Resignation)))
            else:
                match.roll(dice=(rng.randint(1, 6), rng.randint(1, 6)))
        else:
            match.play(rng.choice(list(match.legal_plays)))
    return match


def _written(history: list[Action]) -> list[Action]:
    """The actions both formats keep: a roll not yet played is not written."""
    if history and history[-1].kind in (ActionKind.ROLL, ActionKind.OPENING_ROLL):
        return history[:-1]
    return history


def _results(record: MatchRecord) -> list:
    return [g.result for g in record.games]


def _unordered(history: list[Action]) -> list[tuple]:
    """The actions .mat keeps, each play's steps in any order (GNU Backgammon writes its own order)."""
    return [(a.kind, a.color, a.dice, sorted(a.play.moves) if a.play else None) for a in history
            if a.kind not in (ActionKind.RESIGN, ActionKind.ACCEPT, ActionKind.REJECT)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), length=st.sampled_from([0, 1, 3, 5, 7]), steps=st.integers(0, 400),
       jacoby=st.booleans(), beavers=st.booleans(), nackgammon=st.booleans(), two_move_doubles=st.booleans())
def test_random_matches_read_back_identical(seed: int, length: int, steps: int, jacoby: bool, beavers: bool,
                                            nackgammon: bool, two_move_doubles: bool) -> None:
    rules = Rules(crawford=length > 0, jacoby=jacoby and length == 0, beavers=beavers and length == 0,
                  variant=Variant(nackgammon, two_move_doubles))
    match = play_random(random.Random(seed), length, steps, rules=rules)
    record = MatchRecord.from_match(match, white="Alice Smith", black="bob", event="Test", date="2026-11-23")
    for suffix in (".mat", ".sgf"):
        text = _write(record, suffix)
        again = _read_text(text, suffix)
        assert _write(again, suffix) == text
        # (.mat reads an accepted resignation back from the points: under Jacoby a centred
        # cube's resigned backgammon is worth one point, read back as a single game)
        assert [r and (r.winner, r.points, r.ended) for r in _results(again)] == [
            r and (r.winner, r.points, r.ended) for r in _results(record)]
        assert (again.white, again.black, again.length, again.metadata) == (
            record.white, record.black, record.length, record.metadata)
    sgf = MatchRecord.from_sgf(record.sgf())
    assert sgf.history() == _written(record.history()) and sgf.rules == record.rules
    assert _results(sgf) == _results(record)
    # .mat does not write resignations that do not end a game; everything else survives.
    mat = MatchRecord.from_mat(record.mat())
    assert mat.rules.variant == record.rules.variant == rules.variant  # a variant's games replay under its rules
    kept = [a for a in mat.history() if a.kind not in (ActionKind.RESIGN, ActionKind.ACCEPT, ActionKind.REJECT)]
    assert kept == [a for a in _written(record.history())
                    if a.kind not in (ActionKind.RESIGN, ActionKind.ACCEPT, ActionKind.REJECT)]


def test_record_continues_as_a_match() -> None:
    for seed in range(6):
        match = play_random(random.Random(seed), 5, 150)
        record = MatchRecord.from_match(match, white="w", black="b")
        again = MatchRecord.from_sgf(record.sgf()).to_match()
        assert again.position == match.position and again.score == match.score
        assert again.game_number == match.game_number and again.results == match.results
        if match.history and match.history[-1].kind != ActionKind.ROLL:
            assert again.state == match.state


def test_server_usage_on_a_match_in_progress() -> None:
    match = Match(3)
    match.roll(dice=(5, 2))
    match.play("13/8 13/11")
    match.roll(dice=(6, 6))
    text = MatchRecord.from_match(match, white="ann", black="ben").mat()
    assert " 3 point match" in text and "  1) " in text and "52: 13/8 13/11" in text
    assert "66:" not in text  # rolled, not yet played
    continued = MatchRecord.from_mat(text).to_match()
    assert continued.position == match.position and continued.to_act == Color.BLACK
    continued.roll(dice=(6, 6))
    continued.play("24/18(2) 13/7(2)")


def test_from_match_refuses_a_set_up_position() -> None:
    state = GameState.from_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:1:0:10")
    with pytest.raises(RecordError, match="set-up"):
        MatchRecord.from_match(Match.from_state(state), white="a", black="b")


def test_rejected_resignation_kept_in_sgf() -> None:
    match = Match(3)
    match.roll(dice=(3, 1))
    match.play("8/5 6/5")
    match.resign(Resignation.GAMMON)
    match.reject()
    match.roll(dice=(6, 4))
    match.play("24/14")
    record = MatchRecord.from_match(match, white="w", black="b")
    assert "GR[black resign gammon]" in record.sgf() and "GR[white reject]" in record.sgf()
    assert MatchRecord.from_sgf(record.sgf()) == record


def test_gnubg_reads_what_gammon_writes(tmp_path: Path) -> None:
    """GNU Backgammon itself loads gammon's .mat and SGF and exports the same games."""
    gnubg = find_gnubg()
    assert gnubg is not None, "GNU Backgammon must be installed for this test (make gnubg)"
    match = play_random(random.Random(3), 5, 2000)
    record = MatchRecord.from_match(match, white="alice", black="bob", event="Worlds", date="2026-01-02",
                                    site="Monte Carlo", round="3", annotator="me", comment="a fine match")
    (tmp_path / "in.mat").write_text(record.mat())
    (tmp_path / "in.sgf").write_text(record.sgf())
    commands = (f"import mat {tmp_path}/in.mat\nexport match mat {tmp_path}/from_mat.mat\n"
                f"load match {tmp_path}/in.sgf\nexport match mat {tmp_path}/from_sgf.mat\n")
    subprocess.run([gnubg, "-t", "-q", "-r"], input=commands, text=True, capture_output=True, timeout=120, check=False)
    for name in ("from_mat", "from_sgf"):
        back = MatchRecord.from_mat((tmp_path / f"{name}.mat").read_text())
        assert _unordered(back.history()) == _unordered(_written(record.history()))
        assert [g.result for g in back.games] == [g.result for g in record.games]
        assert (back.white, back.black, back.metadata) == ("alice", "bob", record.metadata)
    assert (tmp_path / "from_sgf.mat").read_text() == record.mat()  # GNU Backgammon's layout, byte for byte


_MAT_TEXT = (RECORDS / "match5.mat").read_text()
_SGF_TEXT = (RECORDS / "money.sgf").read_text()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), which=st.sampled_from(["mat", "sgf"]))
def test_damaged_files_are_record_errors_never_tracebacks(data: st.DataObject, which: str) -> None:
    """Any text cut, spliced or garbled from a real file is read or refused with a RecordError."""
    text = _MAT_TEXT if which == "mat" else _SGF_TEXT
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, min(len(text), start + 40)))
    insert = data.draw(st.text(alphabet=st.sampled_from(list("0123456789/:*;[]()BW abxyz\n=>-+RDoublesTakesWins")),
                               max_size=12))
    damaged = text[:start] + insert + text[end:]
    try:
        record = MatchRecord.from_mat(damaged) if which == "mat" else MatchRecord.from_sgf(damaged)
    except RecordError as error:
        assert str(error)
        return
    assert _write(record, "." + which)  # what reads also writes


@settings(max_examples=100, deadline=None)
@given(text=st.text(max_size=200))
def test_any_text_is_read_or_refused(text: str) -> None:
    for reader in (MatchRecord.from_mat, MatchRecord.from_sgf):
        try:
            reader(text)
        except RecordError:
            pass


def test_drop_and_win_on_one_row() -> None:
    """After black's drop GNU Backgammon writes white's win on the same row."""
    text = (RECORDS / "match7.mat").read_text()
    assert re.search(r"\)  Drops {20,}Wins 1 point $", text, re.MULTILINE)
    record = MatchRecord.from_mat(text)
    dropped = [g.result for g in record.games if g.result is not None and g.result.dropped]
    assert dropped and dropped[0].winner == Color.WHITE
    assert record.mat() == text


def test_raccoon_is_refused_by_name() -> None:
    text = (" 0 point match\n\n Game 1\n a : 0                          b : 0\n"
            "  1)                             31: 8/5 6/5 \n"
            "  2) 43: 13/9 8/5                31: 24/21 21/20* \n"
            "  3) 21: 25/24 24/22              Doubles => 2\n"
            "  4)  Beavers => 4                Beavers => 8\n")
    with pytest.raises(RecordError, match="game 1, move 4.*raccoon"):
        MatchRecord.from_mat(text)


@pytest.mark.parametrize("crawford", [True, False])
def test_record_starting_at_a_score(crawford: bool) -> None:
    """A match continued from a score: the Crawford game (or one after it) read back as such."""
    start = GameState(match_length=5, score=(4, 2), crawford=crawford, status=GameStatus.NONE)
    match = Match.from_state(start)
    rng = random.Random(2)
    match.roll(dice=(3, 1))
    match.play("8/5 6/5")
    if not crawford:
        match.double()  # after the Crawford game the cube is back in play
        match.take()
    for _ in range(6):
        match.roll(dice=(rng.randint(1, 6), rng.randint(1, 6)))
        match.play(rng.choice(list(match.legal_plays)))
    record = MatchRecord.from_match(match, white="w", black="b")
    assert record.games[0].crawford == crawford and record.games[0].score == (4, 2)
    assert MatchRecord.from_mat(record.mat()) == record
    assert MatchRecord.from_sgf(record.sgf()) == record


@pytest.mark.parametrize("text, variant", [
    ("Nackgammon", Variant(nackgammon=True)), ("Backgammon, two-move doubles", Variant(two_move_doubles=True)),
    ("nackgammon, Two-Move Doubles", Variant(True, True)), ("Standard", Variant()), ("Backgammon", Variant())])
def test_the_variation_header_names_the_rules(text: str, variant: Variant) -> None:
    assert MatchRecord.from_mat(_mat_with_header(f'; [Variation "{text}"]')).rules.variant == variant


def test_an_unknown_variation_is_named() -> None:
    with pytest.raises(RecordError, match=r"\[Variation\].*Hypergammon"):
        MatchRecord.from_mat(_mat_with_header('; [Variation "Hypergammon"]'))


def _mat_with_header(header: str) -> str:
    return f"{header}\n\n 1 point match\n\n Game 1\n bob : 0                      alice : 0\n"


# -- readers in linear time (issue 36) ------------------------------------------------------------
#: The pattern that read a .mat score line before issue 36 (it backtracked for minutes on spaces
#: around a colon): the reference that the hand split reads every short line as it did.
_SCORE_PATTERN = re.compile(r"\s*(.*?)\s*:\s*(\d+)\s+(.*?)\s*:\s*(\d+)\s*")


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet=" \t\x0c:019٣ab.", max_size=18))
def test_the_score_line_reads_as_its_old_pattern_did(line: str) -> None:
    from gammon.record.mat import _score_line

    found = _SCORE_PATTERN.fullmatch(line)
    assert _score_line(line) == (None if found is None else found.groups())


@pytest.mark.parametrize("line, names, score", [
    (" gnubg : 3                      root : 12", ("gnubg", "root"), (3, 12)),
    (" a:b : 1   c:d : 2", ("a:b", "c:d"), (1, 2)),
    (" Mr. X : 2 Mrs : Y : 4", ("Mr. X", "Mrs : Y"), (2, 4)),
    (" alice:1 bob:2", ("alice", "bob"), (1, 2)),
])
def test_score_lines_with_colons_in_the_names(line: str, names: tuple[str, str], score: tuple[int, int]) -> None:
    record = MatchRecord.from_mat(f" 0 point match\n\n Game 1\n{line}\n")
    assert (record.black, record.white) == names and record.games[0].score == score  # black on the left


def test_a_score_line_without_a_space_after_the_first_score_is_refused() -> None:
    with pytest.raises(RecordError, match="line 4: expected a score line"):
        MatchRecord.from_mat(" 1 point match\n\n Game 1\n alice : 0bob : 0\n")


def test_a_comment_of_many_lines_reads_whole() -> None:
    notes = [f"note {i}" for i in range(5000)]
    text = "".join(f"; {note}\n" for note in notes) + ' ; [comment "tag"]\n; after\n 1 point match\n'
    assert MatchRecord.from_mat(text).metadata["comment"] == "tag\nafter"  # the tag replaces what came before
    assert MatchRecord.from_mat("".join(f"; {note}\n" for note in notes) + " 1 point match\n").metadata["comment"] == \
        "\n".join(notes)


def _sgf_nodes() -> tuple[str, list[str]]:
    """A short game as gammon writes SGF: its root and its move nodes."""
    match = Match(1)
    rng = random.Random(5)
    match.roll(dice=(3, 1))
    match.play("8/5 6/5")
    for _ in range(10):
        match.roll(dice=(rng.randint(1, 6), rng.randint(1, 6)))
        match.play(rng.choice(list(match.legal_plays)))
    root, *nodes = MatchRecord.from_match(match, white="w", black="b").sgf().strip()[2:-1].split("\n;")
    return root, nodes


def test_sgf_variations_are_read_down_their_first_branch() -> None:
    root, nodes = _sgf_nodes()
    flat = MatchRecord.from_sgf(f"(;{root}" + "".join(f";{n}" for n in nodes) + ")")
    other = "(;B[99zz];W[take])"  # a later variation is read for its syntax only
    nested = f"(;{root};{nodes[0]}" + "".join(f"(;{n}" for n in nodes[1:]) + ")" * (len(nodes) - 1) + f"{other})"
    assert MatchRecord.from_sgf(nested) == flat
    deep = f"(;{root};{nodes[0]}" + "(" * 5000 + "".join(f";{n}" for n in nodes[1:]) + ")" * 5000 + f"{other})"
    assert MatchRecord.from_sgf(deep) == flat  # nesting deeper than Python's stack


@pytest.mark.parametrize("text, expected", [
    ("(" * 100_000, "line 1, column 100001: the file ends inside a game tree"),
    ("(;FF[4]GM[6]" + "(;" * 50_000 + ")" * 50_000 + ";B[31]", "expected ';', '(' or ')', found ';'"),
])
def test_sgf_nested_as_deep_as_the_file_is_long_is_a_record_error(text: str, expected: str) -> None:
    with pytest.raises(RecordError, match=re.escape(expected)):
        MatchRecord.from_sgf(text)


@pytest.mark.parametrize("kind", list(Resignation))
@pytest.mark.parametrize("opening", [(3, 1), (1, 3)])
def test_a_game_resigned_before_its_first_play_reads_back(opening: tuple[int, int], kind: Resignation) -> None:
    # No row is written for an opening roll nobody played (GNU Backgammon neither): the file says
    # only who won what, and reads back so, the resigner on roll.
    from gammon import FixedDice

    match = Match(3, dice=FixedDice([*opening, 6, 4, 5, 2]))
    match.roll()
    resigner = match.to_act
    match.resign(kind)
    match.accept()
    text = MatchRecord.from_match(match, white="alice", black="bob").mat()
    back = MatchRecord.from_mat(text)
    result = back.games[0].result
    assert result is not None and result.winner == resigner.other and result.points == int(kind)
    assert back.mat() == text
    assert [a.kind for a in back.games[0].actions] == [ActionKind.OPENING_ROLL, ActionKind.RESIGN, ActionKind.ACCEPT]

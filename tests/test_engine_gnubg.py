"""GnubgEngine against the real GNU Backgammon: every play it returns must be legal in our
position, which proves the board, turn and score reach gnubg the right way round."""

from __future__ import annotations

import gc
import random
import sys
import textwrap

import pytest

from gammon.engine import gnubg as gnubg_module
from gammon.engine import GnubgEngine
from gammon.engine.gnubg import find_gnubg
from gammon.engine.results import Limit
from gammon.errors import EngineError, EngineProtocolError, EngineTerminatedError, EngineTimeoutError
from gammon.play import BAR, OFF, Play
from gammon.position import Color, Position
from gammon.state import GameState

# Races with white on roll, 102 pips against...
EVEN_RACE = "2HY3EADYdncAAA"  # 108: no double, take
DOUBLE_TAKE = "2HYXEgDYdncAAA"  # 112: double, take
DOUBLE_PASS = "2HaHGADYdncAAA"  # 117: double, pass
# White has closed its board on three checkers: too good to double, pass.
TOO_GOOD = "AOC9B3DbthsAAA"


def checkers(white: dict[int, int], black: dict[int, int], turn: Color = Color.WHITE) -> Position:
    """A position from each side's {point: count} in its own numbering (25 = bar)."""
    counts = {Color.WHITE: [0] * 25, Color.BLACK: [0] * 25}
    for color, points in ((Color.WHITE, white), (Color.BLACK, black)):
        for point, count in points.items():
            counts[color][point - 1] = count
    return Position.from_checkers(counts[Color.WHITE], counts[Color.BLACK], turn)


@pytest.fixture(scope="module")
def engine():
    assert find_gnubg() is not None, "GNU Backgammon must be installed for these tests"
    with GnubgEngine.popen(ply=0) as started:
        yield started


def assert_legal(position: Position, dice: tuple[int, int], play: Play) -> None:
    assert play in position.legal_plays(*dice), f"{play} is not legal in {position!r} with {dice}"


# -- starting and settings ------------------------------------------------------------------
def test_identity_and_options(engine):
    assert engine.id["name"].startswith("GNU Backgammon ")
    assert engine.dialect == "gnubg"
    ply = engine.options["Ply"]
    assert (ply.type, ply.default, ply.min, ply.max) == ("spin", "0", 0, 4)
    assert "pid=" in repr(engine)


def test_configure(engine):
    engine.configure({"ply": 1})
    try:
        assert engine.options["Ply"].default == "1"
        # (gnubg keeps a play at 0 ply when its move filter leaves no rival, as for 3-1)
        assert engine.play(Position(), (6, 2)).info["depth"] == 1
    finally:
        engine.configure({"Ply": 0})
    assert engine.play(Position(), (6, 2)).info["depth"] == 0
    with pytest.raises(EngineError, match="Hash"):
        engine.configure({"Hash": 16})
    with pytest.raises(EngineError, match="0..4"):
        engine.configure({"Ply": 9})


def test_limit_depth_overrides_ply(engine):
    hints = engine.analyse(Position(), (6, 2), multipv=2, limit=Limit(depth=1))
    assert hints[0].ply == 1
    assert engine.play(Position(), (6, 2)).info["depth"] == 0


# -- checker play ---------------------------------------------------------------------------
def test_opening_31(engine):
    result = engine.play(Position(), (3, 1))
    assert str(result.play) == "8/5 6/5"
    assert result.info["pv"] == "8/5 6/5"
    assert 0.5 < result.info["pwin"] < 0.6


def test_dice_from_state_and_order(engine):
    assert str(engine.play(GameState(dice=(1, 3))).play) == "8/5 6/5"
    with pytest.raises(ValueError, match="no dice"):
        engine.play(Position())


def test_no_legal_play(engine):
    # White is on the bar against a closed board.
    position = checkers({25: 1, 1: 2, 2: 2, 3: 2, 13: 8}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3})
    for dice in ((6, 6), (3, 1)):
        assert engine.play(position, dice).play == Play()
    [hint] = engine.analyse(position, (6, 6), multipv=3)
    assert hint.play == Play() and hint.loss == 0.0
    assert hint.probabilities.win < 0.5


def test_bar_entry(engine):
    position = checkers({25: 1, 24: 1, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5})
    result = engine.play(position, (6, 4))
    assert_legal(position, (6, 4), result.play)
    assert result.play.moves[0].source == BAR


def test_bear_off(engine):
    position = checkers({1: 3, 2: 3, 3: 3, 4: 2, 5: 2, 6: 2}, {1: 2, 2: 2, 3: 3, 4: 3, 5: 3, 6: 2})
    result = engine.play(position, (6, 5))
    assert str(result.play) == "6/off 5/off"
    assert all(move.target == OFF for move in result.play)


def test_doubles(engine):
    result = engine.play(Position(), (6, 6))
    assert len(result.play) == 4
    assert_legal(Position(), (6, 6), result.play)


def test_black_on_roll(engine):
    position = Position().apply("13/11 6/5", (2, 1))  # white leaves two blots
    assert position.turn == Color.BLACK
    for dice in ((6, 5), (4, 4), (2, 1), (6, 4)):
        assert_legal(position, dice, engine.play(position, dice).play)
    # With 4-4 black hits the blot on its 20-point (white's 5-point).
    assert any(move.hit for move in engine.play(position, (4, 4)).play)
    hints = engine.analyse(position, (6, 4), multipv=5)
    assert len(hints) == 5 and all(h.play in position.legal_plays(6, 4) for h in hints)


def test_analyse_multipv(engine):
    hints = engine.analyse(Position(), (4, 2), multipv=3)
    assert [h.rank for h in hints] == [1, 2, 3]
    assert str(hints[0].play) == "8/4 6/4"
    equities = [h.equity for h in hints]
    assert equities == sorted(equities, reverse=True)
    assert hints[0].loss == 0.0 and all(h.loss >= 0 for h in hints)
    assert len({h.play for h in hints}) == 3
    for hint in hints:
        assert_legal(Position(), (4, 2), hint.play)
        assert hint.ply == 0 and hint.cubeful is not None
        assert 0.0 < hint.probabilities.win < 1.0
    with pytest.raises(ValueError):
        engine.analyse(Position(), (4, 2), multipv=0)


# -- match and cube context -----------------------------------------------------------------
def test_match_state_from_gnubg_id(engine):
    state = GameState.from_gnubg_id("4HPwATDgc/ABMA:cInlACAAIAAA")  # 7-point match, 2-4, 3-1 rolled
    assert state.match_length == 7 and state.dice is not None
    result = engine.play(state)
    assert str(result.play) == "8/5 6/5"
    assert engine.cube(state.replace(dice=None)).ubgi() in ("double", "nodouble")
    crawford = GameState(position=Position(), match_length=5, score=(4, 2), crawford=True)
    assert engine.cube(crawford).ubgi() == "nodouble"
    assert_legal(crawford.position, (5, 2), engine.play(crawford, (5, 2)).play)


def test_cube_actions(engine):
    for position_id, action, answer in ((EVEN_RACE, "nodouble", "take"), (DOUBLE_TAKE, "double", "take"),
                                        (DOUBLE_PASS, "double", "drop")):
        for turn in (Color.WHITE, Color.BLACK):
            state = GameState(position=Position(position_id, turn))
            result = engine.cube(state)
            assert result.ubgi() == action, (position_id, turn, result)
            assert {"no_double", "double_take", "double_pass"} <= result.info.keys()
            assert engine.cube(state.replace(double_offered=True)).ubgi() == answer


def test_cube_too_good(engine):
    result = engine.cube(GameState(position=Position(TOO_GOOD)))
    assert result.ubgi() == "nodouble"
    assert result.info["proper"].startswith("Too good")
    assert engine.cube(GameState(position=Position(TOO_GOOD), double_offered=True)).ubgi() == "drop"


def test_cube_not_available(engine):
    owned = GameState(position=Position(DOUBLE_PASS), cube=2, cube_owner=Color.BLACK)
    assert engine.cube(owned).ubgi() == "nodouble"
    assert engine.cube(owned.replace(cube_owner=Color.WHITE)).ubgi() == "double"  # a redouble


# -- the key check: gnubg's answers are legal in our positions -------------------------------
def test_random_positions_get_legal_plays(engine):
    rng = random.Random(20240607)
    position, asked = Position(), 0
    turns = set()
    while asked < 50:
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        legal = position.legal_plays(*dice)
        if rng.random() < 0.3:
            state = GameState(position=position, match_length=7, score=(rng.randrange(7), rng.randrange(7)))
        else:
            state = GameState(position=position)
        result = engine.play(state, dice)
        assert result.play in legal, (position, dice, result.play)
        turns.add(position.turn)
        asked += 1
        position = position.apply(rng.choice(list(legal)), dice)
        if position.winner() is not None:
            position = Position()
    assert turns == {Color.WHITE, Color.BLACK}


# -- robustness -----------------------------------------------------------------------------
def test_quit_leaves_no_process():
    engine = GnubgEngine.popen(ply=0)
    process = engine.process
    assert process.poll() is None
    engine.quit()
    assert process.poll() is not None
    engine.quit()  # idempotent
    engine.close()
    assert "closed" in repr(engine)
    with pytest.raises(EngineTerminatedError):
        engine.play(Position(), (3, 1))


def test_dropped_engine_is_closed():
    engine = GnubgEngine.popen()
    process = engine.process
    del engine
    gc.collect()
    assert process.wait(timeout=5) is not None


def test_context_manager_closes():
    with GnubgEngine.popen() as engine:
        process = engine.process
    assert process.poll() is not None


def test_bogus_command():
    with pytest.raises(EngineError, match="cannot start"):
        GnubgEngine.popen("/nonexistent/gnubg")
    with pytest.raises(EngineError):
        GnubgEngine.popen(["/bin/true"])  # exits at once


def test_not_installed(monkeypatch):
    monkeypatch.setattr(gnubg_module, "find_gnubg", lambda: None)
    with pytest.raises(EngineError, match="GNU Backgammon not found"):
        GnubgEngine.popen()


def test_timeout_then_recovery():
    with pytest.raises(EngineTimeoutError):
        GnubgEngine.popen(["sh", "-c", "exec sleep 10"], timeout=0.3)
    with GnubgEngine.popen(ply=0) as engine:
        engine.timeout = 0.0
        with pytest.raises(EngineTimeoutError):
            engine.play(Position(), (5, 2))
        engine.timeout = 30.0
        # The late answer to 5-2 is skipped: this answer is the one for 6-1.
        assert str(engine.play(Position(), (6, 1)).play) == "13/7 8/7"


def test_not_gnubg_is_a_protocol_error(tmp_path):
    # Answers the end marker like gnubg but prints no banner.
    script = tmp_path / "fake.py"
    script.write_text(textwrap.dedent("""
        import sys
        for line in sys.stdin:
            if line.startswith("set prompt "):
                print("The prompt has been set to `%s'." % line.split()[2], flush=True)
    """))
    with pytest.raises(EngineProtocolError, match="does not look like GNU Backgammon"):
        GnubgEngine.popen([sys.executable, str(script)])


def test_gnubg_is_a_duel_player() -> None:
    from gammon.duel import duel

    result = duel("gnubg:0", "pubeval", 2, seed=1, workers=1)
    assert result.a == "gnubg:0" and result.games == 2


def test_one_point_match(engine) -> None:
    # gnubg marks every game of a 1-point match post-Crawford; the load check must agree.
    state = GameState.from_gnubg_id("4HPwATDgc/ABMA:MIEqAAAAAAAA")
    assert state.match_length == 1
    assert engine.play(state, (5, 2)).play in state.position.legal_plays(5, 2)

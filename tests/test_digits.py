"""One rule for digits everywhere: only ASCII ``0``-``9`` are numbers (issue 13).

``str.isdigit()`` is True for ``²``, ``①`` and ``٣``; ``int()`` then raises on the first two
and reads the third. Every reproduction of the issue is here, and a property per parser.
"""

from __future__ import annotations

import io
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gammon import FixedDice, Match, Play, Position
from gammon.engine_server import UbgiEngine
from gammon.errors import GammonError, InvalidMoveError
from gammon.notation import pbm, whole_number

#: Characters that str.isdigit() takes for digits and gammon does not.
NOT_ASCII_DIGITS = ["²", "³", "①", "٣", "۳", "३", "３", "𝟑", "⁵", "₂"]


def test_whole_number_takes_ascii_digits_only() -> None:
    assert whole_number("0") == 0 and whole_number("13") == 13 and whole_number("007") == 7
    for digit in NOT_ASCII_DIGITS:
        assert digit.isdigit() and whole_number(digit) is None and whole_number(f"1{digit}") is None
    for text in ("", " 1", "1 ", "+1", "-1", "1_0", "1.0", "0x1", "½"):
        assert whole_number(text) is None
    assert whole_number("7", 1, 6) is None and whole_number("0", 1, 6) is None and whole_number("6", 1, 6) == 6
    assert whole_number("9" * 101) is None and whole_number("0" * 5000 + "5") == 5  # no int() digit limit reached


@given(st.text())
def test_whole_number_is_none_or_what_the_ascii_digits_say(text: str) -> None:
    value = whole_number(text)
    if value is None:
        assert not (text.isascii() and text.isdigit()) or len(text.lstrip("0")) > 100
    else:
        assert text.isascii() and text.isdigit() and value == int(text)


# -- move text and play-by-mail --------------------------------------------------------------------
def test_in_legal_plays_answers_false_for_unicode_digits() -> None:
    legal = Position().legal_plays(3, 1)
    assert ("²/1" in legal) is False and ("13/①" in legal) is False and ("8/5(²) 6/5" in legal) is False
    assert "8/5 6/5" in legal  # ASCII still read


@pytest.mark.parametrize("text", ["²/1", "13/①", "٨/5 ٦/5", "13/10(²)", "bar/２２"])
def test_find_apply_and_parse_refuse_unicode_digits_with_invalid_move_error(text: str) -> None:
    legal = Position().legal_plays(3, 1)
    with pytest.raises(InvalidMoveError):
        legal.find(text)
    with pytest.raises(InvalidMoveError):
        Position().apply(text)
    with pytest.raises(InvalidMoveError):
        Position().apply(text, (3, 1))
    with pytest.raises(InvalidMoveError):
        Play.parse(text)


def test_match_play_refuses_unicode_digits_and_the_match_goes_on() -> None:
    match = Match(3, dice=FixedDice([(3, 1)]))
    match.roll()
    before = match.state
    for text in ("²/1", "13/①", "8/5(²)"):
        with pytest.raises(InvalidMoveError):
            match.play(text)
    assert match.state == before
    match.play("8/5 6/5")


@pytest.mark.parametrize("text", ["1-²", "²-4", "1:²", "①", "٢(1-4)", "1-4(٢)"])
def test_play_by_mail_refuses_unicode_digits(text: str) -> None:
    with pytest.raises(InvalidMoveError):
        pbm.parse_play(text, Position(), (3, 1))


MOVE_ALPHABET = st.sampled_from(list("0123456789/()*-:, bBhHoOfF\t") + NOT_ASCII_DIGITS + ["bar", "off", "\x00", "é"])
move_like = st.one_of(st.text(), st.lists(MOVE_ALPHABET, max_size=20).map("".join))


@settings(max_examples=300, deadline=None)
@given(move_like, st.integers(1, 6), st.integers(1, 6))
def test_in_legal_plays_answers_a_bool_for_any_text(text: str, d1: int, d2: int) -> None:
    legal = Position().legal_plays(d1, d2)
    assert (text in legal) in (True, False)
    try:
        found = legal.find(text)
    except GammonError:
        assert text not in legal
    else:
        assert text in legal and found in legal


@settings(max_examples=300, deadline=None)
@given(move_like, st.integers(1, 6), st.integers(1, 6))
def test_play_by_mail_raises_only_gammon_errors(text: str, d1: int, d2: int) -> None:
    try:
        pbm.parse_play(text, Position(), (d1, d2))
    except GammonError:
        pass


# -- the command line ---------------------------------------------------------------------------------
def test_moves_with_a_unicode_digit_die_is_an_argument_error_not_a_traceback() -> None:
    done = subprocess.run([sys.executable, "-m", "gammon", "moves", "4HPwATDgc/ABMA", "²", "1"],
                          capture_output=True, text=True, encoding="utf-8", timeout=120)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "DIE" in done.stderr and "'² 1'" in done.stderr


# -- the engine -----------------------------------------------------------------------------------------
def converse(lines: list[str]) -> list[str]:
    out = io.StringIO()
    UbgiEngine("pubeval", 0, out).run([line + "\n" for line in lines])
    return out.getvalue().splitlines()


@pytest.mark.parametrize("command", [
    "dice ² 1", "dice 3 ①", "setscore ² 0", "setscore 0 ٣", "setcube value ² owner center",
    "newsession type match length ²", "newsession type match length ٣", "go role cube movetime ²",
    "go role chequer depth ٣", "set engine.seed ٣", "set engine.ply ١", "setoption name MultiPV value ２",
    "set engine.threads 1_0", "set engine.ply +1",
])
def test_engine_refuses_unicode_digits_with_one_error_line(command: str, capfd: pytest.CaptureFixture[str]) -> None:
    out = converse(["position gnubgid 4HPwATDgc/ABMA:cAkAAAAAAAAA", "dice 3 1", command, "get engine.seed",
                    "get engine.ply", "get engine.threads", "get engine.multipv", "isready"])
    errors = [line for line in out if line.startswith("error")]
    assert len(errors) == 1 and "internal error" not in errors[0]
    assert [line for line in out if line.startswith("value")] == \
        ["value engine.seed 0", "value engine.ply 0", "value engine.threads 1", "value engine.multipv 1"]  # nothing was set
    assert out[-1] == "readyok"
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.parametrize("digit", NOT_ASCII_DIGITS)
def test_command_line_numbers_and_engine_options_take_ascii_digits_only(digit: str) -> None:
    import argparse

    from gammon.cli.bots import count
    from gammon.cli.play import _match_length
    from gammon.ubgi import Option, parse_info

    for reader in (count(1), _match_length):
        with pytest.raises(argparse.ArgumentTypeError):
            reader(digit)
        with pytest.raises(argparse.ArgumentTypeError):
            reader(f"1{digit}")
    assert count(1)("12") == 12 and _match_length("7") == 7
    with pytest.raises(ValueError, match="expected an integer"):
        Option("Ply", "spin", "0", min=0, max=3).check(digit)
    assert parse_info(f"info depth {digit} eq 0.5{digit}") == {"depth": digit, "eq": f"0.5{digit}"}
    assert parse_info("info depth 2 eq -0.25") == {"depth": 2, "eq": -0.25}

"""UBGI's lines (gammon.ubgi): round trips of settings, and parsers that fail clearly on anything an engine may print."""

from __future__ import annotations

import sys
import textwrap

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gammon import Position
from gammon.engine import EngineError, SimpleEngine
import pytest

from gammon.errors import GammonError, InvalidMoveError
from gammon import ubgi
from gammon.ubgi import Option

names = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,15}", fullmatch=True)
words = st.from_regex(r"[A-Za-z0-9_.-]{1,10}", fullmatch=True)


@st.composite
def options(draw: st.DrawFn) -> Option:
    kind = draw(st.sampled_from(["spin", "check", "string", "combo"]))
    if kind == "spin":
        low = draw(st.integers(-100, 100))
        high = draw(st.integers(low, low + 1000))
        return Option(draw(names), kind, str(draw(st.integers(low, high))), low, high)
    if kind == "check":
        return Option(draw(names), kind, draw(st.sampled_from(["true", "false"])))
    if kind == "combo":
        choices = tuple(draw(st.lists(words, min_size=1, max_size=5, unique=True)))
        return Option(draw(names), kind, draw(st.sampled_from(choices)), choices=choices)
    return Option(draw(names), kind, draw(words))


@given(options())
def test_option_and_key_lines_round_trip(option: Option) -> None:
    assert ubgi.parse_option_line(ubgi.format_option_line(option)) == option
    key = ubgi.parse_key_line(ubgi.format_key_line(option))
    assert key.name == option.name and key.default == option.default
    assert (key.min, key.max) == (option.min, option.max)
    if option.type == "combo":
        assert key.choices == option.choices
    assert option.check(option.default) == option.default


@given(st.text(max_size=200))
def test_info_lines_always_parse(text: str) -> None:
    info = ubgi.parse_info("info " + text)
    assert isinstance(info, dict)


@given(st.text(max_size=120))
def test_option_and_key_parsers_fail_with_value_error_only(text: str) -> None:
    for parse, prefix in ((ubgi.parse_option_line, "option "), (ubgi.parse_key_line, "key ")):
        for line in (text, prefix + text):
            try:
                parse(line)
            except ValueError:
                pass


@settings(deadline=None)  # the first example compiles the kernel
@given(st.text(alphabet=st.sampled_from(list("0123456789/*() barofpsn")), max_size=40))
def test_engine_plays_are_legal_or_rejected_clearly(text: str) -> None:
    legal = Position().legal_plays(3, 1)
    try:
        play = legal.parse_ubgi(text)
    except GammonError:
        return
    assert play in legal


def test_error_lines_stay_one_short_line() -> None:
    line = ubgi.error_line(ubgi.ErrorCode.BAD_ARGUMENT, "x\ny " * 1000)
    assert "\n" not in line and len(line) <= 260 and line.startswith("error bad_argument x y")


REPLIES = st.lists(st.one_of(
    st.sampled_from(["bestmove", "bestmove 8/5 6/5", "bestmove 24/1", "bestmove pass", "info depth x pv",
                     "info multipv 1 pv 13/9", "error", "error unsupported_feature no", "bestcube maybe",
                     "readyok", "id name x"]),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"),
            max_size=30),
), min_size=1, max_size=4)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(REPLIES)
def test_client_survives_any_reply_with_an_engine_error(replies: list[str]) -> None:
    """An engine answering ``go`` with arbitrary lines (then nothing): the client returns a
    legal play or raises an EngineError; it never hangs nor raises anything else."""
    source = textwrap.dedent(f'''
        import sys
        replies = {replies!r}
        for line in sys.stdin:
            word = line.split()[0] if line.split() else ""
            if word == "ubgi":
                print("id name garbled"); print("ubgiok", flush=True)
            elif word == "isready":  # the handshake's, and each request's: answered as any engine does
                print("readyok", flush=True)
            elif word == "go":
                for reply in replies:
                    print(reply)
                sys.stdout.flush()
            elif word == "quit":
                break
    ''')
    with SimpleEngine.popen_ubgi([sys.executable, "-c", source], timeout=0.5) as engine:
        for ask in (lambda: engine.play(Position(), (3, 1)), lambda: engine.analyse(Position(), (3, 1), multipv=2),
                    lambda: engine.cube(Position())):
            try:
                result = ask()
            except EngineError:
                continue
            if hasattr(result, "play"):
                assert result.play in Position().legal_plays(3, 1)


def test_the_client_reads_plays_as_other_engines_write_them() -> None:
    from gammon import Play, Position

    legal = Position().legal_plays(6, 6)
    assert str(legal.parse_ubgi("24/18(2) 13/7(2)")) == "24/18(2) 13/7(2)"
    for word in ("(none)", "no move", "None"):
        assert Play.from_ubgi(word) == Play()
        with pytest.raises(InvalidMoveError):
            Play.from_ubgi(word, strict=True)
    with pytest.raises(InvalidMoveError):
        legal.parse_ubgi("24/18(2) 13/7(2)", strict=True)
    with pytest.raises(InvalidMoveError):
        Play.from_ubgi("24/18(3) 13/7(2)")  # five steps

"""The terminal game, driven through its input: whole games, bad input, EOF, checker entry."""

from __future__ import annotations

import io
from collections.abc import Iterable

import pytest

from gammon.cli import main
from gammon.cli.play import Opponent, random_opponent, run
from gammon.dice import FixedDice
from gammon.match import Match
from gammon.play import LegalPlays, Play
from gammon.position import Color
from gammon.state import GameState, Resignation


def feed(monkeypatch: pytest.MonkeyPatch, lines: Iterable[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(line + "\n" for line in lines)))


def scripted(lines: list[str]) -> tuple[list[str], object]:
    """A ``read`` that answers from ``lines`` then reports end of input, and a ``write`` that records."""
    answers = iter(lines)
    out: list[str] = []

    def read(prompt: str) -> str:
        out.append(prompt)
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    return out, (read, out.append)


def first_play(state: GameState, legal: LegalPlays) -> Play:
    return legal[0]


@pytest.mark.parametrize("args", [["--seed", "1"], ["--seed", "2", "--match", "3", "--plain"]])
def test_whole_match_through_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, args: list[str]) -> None:
    # Enter rolls, #1 makes the first legal play; a line that does not fit just re-prompts.
    feed(monkeypatch, ["", "#1"] * 2000)
    assert main(["play", *args]) == 0
    out = capsys.readouterr().out
    assert "Opening roll:" in out
    assert "the match." in out
    assert "Traceback" not in out


def test_same_seed_same_game(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    outputs = []
    for _ in range(2):
        feed(monkeypatch, ["", "#1"] * 2000)
        main(["play", "--seed", "9"])
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]


def test_end_of_input_ends_cleanly(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    feed(monkeypatch, [])
    assert main(["play", "--seed", "3"]) == 0
    assert "Traceback" not in capsys.readouterr().out


def test_bad_input_gets_a_message_and_the_prompt(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    feed(monkeypatch, ["xyz", "#1", "u", "t", "p", "a", "r x", "h", "pips", "score", "cube", "dice", "turn", "e",
                       "board", "", "", "99/1", "24/14", "#999", "d", "l", "q"])
    assert main(["play", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert out.count("Not possible:") >= 8
    assert "Commands" in out and "Pips: you" in out and "Score: you 0" in out and "No doubling cube" in out
    assert "Bye." in out


def test_bad_match_length_is_a_usage_error(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exit:
        main(["play", "--match", "26"])
    assert exit.value.code == 2


def test_checker_by_checker_and_undo() -> None:
    # White opens 3-1; the bot then rolls 6-5 and plays its first legal play.
    match = Match(3, dice=FixedDice([(3, 1), (6, 5)]))
    out, (read, write) = scripted(["8/5", "u", "8 5", "6/5", "", "pips"])
    assert run(match, Opponent(first_play), read=read, write=write) == 0
    text = "\n".join(out)
    assert "Undone: 8/5." in text
    assert "Play complete" in text
    assert "You play 8/5 6/5." in text
    assert "The bot rolls 6-5 and plays" in text
    assert match.history[1].play is not None and str(match.history[1]) == "white play 8/5 6/5"


def test_cube_and_resignation_commands() -> None:
    match = Match(5, dice=FixedDice([(1, 3), (4, 2), (6, 5)]))
    out, (read, write) = scripted(["d", "", "#1", "r g"])  # bot opens; we double, it takes
    run(match, random_opponent(1), read=read, write=write)
    text = "\n".join(out)
    assert "You double to 2." in text and "takes. The cube is at 2." in text
    assert "You offer to resign a gammon." in text
    assert match.results[0].points == 4 and match.score[Color.BLACK] == 4


def test_bot_doubles_and_we_drop() -> None:
    match = Match(5, dice=FixedDice([(3, 1), (6, 5)]))
    bot = Opponent(first_play, double=lambda state: True)
    out, (read, write) = scripted(["#1", "p"])
    run(match, bot, read=read, write=write)
    text = "\n".join(out)
    assert "The bot doubles to 2." in text and "you win" not in text
    assert match.score == (1, 0)


def test_money_play_asks_before_the_next_game() -> None:
    match = Match(0, dice=FixedDice([(3, 1), (6, 5)]))
    bot = Opponent(first_play, double=lambda state: True)
    out, (read, write) = scripted(["#1", "p", "q"])
    run(match, bot, read=read, write=write)
    assert "Money play: you 0, bot 1." in "\n".join(out) and out[-1] == "Bye."


def test_dice_running_out_stops_the_game() -> None:
    out, (read, write) = scripted(["#1"])
    assert run(Match(1, dice=FixedDice([(3, 1)])), Opponent(first_play), read=read, write=write) == 1
    assert out[-1].startswith("Game stopped:")


def test_one_point_match_is_not_post_crawford() -> None:
    from gammon import GameState

    assert not GameState(match_length=1).post_crawford
    assert GameState(match_length=5, score=(4, 2)).post_crawford


def test_engine_bot_answers_the_cube_and_gives_cube_hints() -> None:
    from gammon.players import load_player
    from gammon.cli.play import player_opponent

    bot = player_opponent(load_player("nn"))
    # Black (the bot) has fifteen checkers on its 8-point against white's last checker:
    # hopeless. Doubling it there is a gift, so it passes; white (on roll) is told to double.
    from gammon.position import Position

    white, black = [0] * 25, [0] * 25
    white[0], black[7] = 1, 15
    state = GameState(position=Position.from_checkers(white, black, turn=Color.WHITE), double_offered=True)
    assert not bot.take(state)
    # The other way round, white (on roll) hopeless resigns a gammon: the bot accepts, not a single.
    hopeless = GameState(position=Position.from_checkers(black, white, turn=Color.WHITE))
    assert bot.accept(hopeless.replace(resignation=Resignation.GAMMON))
    assert not bot.accept(hopeless.replace(resignation=Resignation.SINGLE))
    match = Match(7, dice=FixedDice([(3, 1), (6, 5), (2, 2)]))
    out, (read, write) = scripted(["ch", "#1", "ch"])
    run(match, bot, read=read, write=write)
    text = "\n".join(out)
    assert "7-away / 7-away, cube 1 centred; nn:2" in text and "Proper cube action:" in text

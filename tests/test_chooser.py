"""The compiled 0-ply choice (gammon.bots.chooser): the same play as the bot's analysis, made by
every noise-free cubeless 0-ply bot whose evaluator has a compiled form; the others analyse."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gammon import Position
from gammon.bots import Bot
from gammon.cube.context import CubeContext
from gammon.players import load_player
from gammon.variant import Variant

CORPUS = Path(__file__).parent / "vectors" / "corpus.txt"


def _rolls(count: int) -> list[tuple[str, int, int]]:
    rows = [line.split() for line in CORPUS.read_text().splitlines() if line.strip()]
    return [(pid, int(a), int(b)) for pid, a, b in rows[:count]]


@pytest.mark.parametrize("name", ["nn", "pubeval", "simple"])
def test_the_compiled_choice_is_the_analysis_best_play(name: str) -> None:
    """Contact, races and bear-offs (the tables' exact values), doubles with hundreds of plays:
    the board and the checker moves of the analysis's best play, the first of equals."""
    bot = load_player(f"{name}:0")
    assert isinstance(bot, Bot) and bot._compiled(None) is not None
    for pid, d1, d2 in _rolls(600):
        position = Position(pid)
        analysis = bot.analyse(position.array(), d1, d2)
        best = analysis.best()
        assert (bot.choose_board(position.array(), d1, d2) == analysis.boards[best]).all(), (pid, d1, d2)
        moves = analysis.moves[best][: int(analysis.counts[best])]
        chosen = bot.choose_play(position, d1, d2)
        assert [(m.source, m.target, m.hit) for m in chosen.moves] == [(int(a), int(b), bool(c)) for a, b, c in moves]


def test_a_read_only_or_wide_board_is_taken_as_it_is() -> None:
    bot = load_player("pubeval:0")
    board = Position().array()
    expected = bot.choose_board(board, 3, 1)
    frozen = board.copy()
    frozen.flags.writeable = False
    assert (bot.choose_board(frozen, 3, 1) == expected).all()
    assert (bot.choose_board(board.astype(np.int64), 3, 1) == expected).all()
    assert (frozen == board).all()


@pytest.mark.parametrize("spec", ["pubeval:1", "pubeval:0:beginner"])
def test_deeper_or_noisy_bots_analyse(spec: str) -> None:
    assert load_player(spec)._compiled(None) is None


def test_a_bot_without_a_compiled_evaluator_analyses() -> None:
    bot = load_player("random")
    assert bot._compiled(None) is None
    board = Position().array()
    assert bot.choose_board(board, 3, 1).shape == (26,)


def test_with_the_cube_or_two_move_doubles_the_bot_analyses() -> None:
    """The chooser is cubeless and generates the standard rules' plays: a cube context or a
    variant of two-move doubles goes through the analysis (whose plays differ)."""
    bot = load_player("pubeval:0")
    assert bot._compiled(CubeContext()) is None
    bot.variant = Variant(two_move_doubles=True)
    assert bot._compiled(None) is None
    board = Position().array()
    chosen = bot.choose_board(board, 6, 6)
    analysis = bot.analyse(board, 6, 6)
    assert (chosen == analysis.boards[analysis.best()]).all()

"""The positions ``gammon ubgi-check`` asks about: tricky ones built in, or a file of them."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from ..errors import GammonError
from ..position import Position
from ..state import GameState, GameStatus
from .report import CheckSetupError


def _checkers(points: dict[int, int], bar: int = 0) -> list[int]:
    counts = [0] * 25
    for point, count in points.items():
        counts[point - 1] = count
    counts[24] = bar
    return counts


def midgame(steps: int, seed: int = 1) -> Position:
    """A contact position some plies into a game played at random (fixed seed: always the same)."""
    chooser = random.Random(seed)
    position = Position()
    for _ in range(steps):
        legal = position.legal_plays(chooser.randint(1, 6), chooser.randint(1, 6))
        position = chooser.choice(legal.positions())
    return position


@dataclass(frozen=True)
class CorpusPosition:
    """A position with the rolls to try in it, and why it is tricky."""

    name: str
    state: GameState
    rolls: tuple[tuple[int, int], ...]


def builtin_corpus() -> list[CorpusPosition]:
    """Positions where engines go wrong: entering from the bar, closed boards, bear-offs,
    doubles, the larger-die rule and the second player (BLACK) to act."""
    white_home = {6: 5, 8: 3, 13: 4, 12: 2}
    five_point_board = Position.from_checkers(
        _checkers(white_home, bar=1), _checkers({1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 8: 3, 9: 2})
    )
    closed_board = Position.from_checkers(
        _checkers({6: 5, 8: 3, 13: 5}, bar=2), _checkers({1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 8: 3})
    )
    bear_off = Position.from_checkers(_checkers({3: 2, 2: 2, 1: 1}), _checkers({6: 5, 8: 3, 13: 5, 12: 2}))
    # One checker on 13: 13/7/2 and 13/8/2 are blocked, so only one die plays, and it must be the 6.
    one_die = Position.from_checkers(_checkers({13: 1}), _checkers({23: 2, 6: 5, 8: 3, 13: 5}))
    black_to_act = Position().apply("8/5 6/5")
    return [
        CorpusPosition("bar-entry", GameState(position=five_point_board), ((6, 5), (5, 4), (6, 6), (4, 2))),
        CorpusPosition("closed-board", GameState(position=closed_board), ((6, 6), (3, 1))),
        CorpusPosition("bear-off", GameState(position=bear_off), ((6, 5), (6, 4), (5, 5), (4, 1))),
        CorpusPosition("double-sixes", GameState(), ((6, 6),)),
        CorpusPosition("larger-die", GameState(position=one_die), ((6, 5), (4, 3))),
        CorpusPosition("black-to-act", GameState(position=black_to_act), ((6, 4), (5, 5), (2, 1))),
    ]


def read_corpus(path: str | Path, seed: int = 0) -> list[CorpusPosition]:
    """One position per line (anything GameState.parse reads; blank lines and ``#`` comments
    skipped), each tried with its own dice if it has them and two seeded rolls."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CheckSetupError(f"--positions {str(path)!r}: {getattr(error, 'strerror', None) or error}") from None
    dice = random.Random(seed)
    corpus = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            state = GameState.parse(line)
            playable = state.replace(dice=None, double_offered=False, resignation=None, status=GameStatus.PLAYING)
        except GammonError as error:
            raise CheckSetupError(f"--positions {str(path)!r} line {number}: {error}") from None
        if playable.position.winner() is not None:
            raise CheckSetupError(f"--positions {str(path)!r} line {number}: the game is over")
        rolls = [state.dice] if state.dice is not None else []
        while len(rolls) < 3:
            rolls.append((dice.randint(1, 6), dice.randint(1, 6)))
        corpus.append(CorpusPosition(f"line {number}", playable, tuple(rolls)))
    if not corpus:
        raise CheckSetupError(f"--positions {str(path)!r}: no positions")
    return corpus

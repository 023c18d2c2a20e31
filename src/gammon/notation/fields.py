"""A game as the notations read and write it: plain fields, below the value types.

Each notation's reader returns :class:`GameFields` and its writer takes them; GameState
(:mod:`gammon.state`) makes its fields from them and checks the rules that tie fields together
(a 1-cube cannot be owned, the Crawford game needs a side 1-away, ...). ``sources`` says which of
the notation's own fields carries each one, so that an error names the text the user must fix.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..board import CHECKERS, Color
from ..errors import NotationError
from ..variant import STANDARD, Variant
from . import whole_number

_DECIMAL = re.compile(r"0|[1-9][0-9]{0,5}")


class GameStatus(enum.IntEnum):
    """GNU Backgammon's game state field of the Match ID."""

    NONE = 0
    PLAYING = 1
    OVER = 2
    RESIGNED = 3
    DROPPED = 4

    def __repr__(self) -> str:
        return f"GameStatus.{self.name}"


class Resignation(enum.IntEnum):
    """How much a resigning side gives up (times the cube)."""

    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3

    def __repr__(self) -> str:
        return f"Resignation.{self.name}"


@dataclass(frozen=True, slots=True)
class GameFields:
    """The fields of a game, as a notation says them (see :class:`gammon.state.GameState`).

    The checkers are ``white`` and ``black``, each side's 25 counts in its own numbering (points
    1..24, then its bar), or ``board``, the 26 signed counts seen from ``turn`` that a Position ID
    holds; a Match ID alone has neither. ``turn`` is the player on roll. ``notation``, ``text`` and
    ``sources`` (a GameState field's name -> the notation's field and its text) name what to fix
    when the game is not a possible one.
    """

    white: tuple[int, ...] | None
    black: tuple[int, ...] | None
    turn: Color
    dice: tuple[int, int] | None = None
    cube: int = 1
    cube_owner: Color | None = None
    double_offered: bool = False
    resignation: Resignation | None = None
    score: tuple[int, int] = (0, 0)
    match_length: int = 0
    crawford: bool = False
    jacoby: bool = False
    beavers: bool = False
    cube_limit: int | None = None
    status: GameStatus | None = None
    variant: Variant = STANDARD
    board: tuple[int, ...] | None = None
    notation: str = ""
    text: str = ""
    sources: Mapping[str, tuple[str, str]] = field(default_factory=dict, compare=False)

    @property
    def to_act(self) -> Color:
        """The side that must act: the doubled or resigned-to side, else the player on roll."""
        return self.turn.other if self.double_offered or self.resignation is not None else self.turn

    def checkers(self, color: Color) -> tuple[int, ...]:
        """``color``'s 25 counts (a writer's fields always have them)."""
        counts = self.white if color == Color.WHITE else self.black
        if counts is None:
            raise ValueError("these fields carry no checkers")
        return counts

    def bar(self, color: Color) -> int:
        return self.checkers(color)[24]

    def borne_off(self, color: Color) -> int:
        return CHECKERS - sum(self.checkers(color))

    def won(self) -> bool:
        """A side has borne off all its checkers: the placement shows a finished game."""
        return any(self.borne_off(color) == CHECKERS for color in Color)

    def source(self, name: str) -> tuple[str, str]:
        """The notation's field that carries GameState's field ``name``, and its text."""
        return self.sources.get(name, ("state", self.text))


def decimal(notation: str, name: str, text: str, expected: str = "a decimal number") -> int:
    """A plain non-negative decimal (no sign, no leading zeros, ASCII digits only: not ``²``
    or ``٣``), as every notation writes it."""
    value = whole_number(text) if _DECIMAL.fullmatch(text) else None
    if value is None:
        raise NotationError(notation, name, text, expected)
    return value


def check_counts(notation: str, name: str, text: str, white: Sequence[int], black: Sequence[int]) -> None:
    """At most 15 checkers a side, as the notation's field ``name`` gives them."""
    for side, counts in (("white", white), ("black", black)):
        if sum(counts) > CHECKERS:
            raise NotationError(notation, name, text, f"at most {CHECKERS} {side} checkers, not {sum(counts)}")


def playing_score(notation: str, fields: GameFields, text: str) -> None:
    """Refuse a match score a game being played cannot have, for a writer whose notation has no
    game status: its reader reads a game being played, or one a side has won by bearing off
    all 15 (the placement shows it), and a score past the match length would not read back.
    ``text`` is the score as the notation writes it."""
    if fields.match_length and not fields.won() and max(fields.score) >= fields.match_length:
        raise NotationError(
            notation, "score", text,
            f"scores below the match length {fields.match_length}: {notation} has no game status, so it "
            "describes a game being played (or won by bearing off all 15), not a match already won",
        )

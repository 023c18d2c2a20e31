"""A snapshot of everything a notation can carry: position, dice, cube, score and rules."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace

from .errors import InvalidPositionError
from .position import Color, Position

MAX_MATCH_LENGTH = 25


class GameStatus(enum.IntEnum):
    """GNU Backgammon's game state field of the Match ID."""

    NONE = 0
    PLAYING = 1
    OVER = 2
    RESIGNED = 3
    DROPPED = 4


class Resignation(enum.IntEnum):
    """How much a resigning side gives up (times the cube)."""

    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3


@dataclass(frozen=True, slots=True)
class GameState:
    """Position plus the match context: what BPN, XGID and GNU Backgammon IDs describe.

    ``position.turn`` is the player *on roll*: the one who rolls or has rolled, and who
    doubled when ``double_offered`` is set (then the opponent must take or drop; see
    :attr:`to_act`). ``score`` is indexed by :class:`Color` value: ``score[Color.WHITE]``.
    ``match_length`` 0 is a money game. ``cube_limit`` is the largest cube value allowed,
    or None for no limit.
    """

    position: Position = field(default_factory=Position)
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
    status: GameStatus = GameStatus.PLAYING

    def __post_init__(self) -> None:
        if self.dice is not None:
            if len(self.dice) != 2 or not all(isinstance(d, int) and 1 <= d <= 6 for d in self.dice):
                raise InvalidPositionError(f"dice must be two values 1-6 or None, got {self.dice!r}")
        if self.cube < 1 or self.cube & (self.cube - 1):
            raise InvalidPositionError(f"cube must be a power of two >= 1, got {self.cube}")
        if self.cube == 1 and self.cube_owner is not None:
            raise InvalidPositionError("a 1-cube is centred; it cannot be owned")
        if self.cube_limit is not None and not self.cube <= self.cube_limit:
            raise InvalidPositionError(f"cube {self.cube} is above the cube limit {self.cube_limit}")
        if not 0 <= self.match_length <= MAX_MATCH_LENGTH:
            raise InvalidPositionError(f"match length must be 0 (money) to {MAX_MATCH_LENGTH}, got {self.match_length}")
        if len(self.score) != 2 or any(s < 0 for s in self.score):
            raise InvalidPositionError(f"score must be two counts >= 0, got {self.score!r}")
        if self.match_length and any(s >= self.match_length for s in self.score) and self.status == GameStatus.PLAYING:
            raise InvalidPositionError(f"score {self.score} has already won a {self.match_length}-point match")
        if self.crawford and not self.match_length:
            raise InvalidPositionError("the Crawford game exists only in match play")
        if self.double_offered and self.dice is not None:
            raise InvalidPositionError("a double is offered before rolling, so dice must be unrolled")

    @property
    def to_act(self) -> Color:
        """The side that must act now: the doubled or resigned-to side, else the player on roll."""
        turn = self.position.turn
        return turn.other if self.double_offered or self.resignation is not None else turn

    @property
    def is_money(self) -> bool:
        return self.match_length == 0

    @property
    def post_crawford(self) -> bool:
        """A match game after the Crawford game: a side is 1-away and this is not the Crawford game."""
        return bool(self.match_length) and not self.crawford and (self.match_length - 1) in self.score

    def away(self, color: Color) -> int:
        """Points ``color`` still needs to win the match (0 for money)."""
        return self.match_length - self.score[color] if self.match_length else 0

    def replace(self, **changes: object) -> GameState:
        return replace(self, **changes)

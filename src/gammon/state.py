"""A snapshot of everything a notation can carry: position, dice, cube, score and rules.

Every notation is a constructor/method pair on :class:`GameState` (``from_bpn``/``bpn``,
``from_xgid``/``xgid``, ...); the parsers live in :mod:`gammon.notation`.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING

from .errors import InvalidPositionError, NotationError
from .position import Color, Position

if TYPE_CHECKING:
    from .notation.fibs import FibsBoard

MAX_MATCH_LENGTH = 25


def _invalid(field_name: str, message: str) -> InvalidPositionError:
    """An InvalidPositionError that also says which field is wrong, so parsers can name it."""
    error = InvalidPositionError(message)
    error.field = field_name  # type: ignore[attr-defined]
    return error


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


@dataclass(frozen=True, slots=True, repr=False)
class GameState:
    """Position plus the match context: what BPN, XGID and GNU Backgammon IDs describe.

    ``position.turn`` is the player *on roll*: the one who rolls or has rolled, and who
    doubled when ``double_offered`` is set (then the opponent must take or drop; see
    :attr:`to_act`). ``score`` is indexed by :class:`Color` value: ``score[Color.WHITE]``.
    ``match_length`` 0 is a money game. ``cube_limit`` is the largest cube value allowed,
    or None for no limit. ``crawford`` marks the Crawford game itself (a side is 1-away in
    a match of 2 or more points); ``jacoby`` and ``beavers`` are money-play rules.

    >>> GameState.from_bpn('b4E1C3eE3c1e4B-w0b0-w31-n10-0:0:7')
    GameState.from_bpn('b4E1C3eE3c1e4B-w0b0-w31-n10-0:0:7')
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
                raise _invalid("dice", f"dice must be two values 1-6 or None, got {self.dice!r}")
        if self.cube < 1 or self.cube & (self.cube - 1):
            raise _invalid("cube", f"cube must be a power of two >= 1, got {self.cube}")
        if self.cube_owner is not None and not isinstance(self.cube_owner, Color):
            raise _invalid("cube_owner", f"cube_owner must be a Color or None, got {self.cube_owner!r}")
        if self.cube == 1 and self.cube_owner is not None:
            raise _invalid("cube_owner", "a 1-cube is centred; it cannot be owned")
        if self.cube_limit is not None and not self.cube <= self.cube_limit:
            raise _invalid("cube_limit", f"cube {self.cube} is above the cube limit {self.cube_limit}")
        if not 0 <= self.match_length <= MAX_MATCH_LENGTH:
            raise _invalid("match_length", f"match length must be 0 (money) to {MAX_MATCH_LENGTH}, got {self.match_length}")
        if len(self.score) != 2 or any(s < 0 for s in self.score):
            raise _invalid("score", f"score must be two counts >= 0, got {self.score!r}")
        if self.match_length and any(s >= self.match_length for s in self.score) and self.status == GameStatus.PLAYING:
            raise _invalid("score", f"score {self.score} has already won a {self.match_length}-point match")
        if self.crawford and not self.match_length:
            raise _invalid("crawford", "the Crawford game exists only in match play")
        # The Crawford game is the one game after a side first reaches 1-away (no such
        # game in a 1-point match, where the cube is never used).
        if self.crawford and (self.match_length < 2 or self.match_length - 1 not in self.score):
            raise _invalid(
                "crawford",
                f"the Crawford game needs a side 1-away in a match of 2 or more, not {self.score} to {self.match_length}",
            )
        if self.crawford and self.cube != 1:
            raise _invalid("cube", f"the Crawford game is played without the cube: it stays at 1, not {self.cube}")
        if (self.jacoby or self.beavers) and self.match_length:
            raise _invalid("jacoby", "the Jacoby rule and beavers are money-play rules (match length 0)")
        if self.double_offered:
            if self.dice is not None:
                raise _invalid("dice", "a double is offered before rolling, so dice must be unrolled")
            if self.crawford:
                raise _invalid("double_offered", "no double can be offered in the Crawford game")
            if self.cube_owner not in (None, self.position.turn):
                raise _invalid("double_offered", f"{self.position.turn} cannot double: {self.cube_owner} owns the cube")

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
        """A match game after the Crawford game: a side is 1-away and this is not the Crawford game.

        A 1-point match has neither: every game of it is played without the cube.
        """
        return self.match_length > 1 and not self.crawford and (self.match_length - 1) in self.score

    def away(self, color: Color) -> int:
        """Points ``color`` still needs to win the match (0 for money)."""
        return self.match_length - self.score[color] if self.match_length else 0

    def replace(self, **changes: object) -> GameState:
        return replace(self, **changes)

    # -- notations ------------------------------------------------------------------------
    @classmethod
    def parse(cls, text: str) -> GameState:
        """Read any notation :func:`gammon.notation.detect` recognises.

        A bare Position ID gives the other fields their defaults (white on roll, money).
        """
        from .notation import detect

        kind = detect(text)
        if kind == "bpn":
            return cls.from_bpn(text)
        if kind == "gnubgid":
            return cls.from_gnubg_id(text)
        if kind == "xgid":
            return cls.from_xgid(text)
        if kind == "fibs":
            return cls.from_fibs(text)
        return cls(position=Position.from_position_id(text.strip()))

    @classmethod
    def from_bpn(cls, text: str) -> GameState:
        """Read BPN, e.g. ``b4E1C3eE3c1e4B-w0b0-w31-n10-0:0:7``."""
        from .notation import bpn

        return bpn.parse(text)

    def bpn(self) -> str:
        """BPN (Backgammon Position Notation); it does not carry status, resignation or cube limit."""
        from .notation import bpn

        return bpn.format(self)

    @classmethod
    def from_gnubg_id(cls, text: str) -> GameState:
        """Read GNU Backgammon's combined ``POSID:MATCHID``."""
        from .notation import match_id

        return match_id.parse_gnubg_id(text)

    def gnubg_id(self) -> str:
        """GNU Backgammon's ``POSID:MATCHID``; it does not carry beavers or cube limit."""
        from .notation import match_id

        return match_id.format_gnubg_id(self)

    @classmethod
    def from_match_id(cls, text: str, position: Position | str | None = None) -> GameState:
        """Read a 12-character Match ID; ``position`` is a Position or Position ID (default: the opening)."""
        from .notation import match_id

        return match_id.parse(text, position)

    def match_id(self) -> str:
        """GNU Backgammon's 12-character Match ID (no checkers: see :meth:`gnubg_id`)."""
        from .notation import match_id

        return match_id.format(self)

    @classmethod
    def from_xgid(cls, text: str) -> GameState:
        """Read an eXtreme Gammon XGID (the ``XGID=`` prefix is optional)."""
        from .notation import xgid

        return xgid.parse(text)

    def xgid(self) -> str:
        """The XGID; it does not carry status or resignation, and cube_limit None is written as 10."""
        from .notation import xgid

        return xgid.format(self)

    @classmethod
    def from_fibs(cls, text: str) -> GameState:
        """The game in a FIBS board string; :class:`~gammon.notation.fibs.FibsBoard` keeps the rest."""
        from .notation.fibs import FibsBoard

        return FibsBoard.parse(text).state

    def fibs(self, player: str = "you", opponent: str = "opponent", you: Color | None = None) -> str:
        """A FIBS board string seen by ``you`` (default: the side to act); NotationError for a
        game with the Jacoby rule or beavers, which FIBS cannot carry."""
        return self.fibs_board(player, opponent, you).text()

    def fibs_board(self, player: str = "you", opponent: str = "opponent", you: Color | None = None) -> FibsBoard:
        from .notation.fibs import FibsBoard

        return FibsBoard(self, player, opponent, you)

    def __repr__(self) -> str:
        # Pasteable like python-chess's Board('fen'): the BPN plus whatever BPN cannot say.
        try:
            base = GameState.from_bpn(self.bpn())
        except NotationError:  # e.g. a finished match's score: no BPN reads it back
            base = None
        if base is None:
            args = ", ".join(
                f"{f.name}={getattr(self, f.name)!r}" for f in fields(self) if getattr(self, f.name) != f.default
                or f.name == "position"
            )
            return f"GameState({args})"
        extra = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self)
                          if getattr(self, f.name) != getattr(base, f.name))
        text = f"GameState.from_bpn({self.bpn()!r})"
        return f"{text}.replace({extra})" if extra else text

"""The position: both sides' checkers and the side to act, as an immutable value."""

from __future__ import annotations

import enum
import functools
import numbers
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

from .errors import InvalidPositionError
from .variant import STANDARD, STANDARD_START, Variant

if TYPE_CHECKING:
    import numpy as np

    from .play import LegalPlays, Play

CHECKERS = 15
POINTS = 24


class Color(enum.IntEnum):
    """A side. The values are GNU Backgammon's player numbers: player 0 is O, player 1 is X.

    White is X (eks, the bottom player of GNU Backgammon and XGID; BPN's white, moving 1 to 24
    in BPN's frame); black is O.
    """

    BLACK = 0
    WHITE = 1

    @property
    def other(self) -> Color:
        return Color(1 - self.value)

    def __repr__(self) -> str:
        return f"Color.{self.name}"

    __str__ = __repr__


class PositionClass(enum.Enum):
    """What kind of game a position is, as engines and bearoff tables need to know."""

    OVER = "over"  #: a side has borne off all its checkers
    BEAROFF = "bearoff"  #: no contact and every checker of both sides is in its home board
    RACE = "race"  #: the sides have passed each other: no hit is possible any more
    CONTACT = "contact"  #: checkers can still be hit


def flip_into(board: Sequence[int], out) -> None:  # a list or a numpy array
    """Write ``board`` (26 counts) seen from the other side into ``out``: the one place where
    perspective flips (the mover's 24-point is the opponent's 1-point, and the bars change
    places). Plain Python for the value type; :mod:`gammon.movegen` compiles this same
    function for kernel boards.
    """
    for i in range(26):
        out[i] = -board[25 - i]


@functools.cache
def _classes() -> dict[int, PositionClass]:
    from . import movegen

    return {
        movegen.OVER: PositionClass.OVER,
        movegen.BEAROFF: PositionClass.BEAROFF,
        movegen.RACE: PositionClass.RACE,
        movegen.CONTACT: PositionClass.CONTACT,
    }



def _board_from_checkers(mover: Sequence[int], opponent: Sequence[int]) -> tuple[int, ...]:
    board = [0] * (POINTS + 2)
    for i in range(POINTS):
        board[i + 1] = mover[i]
    for i in range(POINTS):
        if opponent[i]:
            if mover[POINTS - 1 - i]:
                raise InvalidPositionError(
                    f"point {POINTS - i} (side to act's numbering) holds checkers of both sides"
                )
            board[POINTS - i] = -opponent[i]
    board[25] = mover[24]
    board[0] = -opponent[24]
    return tuple(board)


class Position:
    """Both sides' checkers and the side to act; immutable and hashable.

    ``board`` is seen from the side to act, as the move generator sees it: ``board[1..24]``
    are the points in that side's numbering (1 = its ace point), positive for its checkers
    and negative for the opponent's; ``board[25]`` is its bar, ``board[0]`` (<= 0) the
    opponent's bar. A string is read as a GNU Backgammon Position ID. With no board at all,
    the opening position.

    >>> Position()
    Position('4HPwATDgc/ABMA', Color.WHITE)
    >>> Position().pips()
    (167, 167)
    """

    __slots__ = ("_board", "_hash", "_turn")

    def __init__(self, board: str | Sequence[int] | None = None, turn: Color = Color.WHITE) -> None:
        if board is None:
            values = _board_from_checkers(STANDARD_START, STANDARD_START)
        elif isinstance(board, str):
            from .notation import position_id

            values = tuple(position_id.decode(board))
        else:
            values = _counts(board, "a board", POINTS + 2)
            _validate(values)
        if not isinstance(turn, Color):
            try:
                turn = Color(turn)
            except ValueError:
                raise InvalidPositionError(f"turn must be Color.WHITE or Color.BLACK, not {turn!r}") from None
        self._board = values
        self._turn = turn
        self._hash = hash((values, turn))

    # -- construction -------------------------------------------------------------------
    @classmethod
    def starting(cls, variant: Variant = STANDARD, turn: Color = Color.WHITE) -> Position:
        """The starting position of ``variant`` (nackgammon's differs from the standard game's)."""
        return cls(_board_from_checkers(variant.start, variant.start), turn)

    @classmethod
    def from_checkers(
        cls, white: Sequence[int], black: Sequence[int], turn: Color = Color.WHITE
    ) -> Position:
        """Build from each side's 25 counts in its own numbering: points 1..24, then its bar."""
        sides = []
        for name, given in (("white", white), ("black", black)):
            counts = _counts(given, f"{name}'s checkers", POINTS + 1, "points 1-24 and bar")
            for i, c in enumerate(counts):
                if c < 0:
                    where = "bar" if i == 24 else f"point {i + 1}"
                    raise InvalidPositionError(f"{name} has a negative count {c} on its {where}")
            if sum(counts) > CHECKERS:
                raise InvalidPositionError(f"{name} has {sum(counts)} checkers; at most {CHECKERS}")
            sides.append(counts)
        white_counts, black_counts = sides
        mover, opponent = (white_counts, black_counts) if turn == Color.WHITE else (black_counts, white_counts)
        return cls(_board_from_checkers(mover, opponent), turn)

    @classmethod
    def from_position_id(cls, text: str, turn: Color = Color.WHITE) -> Position:
        """Read a GNU Backgammon Position ID; the ID does not say which colour is on roll."""
        return cls(text, turn)

    @classmethod
    def from_array(cls, board: np.ndarray, turn: Color = Color.WHITE) -> Position:
        """Wrap a kernel board (26 int8, side to act's view)."""
        return cls(board.tolist(), turn)

    # -- the checkers -------------------------------------------------------------------
    @property
    def board(self) -> tuple[int, ...]:
        """The 26 signed counts seen from the side to act (see the class docstring)."""
        return self._board

    @property
    def turn(self) -> Color:
        """The side to act."""
        return self._turn

    def array(self) -> np.ndarray:
        """A fresh kernel board: 26 ``int8`` in the side to act's view."""
        import numpy as np  # imported on first use, as the kernel is: notations need neither

        return np.array(self._board, dtype=np.int8)

    def checkers(self, color: Color) -> tuple[int, ...]:
        """25 counts of ``color``'s checkers in its own numbering: points 1..24, then its bar."""
        b = self._board
        if color == self._turn:
            return tuple(max(v, 0) for v in b[1:25]) + (b[25],)
        return tuple(max(-b[25 - p], 0) for p in range(1, 25)) + (-b[0],)

    def bar(self, color: Color) -> int:
        return self._board[25] if color == self._turn else -self._board[0]

    def borne_off(self, color: Color) -> int:
        return CHECKERS - sum(self.checkers(color))

    def pip_count(self, color: Color) -> int:
        """Pips ``color`` needs to bear off everything (bar = 25)."""
        return sum((i + 1) * c for i, c in enumerate(self.checkers(color)))

    def pips(self) -> tuple[int, int]:
        """Pip counts of (side to act, opponent)."""
        return self.pip_count(self._turn), self.pip_count(self._turn.other)

    def classify(self) -> PositionClass:
        # The kernel is imported where it is first needed, here and in play.py: reading and
        # writing notations never loads numba (``gammon convert`` starts in a blink).
        from . import movegen

        return _classes()[movegen.board_class(self.array())]

    def winner(self) -> Color | None:
        """The side that has borne off all 15 checkers, if any."""
        for color in (Color.WHITE, Color.BLACK):
            if self.borne_off(color) == CHECKERS:
                return color
        return None

    # -- views and plays ----------------------------------------------------------------
    def flip(self) -> Position:
        """The same checkers with the other side to act (the board seen from the other side)."""
        flipped = [0] * 26
        flip_into(self._board, flipped)
        return Position(tuple(flipped), self._turn.other)

    def legal_plays(self, d1: int, d2: int, variant: Variant = STANDARD) -> LegalPlays:
        """The legal plays for the roll ``d1``-``d2``: lazy, sized, supports ``in``."""
        from .play import LegalPlays

        return LegalPlays(self, d1, d2, variant)

    def apply(self, play: Play | str, dice: tuple[int, int] | None = None, variant: Variant = STANDARD) -> Position:
        """The position after ``play`` (checked against ``dice`` when given), opponent to act."""
        from .play import apply_play

        return apply_play(self, play, dice, variant)

    # -- notations ----------------------------------------------------------------------
    def position_id(self) -> str:
        """GNU Backgammon Position ID (the side to act is the side on roll)."""
        from .notation import position_id

        return position_id.encode(self._board)

    @classmethod
    def from_bpn(cls, text: str) -> Position:
        """The checkers and player on roll of a BPN string (``GameState.from_bpn`` keeps the rest)."""
        from .state import GameState

        return GameState.from_bpn(text).position

    def bpn(self) -> str:
        """BPN of this position, not yet rolled, centred 1-cube, money play."""
        from .state import GameState

        return GameState(position=self).bpn()

    # -- value semantics ----------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return self._turn == other._turn and self._board == other._board

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"Position({self.position_id()!r}, {self._turn!r})"

    def __iter__(self) -> Iterator[int]:
        return iter(self._board)

    def _repr_svg_(self) -> str | None:
        """The board as SVG, for notebooks (None, so the text repr shows, for a board not drawable)."""
        from .errors import GammonError
        from .svg import board_svg

        try:
            return board_svg(self)
        except GammonError:  # no checkers on either side: GameState, which the picture reads, refuses it
            return None


def _counts(given: object, what: str, size: int, layout: str = "bars and 24 points") -> tuple[int, ...]:
    """``given`` as ``size`` plain ints, or InvalidPositionError saying what was expected.

    Whole numbers of any integer type (numpy's too) are counts; text, floats, ``True`` and
    ``None`` are not. A string as a whole is a Position ID, read before this is reached.
    """
    expected = f"{what}: expected a sequence of {size} checker counts ({layout})"
    if size == POINTS + 2:
        expected += " or a Position ID string"
    ordered = isinstance(given, Sequence) or (hasattr(given, "__len__") and hasattr(given, "__getitem__"))
    if not ordered or isinstance(given, (str, bytes, bytearray, Mapping)):
        raise InvalidPositionError(f"{expected}, got {type(given).__name__} {_shown(given)}")
    items = list(given)  # type: ignore[call-overload]
    if len(items) != size:
        raise InvalidPositionError(f"{what}: expected {size} entries ({layout}), got {len(items)}")
    for i, item in enumerate(items):
        if isinstance(item, bool) or not isinstance(item, numbers.Integral):
            raise InvalidPositionError(f"{expected}, got {_shown(item)} (a {type(item).__name__}) at index {i}")
    return tuple(int(item) for item in items)


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _validate(board: tuple[int, ...]) -> None:
    """Raise :class:`InvalidPositionError` naming the first problem of a kernel board."""
    if board[25] < 0:
        raise InvalidPositionError(f"the side to act's bar count must be >= 0, got {board[25]}")
    if board[0] > 0:
        raise InvalidPositionError(f"the opponent's bar entry must be <= 0, got {board[0]}")
    mover = sum(v for v in board[1:] if v > 0)
    opponent = -sum(v for v in board[:25] if v < 0)
    if mover > CHECKERS:
        raise InvalidPositionError(f"the side to act has {mover} checkers; at most {CHECKERS}")
    if opponent > CHECKERS:
        raise InvalidPositionError(f"the opponent has {opponent} checkers; at most {CHECKERS}")

"""The position: both sides' checkers and the side to act, as an immutable value."""

from __future__ import annotations

import enum
import functools
import numbers
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, cast

from .board import CHECKERS, OFF, POINTS, Color, flip_into
from .errors import IllegalPlayError, InvalidMoveError, InvalidPositionError, NotationError
from .notation import bpn, movetext, position_id
from .notation.fields import GameFields
from .play import Play, apply_moves
from .variant import STANDARD, STANDARD_START, Variant

__all__ = ["CHECKERS", "POINTS", "Color", "LegalPlays", "Position", "PositionClass", "flip_into"]

if TYPE_CHECKING:
    import numpy as np


class PositionClass(enum.Enum):
    """What kind of game a position is, as engines and bearoff tables need to know."""

    OVER = "over"  #: a side has borne off all its checkers
    BEAROFF = "bearoff"  #: no contact and every checker of both sides is in its home board
    RACE = "race"  #: the sides have passed each other: no hit is possible any more
    CONTACT = "contact"  #: checkers can still be hit


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
    def from_fields(cls, game: GameFields) -> Position:
        """The checkers of a notation's fields; an impossible placement is a NotationError
        naming the notation's field."""
        try:
            if game.board is not None:
                return cls(game.board, game.turn)
            return cls.from_checkers(game.checkers(Color.WHITE), game.checkers(Color.BLACK), game.turn)
        except InvalidPositionError as error:
            name, part = game.source("position")
            raise NotationError(game.notation, name, part, f"a possible position ({error})") from None

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
        return LegalPlays(self, d1, d2, variant)

    def apply(self, play: Play | str, dice: tuple[int, int] | None = None, variant: Variant = STANDARD) -> Position:
        """The position after ``play`` (checked against ``dice`` when given), opponent to act."""
        from . import movegen

        if dice is not None:
            legal = LegalPlays(self, *dice, variant)
            board = legal.boards()[legal.index(play)]
        else:
            moves = Play.parse(play) if isinstance(play, str) else play
            board = apply_moves(self.array(), moves.moves)
        return Position(movegen.flip_board(board).tolist(), self._turn.other)

    # -- notations ----------------------------------------------------------------------
    def position_id(self) -> str:
        """GNU Backgammon Position ID (the side to act is the side on roll)."""
        return position_id.encode(self._board)

    @classmethod
    def from_bpn(cls, text: str) -> Position:
        """The checkers and player on roll of a BPN string (``GameState.from_bpn`` reads and checks the rest)."""
        return cls.from_fields(bpn.parse(text))

    def bpn(self) -> str:
        """BPN of this position, not yet rolled, centred 1-cube, money play."""
        return bpn.format(GameFields(self.checkers(Color.WHITE), self.checkers(Color.BLACK), self._turn))

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
        from .svg import board_svg  # the picture is drawn above the value types: see docs/architecture.md

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
    items = list(cast("Iterable[int]", given))  # ordered and sized, as checked just above; each item below
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


def _check_dice(d1: int, d2: int) -> tuple[int, int]:
    for name, die in (("first die", d1), ("second die", d2)):
        if isinstance(die, bool) or not isinstance(die, numbers.Integral) or not 1 <= int(die) <= 6:
            raise IllegalPlayError(f"{name} must be 1-6, got {die!r}")
    return int(d1), int(d2)


class LegalPlays:
    """The legal plays of a position for a roll, one per distinct resulting position.

    Generated on first use by the compiled kernel. ``len()``, iteration and ``in`` work
    as for python-chess's ``legal_moves``; ``in`` accepts a :class:`Play` (in any order of
    its moves) or move text.

    >>> plays = Position().legal_plays(3, 1)
    >>> len(plays), "8/5 6/5" in plays, "24/20" in plays, "24/18" in plays
    (16, True, True, False)
    """

    __slots__ = ("_boards", "_counts", "_index", "_moves", "_plays", "dice", "position", "variant")

    def __init__(self, position: Position, d1: int, d2: int, variant: Variant = STANDARD) -> None:
        self.position = position
        self.dice = _check_dice(d1, d2)
        self.variant = variant
        self._boards: np.ndarray | None = None
        self._index: dict[bytes, int] | None = None

    def _generate(self) -> None:
        if self._boards is None:
            from . import movegen

            boards, moves, counts = movegen.generate(self.position.array(), *self.dice, self.variant.two_move_doubles)
            self._boards, self._moves, self._counts = boards, moves, counts
            self._plays: list[Play] | None = None
            self._index = None

    def _play_list(self) -> list[Play]:
        self._generate()
        if self._plays is None:
            self._plays = [Play.from_array(self._moves[i], int(self._counts[i])) for i in range(len(self._counts))]
        return self._plays

    def __len__(self) -> int:
        self._generate()
        return len(self._counts)

    def __iter__(self) -> Iterator[Play]:
        return iter(self._play_list())

    def __getitem__(self, index: int) -> Play:
        return self._play_list()[index]

    def is_pass(self) -> bool:
        """True when the roll cannot be played at all."""
        self._generate()
        return len(self._counts) == 1 and self._counts[0] == 0

    def boards(self) -> np.ndarray:
        """Kernel boards after each play, still seen from the side that moved."""
        self._generate()
        assert self._boards is not None
        return self._boards

    def positions(self) -> list[Position]:
        """The position after each play, with the opponent to act."""
        from . import movegen

        self._generate()
        turn = self.position.turn.other
        return [Position(movegen.flip_board(b).tolist(), turn) for b in self.boards()]

    def index(self, play: Play | str) -> int:
        """Which legal play ``play`` is (by the position it reaches); IllegalPlayError if none."""
        self._generate()
        if isinstance(play, str):
            return self.index(self.resolve(movetext.parse_journeys(play), play.strip()))
        try:
            board = apply_moves(self.position.array(), play.moves)
        except (IllegalPlayError, InvalidMoveError) as error:
            raise IllegalPlayError(f"{play} is not legal with {self.dice[0]}-{self.dice[1]}: {error}") from None
        if self._index is None:
            self._index = {b.tobytes(): i for i, b in enumerate(self.boards())}
        found = self._index.get(board.tobytes())
        if found is None or len(play.moves) != int(self._counts[found]):
            raise IllegalPlayError(
                f"{play or 'no move'} is not legal with {self.dice[0]}-{self.dice[1]}; legal: "
                + ", ".join(str(p) or "no move" for p in self._play_list()[:12])
                + (" ..." if len(self) > 12 else "")
            )
        self._check_uses_dice(play)
        return found

    def _check_uses_dice(self, play: Play) -> None:
        """The moves must be steps of the rolled dice (or bear-offs a larger die allows)."""
        d1, d2 = self.dice
        dice = self.variant.moves_of(d1, d2)
        for move in play.moves:
            exact = [d for d in dice if d == move.pips]
            larger = [d for d in dice if move.target == OFF and d > move.pips]
            use = exact or sorted(larger)
            if not use:
                raise IllegalPlayError(f"{move} is not a move of {d1}-{d2}")
            dice.remove(use[0])

    def parse_ubgi(self, text: str, strict: bool = False) -> Play:
        """The legal play that UBGI play text means (:meth:`Play.from_ubgi`), strictly: each
        step as written, together a legal play of this roll; ``pass`` only when nothing can
        be played (``strict``: only as the specification writes it). InvalidMoveError or
        IllegalPlayError say what is wrong.

        >>> str(Position().legal_plays(3, 1).parse_ubgi("8/5* 6/5"))
        '8/5 6/5'
        """
        play = Play.from_ubgi(text, strict)
        if not play.moves and not self.is_pass():
            raise IllegalPlayError(f"'pass' but {len(self)} legal plays exist, e.g. {self[0].ubgi()}")
        return self._play_list()[self.index(play)]

    def resolve(self, journeys: Sequence[movetext.Journey], text: str) -> Play:
        """The legal play that checker trips read from ``text`` reach (the reader of another move
        syntax, as :mod:`gammon.notation.pbm`'s, gives the trips); errors as :meth:`find`'s."""
        self._generate()
        return movetext.resolve(journeys, text, board=self.position.array(), dice=self.dice,
                                steps=self.variant.moves_of(*self.dice), boards=self.boards(), plays=self._play_list(),
                                passing=self.is_pass())

    def find(self, text: str) -> Play:
        """The legal play that move text means (short forms accepted)."""
        return self._play_list()[self.index(text)]

    def __contains__(self, play: object) -> bool:
        if not isinstance(play, (Play, str)):
            return False
        try:
            self.index(play)
        except (IllegalPlayError, InvalidMoveError):
            return False
        return True

    def __repr__(self) -> str:
        shown = ", ".join(str(p) or "no move" for p in self._play_list()[:8])
        more = ", ..." if len(self) > 8 else ""
        return f"<LegalPlays for {self.dice[0]}-{self.dice[1]} ({shown}{more})>"

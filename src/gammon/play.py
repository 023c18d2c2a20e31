"""Checker moves, plays (a whole turn) and the lazy set of legal plays for a roll."""

from __future__ import annotations

import numbers
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .errors import IllegalPlayError, InvalidMoveError
from .position import Position
from .variant import STANDARD, Variant

if TYPE_CHECKING:
    import numpy as np

# The kernel (gammon.movegen, compiled by numba) is imported inside the functions that run
# it: a play read or written as text never loads numba. These two are its OWN_BAR and OFF.
#: The mover's bar as a move's source (``bar/22`` is ``Move(25, 22)``).
BAR = 25
#: Borne off, as a move's target (``6/off`` is ``Move(6, 0)``).
OFF = 0
#: One step of a UBGI play: ``from/to``, ``bar``/``off``, a ``*`` tolerated.
_UBGI_STEP = re.compile(r"(?P<source>bar|[0-9]{1,2})/(?P<target>off|[0-9]{1,2})\*?(?:\((?P<times>[1-4])\))?")
#: What engines write for a roll that cannot be played: ``pass`` (UBGI), and forms seen from
#: other engines (``(none)``, ``no move``).
_UBGI_PASS = frozenset({"pass", "none", "(none)", "no move", "(no move)"})


def _check_dice(d1: int, d2: int) -> tuple[int, int]:
    for name, die in (("first die", d1), ("second die", d2)):
        if isinstance(die, bool) or not isinstance(die, numbers.Integral) or not 1 <= int(die) <= 6:
            raise IllegalPlayError(f"{name} must be 1-6, got {die!r}")
    return int(d1), int(d2)


@dataclass(frozen=True, slots=True, order=True)
class Move:
    """One checker moved, in the mover's numbering: ``source`` 25 is the bar, ``target`` 0 is off."""

    source: int
    target: int
    hit: bool = False

    def __post_init__(self) -> None:
        for name in ("source", "target"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise InvalidMoveError(f"a move's {name} is a point number (25 the bar, 0 off), got {value!r}")
        if not 1 <= self.source <= 25:
            raise InvalidMoveError(f"a move starts on a point 1-24 or the bar (25), got {self.source}")
        if not 0 <= self.target <= 24 or self.target >= self.source:
            raise InvalidMoveError(f"a move from {self.source} must go down to a point 1-24 or off (0), got {self.target}")

    @property
    def pips(self) -> int:
        return self.source - self.target

    def __str__(self) -> str:
        source = "bar" if self.source == BAR else str(self.source)
        target = "off" if self.target == OFF else str(self.target)
        return f"{source}/{target}{'*' if self.hit else ''}"


@dataclass(frozen=True, slots=True)
class Play:
    """A whole turn: up to four checker moves (none for a roll that cannot be played)."""

    moves: tuple[Move, ...] = ()

    def __str__(self) -> str:
        """Canonical standard notation, e.g. ``24/18 13/11*``; a pass is empty."""
        from .notation import movetext

        return movetext.format_play(self.moves)

    def ubgi(self) -> str:
        """UBGI's engine-facing form: every step written out, no ``*``, no ``(n)``; ``pass``
        for a roll that cannot be played. :meth:`from_ubgi` reads it back.

        >>> Position().legal_plays(6, 6).find("24/18(2) 13/7(2)").ubgi()
        '24/18 24/18 13/7 13/7'
        """
        if not self.moves:
            return "pass"
        return " ".join(
            f"{'bar' if m.source == BAR else m.source}/{'off' if m.target == OFF else m.target}" for m in self.moves
        )

    @classmethod
    def from_ubgi(cls, text: str, strict: bool = False) -> Play:
        """The steps of UBGI play text as written, unchecked against any roll: each word one
        ``from/to`` step (``bar``, ``off``; a ``*`` on a hit tolerated, as v0.2 writes it, and
        ``(2)`` for a step made twice, as other engines write it), or ``pass`` (``(none)`` and
        ``no move`` tolerated). ``strict`` refuses what the specification does not write
        (``(2)``, the other pass words), as the conformance suite judges. InvalidMoveError names the first word that is not one.
        :meth:`LegalPlays.parse_ubgi` also checks the play against the rules.

        >>> Play.from_ubgi("bar/22* 6/off")
        Play(moves=(Move(source=25, target=22, hit=False), Move(source=6, target=0, hit=False)))
        """
        words = text.split()
        if not words:
            raise InvalidMoveError("an empty play (a roll that cannot be played is 'pass')")
        if words == ["pass"] or (not strict and " ".join(words).lower() in _UBGI_PASS):
            return cls()
        moves: list[Move] = []
        for word in words:
            step = _UBGI_STEP.fullmatch(word.lower())
            if step is None or (strict and (step["times"] or word != word.lower())):
                raise InvalidMoveError(f"{word!r} is not a from/to step (e.g. 24/18, bar/22, 6/off)")
            source = BAR if step["source"] == "bar" else int(step["source"])
            target = OFF if step["target"] == "off" else int(step["target"])
            moves.extend([Move(source, target)] * int(step["times"] or 1))  # 13/7(2): the step twice
            if len(moves) > 4:
                raise InvalidMoveError(f"{text.strip()!r} has {len(moves)} steps; a play has at most 4")
        return cls(tuple(moves))

    def __len__(self) -> int:
        return len(self.moves)

    def __iter__(self) -> Iterator[Move]:
        return iter(self.moves)

    @classmethod
    def from_array(cls, moves: np.ndarray, count: int) -> Play:
        return cls(tuple(Move(int(m[0]), int(m[1]), bool(m[2])) for m in moves[:count]))


def effects_text(play: Play) -> str:
    """What a play does besides moving, for sentences that tell it: ``hitting a checker and
    bearing off 2 checkers`` (empty when it only moves)."""
    hits = sum(move.hit for move in play.moves)
    off = sum(move.target == OFF for move in play.moves)
    parts = []
    if hits:
        parts.append("hitting a checker" if hits == 1 else f"hitting {hits} checkers")
    if off:
        parts.append("bearing off a checker" if off == 1 else f"bearing off {off} checkers")
    return " and ".join(parts)


def apply_moves(board: np.ndarray, moves: Sequence[Move]) -> np.ndarray:
    """A copy of a kernel board with ``moves`` made one by one (hits go to the bar).

    Only the mechanics are applied here; whether the moves are legal for a roll is what
    :class:`LegalPlays` decides.
    """
    from . import movegen

    result = board.copy()
    for move in moves:
        if result[move.source] <= 0:
            where = "the bar" if move.source == BAR else f"point {move.source}"
            raise IllegalPlayError(f"{move}: no checker of the side to act on {where}")
        if move.target != OFF and result[move.target] < -1:
            raise IllegalPlayError(f"{move}: point {move.target} is blocked")
        movegen.apply_move(result, move.source, move.target)
    return result


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
        return self._boards

    def positions(self) -> list[Position]:
        """The position after each play, with the opponent to act."""
        from . import movegen

        self._generate()
        turn = self.position.turn.other
        return [Position(movegen.flip_board(b).tolist(), turn) for b in self._boards]

    def index(self, play: Play | str) -> int:
        """Which legal play ``play`` is (by the position it reaches); IllegalPlayError if none."""
        self._generate()
        if isinstance(play, str):
            from .notation import movetext

            return self.index(movetext.parse_play(play, self))
        try:
            board = apply_moves(self.position.array(), play.moves)
        except (IllegalPlayError, InvalidMoveError) as error:
            raise IllegalPlayError(f"{play} is not legal with {self.dice[0]}-{self.dice[1]}: {error}") from None
        if self._index is None:
            self._index = {b.tobytes(): i for i, b in enumerate(self._boards)}
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


def apply_play(position: Position, play: Play | str, dice: tuple[int, int] | None,
               variant: Variant = STANDARD) -> Position:
    """The position after ``play``, opponent to act; legality checked when ``dice`` is given."""
    from . import movegen

    if dice is not None:
        legal = LegalPlays(position, *dice, variant)
        index = legal.index(play)
        board = legal.boards()[index]
    else:
        if isinstance(play, str):
            from .notation import movetext

            play = movetext.parse_moves(play)
        board = apply_moves(position.array(), play.moves)
    return Position(movegen.flip_board(board).tolist(), position.turn.other)

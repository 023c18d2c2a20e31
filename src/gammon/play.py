"""Checker moves and plays (a whole turn), and their text; the legal plays of a roll are
:class:`gammon.position.LegalPlays`, which a position makes."""

from __future__ import annotations

import numbers
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .board import BAR, OFF
from .errors import IllegalPlayError, InvalidMoveError
from .notation import movetext

if TYPE_CHECKING:
    import numpy as np

# The kernel (gammon.movegen, compiled by numba) is imported inside the functions that run
# it: a play read or written as text never loads numba.
__all__ = ["BAR", "OFF", "Move", "Play", "apply_moves", "effects_text"]
#: One step of a UBGI play: ``from/to``, ``bar``/``off``, a ``*`` tolerated.
_UBGI_STEP = re.compile(r"(?P<source>bar|[0-9]{1,2})/(?P<target>off|[0-9]{1,2})\*?(?:\((?P<times>[1-4])\))?")
#: What engines write for a roll that cannot be played: ``pass`` (UBGI), and forms seen from
#: other engines (``(none)``, ``no move``).
_UBGI_PASS = frozenset({"pass", "none", "(none)", "no move", "(no move)"})


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
        return movetext.format_play(self.moves)

    @classmethod
    def parse(cls, text: str) -> Play:
        """The checker moves written in standard notation, as written, unchecked against any roll
        (``24/18*/13`` is two moves, ``24/18*`` and ``18/13``); InvalidMoveError for malformed text.
        :meth:`LegalPlays.find <gammon.position.LegalPlays.find>` reads text against a roll.

        >>> str(Play.parse("bar/22 6/off"))
        'bar/22 6/off'
        """
        return cls(tuple(Move(*step) for step in movetext.parse_steps(text)))

    def ubgi(self) -> str:
        """UBGI's engine-facing form: every step written out, no ``*``, no ``(n)``; ``pass``
        for a roll that cannot be played. :meth:`from_ubgi` reads it back.

        >>> from gammon import Position
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

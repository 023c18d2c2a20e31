"""The play-by-mail server's move syntax: ``13-10,13-10,10-7,10-7``, ``2(13-10)``, ``13:3``, ``B-22``.

Points are in the board's fixed frame, the same as BPN: eks (X, white) moves 1 -> 24 and
bears off past 24, ohs (O, black) moves 24 -> 1. An item is ``from-to`` or ``from:die``;
``from`` is 1-24 or ``B`` (bar), ``to`` 1-24 or ``H`` (home: borne off). With checkers on
the bar a lone point is an entering move (``22`` = ``B-22``); otherwise a lone point is a
bear-off (``22`` = ``22-H``). **gammon rule**: a repeat count (2-4) may come before or
after the item, ``2(13-10)`` = ``13-10(2)``. Case and spaces do not matter.

Unlike the other notations, this one reads a move against a position (a lone point means
entering or bearing off, as the position says): it sits above the value types and calls them.
"""

from __future__ import annotations

import re

from ..board import BAR, OFF, Color
from ..errors import InvalidMoveError
from ..play import Play
from ..position import LegalPlays, Position
from ..variant import STANDARD, Variant
from . import whole_number
from .movetext import Journey

_REPEAT_BEFORE = re.compile(r"^([234])\((.*)\)$")
_REPEAT_AFTER = re.compile(r"^(.*)\(([234])\)$")


def _fixed_to_mover(point: int, turn: Color) -> int:
    """A fixed-frame point 1-24 in the mover's numbering (black's numbering is the fixed frame)."""
    return point if turn == Color.BLACK else 25 - point


def _mover_to_fixed(point: int, turn: Color) -> str:
    if point == BAR:
        return "B"
    if point == OFF:
        return "H"
    return str(point if turn == Color.BLACK else 25 - point)


def _read_point(word: str, item: str, turn: Color, *, source: bool) -> int:
    if word == "b":
        if not source:
            raise InvalidMoveError(f"bad move {item!r}: B (the bar) is where a move starts")
        return BAR
    if word == "h":
        if source:
            raise InvalidMoveError(f"bad move {item!r}: H (home) is where a move ends")
        return OFF
    point = whole_number(word, 1, 24)
    if point is None:
        raise InvalidMoveError(f"bad move {item!r}: {word!r} is not a point 1-24, B or H")
    return _fixed_to_mover(point, turn)


def parse_journeys(text: str, turn: Color, on_bar: bool) -> list[Journey]:
    """The checker trips of a move line, in the mover's numbering; InvalidMoveError names a bad item."""
    journeys: list[Journey] = []
    items = re.sub(r"\s+", "", text.lower()).split(",")
    if items == [""]:
        return []
    for item in items:
        count = 1
        body = item
        for pattern, count_group, body_group in ((_REPEAT_BEFORE, 1, 2), (_REPEAT_AFTER, 2, 1)):
            match = pattern.match(body)
            if match:
                count, body = int(match[count_group]), match[body_group]
                break
        if not body or "(" in body or ")" in body:
            raise InvalidMoveError(f"bad move {item!r}: expected from-to or from:die, repeated as 2(13-10)")
        if ":" in body:
            start, _, die_text = body.partition(":")
            source = _read_point(start, item, turn, source=True)
            die = whole_number(die_text, 1, 6)
            if die is None:
                raise InvalidMoveError(f"bad move {item!r}: {die_text!r} is not a die 1-6")
            journeys.extend([Journey(source, (max(source - die, OFF),), (False,), die)] * count)
            continue
        if "-" in body:
            start, _, end = body.partition("-")
            source = _read_point(start, item, turn, source=True)
            target = _read_point(end, item, turn, source=False)
        elif body in ("b", "h"):
            raise InvalidMoveError(f"bad move {item!r}: a lone item is a point 1-24 (entering or bearing off)")
        elif on_bar:
            source, target = BAR, _read_point(body, item, turn, source=False)
        else:
            source, target = _read_point(body, item, turn, source=True), OFF
        if target >= source:
            raise InvalidMoveError(
                f"bad move {item!r}: {'eks' if turn == Color.WHITE else 'ohs'} moves "
                f"{'up from 1 to 24' if turn == Color.WHITE else 'down from 24 to 1'}"
            )
        journeys.extend([Journey(source, (target,), (False,))] * count)
    return journeys


def parse_play(text: str, position: Position, dice: tuple[int, int], frame: Color | None = None,
               variant: Variant = STANDARD) -> Play:
    """The legal play a move line means for ``position`` (its turn colour is the mover) and ``dice``
    by ``variant``'s rules (two-move doubles: a double is two moves).

    ``frame`` is the colour whose side of the fixed frame the mover is on (black: ohs, whose
    own numbering the frame is); by default the mover's colour, as the module's frame says.

    >>> from gammon import Position, BLACK, WHITE
    >>> str(parse_play("2(13-10),2(10-7)", Position(turn=BLACK), (3, 3)))
    '13/7(2)'
    >>> str(parse_play("2(13-10),2(10-7)", Position(turn=WHITE), (3, 3), frame=BLACK))
    '13/7(2)'
    >>> str(parse_play("2(13-10)", Position(turn=BLACK), (3, 3), variant=Variant(two_move_doubles=True)))
    '13/10(2)'
    """
    legal = LegalPlays(position, *dice, variant)
    journeys = parse_journeys(text, position.turn if frame is None else frame, position.bar(position.turn) > 0)
    return legal.resolve(journeys, text.strip())


def format_play(play: Play, turn: Color) -> str:
    """A play in the server's syntax, one item per die step, repeats as ``2(13-10)``."""
    items: list[str] = []
    counts: dict[str, int] = {}
    for move in sorted(play.moves, key=lambda m: (-m.source, -m.target)):
        item = f"{_mover_to_fixed(move.source, turn)}-{_mover_to_fixed(move.target, turn)}"
        if item not in counts:
            items.append(item)
        counts[item] = counts.get(item, 0) + 1
    return ",".join(item if counts[item] == 1 else f"{counts[item]}({item})" for item in items)

"""The play-by-mail server's text board: eks (X) moves 1 -> 24, ohs (O) moves 24 -> 1.

Ohs is whoever moved first in the match's first game (with ``-force``, the challenger), as
in the seed's server; points are numbered in ohs' own numbering, so the numbers a player
reads on the board are the numbers they type in a move.
"""

from __future__ import annotations

from ...position import Color, Position

ROWS = 5  #: checkers drawn per point; a taller stack shows its count in the last row


def frame_color(color: Color, ohs: Color) -> Color:
    """The colour whose numbering :mod:`gammon.notation.pbm` reads for ``color``'s moves.

    That module's fixed frame has ohs as black; a match whose ohs is white is the mirror image.
    """
    return Color.BLACK if color == ohs else Color.WHITE


def point_counts(position: Position, ohs: Color) -> list[tuple[str, int]]:
    """For the board's points 1..24: ("O" or "X" or "", how many)."""
    mine, theirs = position.checkers(ohs), position.checkers(ohs.other)
    counts: list[tuple[str, int]] = []
    for point in range(1, 25):
        if mine[point - 1]:
            counts.append(("O", mine[point - 1]))
        elif theirs[24 - point]:
            counts.append(("X", theirs[24 - point]))
        else:
            counts.append(("", 0))
    return counts


def _cell(mark: str, count: int, row: int) -> str:
    """Row ``row`` (0 nearest the numbers) of one point: the checker, or a tall stack's count."""
    if count > ROWS and row == ROWS - 1:
        return f"{count:>2}"
    return f" {mark}" if count > row else "  "


def _half(points: list[int], counts: list[tuple[str, int]], row: int) -> str:
    return "  ".join(_cell(*counts[p - 1], row) for p in points) + " "


def draw(position: Position, ohs: Color) -> list[str]:
    """The seed's board: points 13-24 on top, 12-1 below, the bar between, home on the right."""
    counts = point_counts(position, ohs)
    top_left, top_right = list(range(13, 19)), list(range(19, 25))
    low_left, low_right = list(range(12, 6, -1)), list(range(6, 0, -1))
    eks = ohs.other
    bars = {"X": position.bar(eks), "O": position.bar(ohs)}
    off = {"X": position.borne_off(eks), "O": position.borne_off(ohs)}

    def bar_cell(mark: str, row: int) -> str:
        n = bars[mark]
        if n > ROWS and row == ROWS - 1:
            return f"{n:>2} "
        return f" {mark} " if n > row else "   "

    def numbers(left: list[int], right: list[int]) -> str:
        return ("|" + "  ".join(f"{p:>2}" for p in left) + " |   |" + "  ".join(f"{p:>2}" for p in right) + " |")

    lines = [numbers(top_left, top_right)]
    for row in range(ROWS):  # top half: stacks hang down from the numbers; eks' bar checkers wait here
        side = f"  X off: {off['X']}" if row == 0 and off["X"] else ""
        lines.append(f"|{_half(top_left, counts, row)}|{bar_cell('X', row)}|{_half(top_right, counts, row)}|{side}")
    lines.append("|                       |BAR|                       |HOME")
    for row in reversed(range(ROWS)):  # bottom half: stacks stand on the numbers
        side = f"  O off: {off['O']}" if row == 0 and off["O"] else ""
        lines.append(f"|{_half(low_left, counts, row)}|{bar_cell('O', row)}|{_half(low_right, counts, row)}|{side}")
    lines.append(numbers(low_left, low_right))
    return [line.rstrip() for line in lines]

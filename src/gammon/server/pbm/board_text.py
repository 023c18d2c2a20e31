"""The play-by-mail server's text board: eks (X) moves 1 -> 24, ohs (O) moves 24 -> 1.

The seed's server made whoever moved first ohs; here every board calls a side what the rest
of gammon calls it (:data:`gammon.diagram.SYMBOL`: white is X, black is O), so a player is the
same letter by mail, on the web and in the terminal. The points are numbered in ohs' (black's)
own numbering, the frame of :mod:`gammon.notation.pbm`, so the numbers a player reads on the
board are the numbers they type in a move, whichever side they play.
"""

from __future__ import annotations

from ...diagram import SYMBOL
from ...position import Position

OHS = next(color for color, mark in SYMBOL.items() if mark == "O")  #: the side whose numbering the board is
EKS = OHS.other

ROWS = 5  #: checkers drawn per point; a taller stack shows its count in the last row


def point_counts(position: Position) -> list[tuple[str, int]]:
    """For the board's points 1..24: ("O" or "X" or "", how many)."""
    mine, theirs = position.checkers(OHS), position.checkers(EKS)
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


def draw(position: Position) -> list[str]:
    """The seed's board: points 13-24 on top, 12-1 below, the bar between, home on the right."""
    counts = point_counts(position)
    top_left, top_right = list(range(13, 19)), list(range(19, 25))
    low_left, low_right = list(range(12, 6, -1)), list(range(6, 0, -1))
    bars = {"X": position.bar(EKS), "O": position.bar(OHS)}
    off = {"X": position.borne_off(EKS), "O": position.borne_off(OHS)}

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

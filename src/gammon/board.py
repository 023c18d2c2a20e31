"""The board's conventions, below everything that reads, writes or moves checkers: the sides,
the numbers of points and checkers, where a move starts from the bar and ends off, and the one
flip between the two sides' views.

Plain values and one plain function: the notations, the kernel (:mod:`gammon.movegen`) and the
value types (:mod:`gammon.position`, :mod:`gammon.play`) all take them from here.
"""

from __future__ import annotations

import enum
from collections.abc import MutableSequence, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

CHECKERS = 15
POINTS = 24
#: The mover's bar as a move's source (``bar/22`` is ``Move(25, 22)``); the kernel's OWN_BAR.
BAR = 25
#: Borne off, as a move's target (``6/off`` is ``Move(6, 0)``); the kernel's OFF.
OFF = 0


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


def flip_into(board: Sequence[int] | np.ndarray, out: MutableSequence[int] | np.ndarray) -> None:
    """Write ``board`` (26 counts) seen from the other side into ``out``: the one place where
    perspective flips (the mover's 24-point is the opponent's 1-point, and the bars change
    places). Plain Python for the value type; :mod:`gammon.movegen` compiles this same
    function for kernel boards (``out`` is then a numpy array).
    """
    for i in range(26):
        out[i] = -board[25 - i]

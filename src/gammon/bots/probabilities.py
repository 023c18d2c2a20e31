"""The five outcome probabilities of a position and the cubeless money equity they give.

Gammon and backgammon probabilities are cumulative, as GNU Backgammon counts them: a
backgammon is also a gammon, and a gammon also a win. So ``win >= win_gammon >=
win_backgammon`` and ``1 - win >= lose_gammon >= lose_backgammon``.

Engines keep probabilities as ``float64`` arrays of shape ``(N, 5)`` in the order of
:data:`FIELDS`; :class:`Probabilities` is the value users see.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Column order of probability arrays.
FIELDS = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
WIN, WIN_GAMMON, WIN_BACKGAMMON, LOSE_GAMMON, LOSE_BACKGAMMON = range(5)


def equities(probabilities: np.ndarray) -> np.ndarray:
    """Cubeless money equity of each row of an ``(N, 5)`` array (see :meth:`Probabilities.equity`)."""
    p = probabilities
    return 2.0 * p[:, 0] - 1.0 + p[:, 1] + p[:, 2] - p[:, 3] - p[:, 4]


def flip_probabilities(probabilities: np.ndarray) -> np.ndarray:
    """The same outcomes seen by the other side: its wins are our losses."""
    p = probabilities
    out = np.empty_like(p)
    out[:, 0] = 1.0 - p[:, 0]
    out[:, 1] = p[:, 3]
    out[:, 2] = p[:, 4]
    out[:, 3] = p[:, 1]
    out[:, 4] = p[:, 2]
    return out


@dataclass(frozen=True, slots=True)
class Probabilities:
    """Win, gammon and backgammon chances of one side, cumulative (a gammon is also a win).

    >>> p = Probabilities(0.6, 0.2, 0.05, 0.1, 0.01)
    >>> round(p.equity, 4), round(p.lose, 2)
    (0.34, 0.4)
    >>> p.flip().flip() == p
    True
    """

    win: float
    win_gammon: float = 0.0
    win_backgammon: float = 0.0
    lose_gammon: float = 0.0
    lose_backgammon: float = 0.0

    def __post_init__(self) -> None:
        # A small tolerance: sums of float weights over 21 rolls drift in the last bits.
        eps = 1e-9
        ok = (
            -eps <= self.win_backgammon <= self.win_gammon + eps
            and self.win_gammon <= self.win + eps
            and self.win <= 1 + eps
            and -eps <= self.lose_backgammon <= self.lose_gammon + eps
            and self.lose_gammon <= 1 - self.win + eps
        )
        if not ok:
            raise ValueError(f"inconsistent probabilities {self.as_tuple()}: need 0 <= bg <= gammon <= win (or lose) <= 1")

    @property
    def lose(self) -> float:
        return 1.0 - self.win

    @property
    def equity(self) -> float:
        """Cubeless money equity: points won per game, +1/+2/+3 a single/gammon/backgammon win."""
        return 2.0 * self.win - 1.0 + self.win_gammon + self.win_backgammon - self.lose_gammon - self.lose_backgammon

    def flip(self) -> Probabilities:
        """The same outcomes from the opponent's side."""
        return Probabilities(1.0 - self.win, self.lose_gammon, self.lose_backgammon, self.win_gammon, self.win_backgammon)

    def as_tuple(self) -> tuple[float, float, float, float, float]:
        return (self.win, self.win_gammon, self.win_backgammon, self.lose_gammon, self.lose_backgammon)

    def as_dict(self) -> dict[str, float]:
        return dict(zip(FIELDS, self.as_tuple()))

    @classmethod
    def from_array(cls, row: np.ndarray) -> Probabilities:
        """One row of an engine's ``(N, 5)`` array, clipped to [0, 1] against rounding."""
        values = np.clip(np.asarray(row, dtype=np.float64), 0.0, 1.0)
        return cls(*(float(v) for v in values))

    def __str__(self) -> str:
        w, wg, wbg, lg, lbg = self.as_tuple()
        return f"{w:.3f} {wg:.3f} {wbg:.3f} - {1 - w:.3f} {lg:.3f} {lbg:.3f}  ({self.equity:+.3f})"

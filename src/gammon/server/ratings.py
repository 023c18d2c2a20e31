"""The FIBS rating formula (../shared/reference/FORMATS.md), as most backgammon servers use it.

D = |r1 − r2|, n = the match length; P(upset) = 1 / (10^(D·√n/2000) + 1). The winner gains
4·K·√n·P, where P is P(upset) if the favourite won and 1 − P(upset) if the underdog won; the
loser loses the same with their own K. K = max(1, 5 − experience/100), experience being the
match points a player has played, so a newcomer's rating moves fast and settles.

>>> round(rating_change(1500, 1500, 0, 0, 5)[0], 3)
22.361
"""

from __future__ import annotations

import math

START = 1500.0


def k_factor(experience: int) -> float:
    return max(1.0, 5.0 - experience / 100.0)


def rating_change(winner: float, loser: float, winner_experience: int, loser_experience: int,
                  length: int) -> tuple[float, float]:
    """(the winner's gain, the loser's loss) for a match of ``length`` points."""
    root = math.sqrt(length)
    upset = 1.0 / (10.0 ** (abs(winner - loser) * root / 2000.0) + 1.0)
    p = upset if winner >= loser else 1.0 - upset
    return 4.0 * k_factor(winner_experience) * root * p, 4.0 * k_factor(loser_experience) * root * p

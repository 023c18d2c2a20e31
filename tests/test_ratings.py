"""The FIBS rating formula (../shared/reference/FORMATS.md) against figures worked out by hand.

Each case is chosen so that the arithmetic is exact on paper: D·√n/2000 is 0 or 1, so
P(upset) is 1/2 or 1/(10 + 1) = 1/11, and K = max(1, 5 − experience/100) is a round number.
"""

from __future__ import annotations

import math

import pytest

from gammon.server.matches.ratings import rating_change


@pytest.mark.parametrize(
    ("winner", "loser", "winner_experience", "loser_experience", "length", "gain", "loss"),
    [
        # equal ratings: P = 1/2; two newcomers (K = 5) in a 1-point match: 4·5·1·½ = 10 each
        (1500, 1500, 0, 0, 1, 10.0, 10.0),
        # a 9-point match (√9 = 3) between newcomers: 4·5·3·½ = 30
        (1500, 1500, 0, 0, 9, 30.0, 30.0),
        # K falls with experience: 250 points played gives K = 2.5 (4·2.5·1·½ = 5), 100 gives 4 (8)
        (1500, 1500, 250, 100, 1, 5.0, 8.0),
        # ... and stops at 1, however experienced: 4·1·2·½ = 4 in a 4-point match
        (1500, 1500, 400, 9000, 4, 4.0, 4.0),
        # D = 1000 in a 4-point match: 1000·2/2000 = 1, P(upset) = 1/11. The favourite wins:
        # P = 1/11, K = 1 for both (500 points played): 4·1·2/11 = 8/11
        (2000, 1000, 500, 500, 4, 8 / 11, 8 / 11),
        # the underdog wins: P = 10/11; K = 5 for the newcomer winner, 4 for the loser
        (1000, 2000, 0, 100, 4, 4 * 5 * 2 * 10 / 11, 4 * 4 * 2 * 10 / 11),
    ],
)
def test_rating_changes_are_the_fibs_figures(winner: float, loser: float, winner_experience: int,
                                             loser_experience: int, length: int, gain: float, loss: float) -> None:
    assert rating_change(winner, loser, winner_experience, loser_experience, length) == pytest.approx((gain, loss))


def test_an_upset_pays_more_than_a_win_by_the_favourite() -> None:
    favourite, _ = rating_change(1800, 1500, 0, 0, 5)
    underdog, _ = rating_change(1500, 1800, 0, 0, 5)
    # the two outcomes' P add to 1, so the two gains add to 4·K·√n = 20·√5
    assert favourite < underdog and favourite + underdog == pytest.approx(20 * math.sqrt(5))

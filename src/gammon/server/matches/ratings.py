"""Ratings: the FIBS formula (../shared/reference/FORMATS.md), and who a match may rate.

D = |r1 − r2|, n = the match length; P(upset) = 1 / (10^(D·√n/2000) + 1). The winner gains
4·K·√n·P, where P is P(upset) if the favourite won and 1 − P(upset) if the underdog won; the
loser loses the same with their own K. K = max(1, 5 − experience/100), experience being the
match points a player has played, so a newcomer's rating moves fast and settles.

New accounts cannot inflate anyone's rating (:func:`stakes`): a person is **provisional**
until their rating has been measured against ``provisional_matches`` distinct opponents —
each person once, every bot together once (a bot is always there to lose to, so it proves
nothing about an account), and nobody ever seen on a network of theirs (a farmer's throw-away
accounts, made where the farmer is, are not opponents of each other or of the farmer) —
in finished matches under the rating rules. A match between two provisional people moves no
rating (it still counts as an opponent met); against an established opponent, only the
provisional side's rating moves (the other's is not put at stake by an account that may be
throw-away). Two established players rate at most ``pair_matches_per_day`` matches against
each other a day, so no pair can farm points. Bots are always established.

>>> round(rating_change(1500, 1500, 0, 0, 5)[0], 3)
22.361
>>> stakes(Rated(False, 0), Rated(False, 7), provisional_matches=5, pair_matches_today=0)
(True, False)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

START = 1500.0


@dataclass(frozen=True, slots=True)
class Rated:
    """What the rules ask of a player: a bot, and the distinct opponents that count (see the module)."""

    is_bot: bool
    opponents: int

    def established(self, provisional_matches: int) -> bool:
        return self.is_bot or self.opponents >= provisional_matches


def k_factor(experience: int) -> float:
    return max(1.0, 5.0 - experience / 100.0)


def rating_change(winner: float, loser: float, winner_experience: int, loser_experience: int,
                  length: int) -> tuple[float, float]:
    """(the winner's gain, the loser's loss) for a match of ``length`` points."""
    root = math.sqrt(length)
    upset = 1.0 / (10.0 ** (abs(winner - loser) * root / 2000.0) + 1.0)
    p = upset if winner >= loser else 1.0 - upset
    return 4.0 * k_factor(winner_experience) * root * p, 4.0 * k_factor(loser_experience) * root * p


def stakes(first: Rated, second: Rated, *, provisional_matches: int, pair_matches_today: int,
           pair_matches_per_day: int = 3) -> tuple[bool, bool]:
    """Whether each player's rating moves with this match's result (see the module)."""
    first_established = first.established(provisional_matches)
    second_established = second.established(provisional_matches)
    if not first_established and not second_established:
        return False, False
    if first_established and second_established:
        rated = pair_matches_today < pair_matches_per_day
        return rated, rated
    return not first_established, not second_established

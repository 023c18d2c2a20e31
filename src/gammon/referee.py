"""The rules above the board: the opening roll, the cube, resignations, scoring and Crawford.

Small pure functions and frozen values with no state of their own. :class:`~gammon.Match`,
the duels, the trainers' self-play and the cube contexts ask here, so each rule is written
once. How big a win is comes from the board, so it is the kernel's
(:func:`gammon.movegen.win_kind`); what it scores is decided here.

A side is whatever the caller counts sides with: a :class:`~gammon.Color`, a seat 0 or 1,
or a cube context's :class:`~gammon.cube.context.Owner`.

>>> cube = CubeState().after_take(1)  # side 1 takes a double: a 2-cube it owns
>>> points_won(WinKind.GAMMON, cube), points_won(WinKind.GAMMON, CubeState(), jacoby=True)
(4, 1)
>>> score = MatchScore(3).after_game(0, 2)  # a gammon puts side 0 at 1-away: the Crawford game
>>> score.crawford, score.after_game(1, 1).post_crawford
(True, True)
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .dice import DiceSource
from .notation import MAX_CUBE

__all__ = [
    "CubeState",
    "MatchScore",
    "WinKind",
    "beaver_refusal",
    "double_refusal",
    "dropped_points",
    "opening_roll",
    "opening_winner",
    "points_won",
    "within_limit",
]


class WinKind(enum.IntEnum):
    """How big a win is, as a multiple of the cube (:func:`gammon.movegen.win_kind` tells it)."""

    SINGLE = 1
    GAMMON = 2  #: the loser has borne off no checker
    BACKGAMMON = 3  #: ... and still has one on the bar or in the winner's home board


# -- the opening roll ---------------------------------------------------------------------------
def opening_winner(first: int, second: int) -> int | None:
    """Whose opening die is higher: 0 the first side's, 1 the second's, None for a tie (rolled again).

    The winner moves first and plays both dice (5-2: the side that rolled the 5 plays 5-2).
    """
    return None if first == second else (0 if first > second else 1)


def opening_roll(dice: DiceSource) -> tuple[int, int]:
    """The opening roll: the first side's die, then the second's, rolled again while they tie."""
    while True:
        first, second = dice.roll_one(), dice.roll_one()
        if opening_winner(first, second) is not None:
            return first, second


# -- the cube -----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class CubeState:
    """The cube's value and the side that owns it (None: centred, either side may double)."""

    value: int = 1
    owner: int | None = None

    @property
    def centred(self) -> bool:
        return self.owner is None

    def after_take(self, taker: int) -> CubeState:
        """A double taken: twice the value, owned by the taker."""
        return CubeState(2 * self.value, taker)

    def after_beaver(self, beaverer: int) -> CubeState:
        """A double taken and at once redoubled (a beaver): four times the value, kept by the beaverer."""
        return CubeState(4 * self.value, beaverer)


def within_limit(value: int, cube_limit: int | None) -> bool:
    """Whether a cube may reach ``value``: at most a money game's cube limit, and never past
    :data:`~gammon.notation.MAX_CUBE` (32768, the largest cube a notation can carry)."""
    return value <= (MAX_CUBE if cube_limit is None else min(cube_limit, MAX_CUBE))


def double_refusal(
    cube: CubeState, side: int | None = None, *, length: int = 0, crawford_game: bool = False,
    cube_limit: int | None = None,
) -> str | None:
    """Why ``side`` may not double now, in words, or None when it may.

    A 1-point match has no cube; the Crawford game is played without it; only the owner of a
    turned cube may redouble; a money game's cube limit, and :data:`~gammon.notation.MAX_CUBE`,
    cap it. (Whether doubling is *useful*,
    a dead cube at the end of a match, is the cube context's judgement, not a rule.)
    ``side`` None asks about a side with access to the cube.
    """
    if length == 1:
        return "there is no doubling cube in a 1-point match"
    if crawford_game:
        return "no doubling in the Crawford game"
    if side is not None and cube.owner is not None and cube.owner != side:
        return "its opponent owns the cube"
    if not within_limit(2 * cube.value, cube_limit):
        return f"the cube is at its limit of {cube_limit or MAX_CUBE}"
    return None


def beaver_refusal(cube: CubeState, *, beavers: bool, cube_limit: int | None = None) -> str | None:
    """Why a doubled side may not beaver a double of ``cube``, in words, or None when it may.

    Beavers are a money-play option; a beaver takes the cube to four times its value.
    """
    if not beavers:
        return "beavers are not allowed: the beavers option is off"
    if not within_limit(4 * cube.value, cube_limit):
        return f"a beaver would take the cube above its limit of {cube_limit or MAX_CUBE}"
    return None


# -- scoring ------------------------------------------------------------------------------------
def points_won(kind: int, cube: CubeState, jacoby: bool = False) -> int:
    """What a game won by ``kind`` (1 single, 2 gammon, 3 backgammon) scores at ``cube``.

    The same for a resignation of that kind accepted. ``jacoby``: the Jacoby rule is in force
    (money play only), so gammons and backgammons count single while the cube is centred.
    """
    if jacoby and cube.owner is None:
        return cube.value
    return int(kind) * cube.value


def dropped_points(cube: CubeState) -> int:
    """What the doubler wins when a double is passed: the cube's value before the double."""
    return cube.value


# -- the match ----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class MatchScore:
    """A match's score before a game: points won by sides 0 and 1, and whether the Crawford game is over.

    ``length`` 0 is money play: points add up and the session never ends. The Crawford game
    is the first game of a match of 2 or more points in which a side is 1-away: it is played
    without the cube. The games after it are post-Crawford (the cube is back).
    ``crawford_rule`` False plays a match without the Crawford rule.
    """

    length: int = 0
    score: tuple[int, int] = (0, 0)
    crawford_played: bool = False
    crawford_rule: bool = True

    def away(self, side: int) -> int:
        """Points ``side`` still needs (0 in money play)."""
        return self.length - self.score[side] if self.length else 0

    @property
    def one_away(self) -> bool:
        """Whether a side of a match of 2 or more points needs one point."""
        return self.length > 1 and (self.length - 1) in self.score

    @property
    def crawford(self) -> bool:
        """Whether this game is the Crawford game."""
        return self.crawford_rule and not self.crawford_played and self.one_away

    @property
    def post_crawford(self) -> bool:
        """Whether a side is 1-away and this is not the Crawford game."""
        return self.one_away and not self.crawford

    @property
    def cube_in_play(self) -> bool:
        """Whether this game may be doubled at all: not in a 1-point match, nor the Crawford game."""
        return self.length != 1 and not self.crawford

    @property
    def winner(self) -> int | None:
        """The side that has reached the match length, if any (never in money play)."""
        if self.length:
            for side in (0, 1):
                if self.score[side] >= self.length:
                    return side
        return None

    def after_game(self, winner: int, points: int) -> MatchScore:
        """The score before the next game, once ``winner`` has won ``points`` in this one."""
        score = (self.score[0] + points, self.score[1]) if winner == 0 else (self.score[0], self.score[1] + points)
        return MatchScore(self.length, score, self.crawford_played or self.crawford, self.crawford_rule)

    def swapped(self) -> MatchScore:
        """The same score with the sides' numbers exchanged."""
        return MatchScore(self.length, (self.score[1], self.score[0]), self.crawford_played, self.crawford_rule)

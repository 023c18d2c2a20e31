"""The cube and the score as one side sees them: what a cube decision depends on.

A :class:`CubeContext` is always from the point of view of one side ("me", usually the
side on roll): the cube's value and who owns it, how many points each side needs (or
money play), and the rules in force. It values game outcomes -- in points for money, in
match winning chance (MWC) for a match -- which is all the cubeful formulas need. The rules
themselves (who may double, beavers, the cube limit, the Jacoby rule, Crawford) are the
referee's (:mod:`gammon.referee`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace

import numpy as np

from ..errors import GammonError
from ..referee import CubeState, MatchScore, WinKind, beaver_refusal, double_refusal, points_won
from ..state import GameState
from .met import MatchEquityTable, mwc_to_equity

#: Deepest cube level the cubeful formulas look at (a 4096-cube from a 1-cube).
MAX_LEVELS = 13


class Owner(enum.IntEnum):
    """Who holds the cube, seen from the context's side."""

    CENTRED = 0
    ME = 1
    OPPONENT = 2

    def flip(self) -> Owner:
        return Owner.CENTRED if self is Owner.CENTRED else (Owner.OPPONENT if self is Owner.ME else Owner.ME)

    def __repr__(self) -> str:
        return f"Owner.{self.name}"


class CubeContextError(GammonError, ValueError):
    """A cube context that cannot occur (e.g. a score beyond the match length)."""


@dataclass(frozen=True, slots=True)
class CubeContext:
    """Cube and score from one side's point of view.

    ``away`` is ``(me, opponent)``: points each side still needs, or None for money.
    ``crawford`` marks a game without the cube (the Crawford game, or any game of a 1-point
    match); ``post_crawford`` a game after the Crawford game.

    >>> ctx = CubeContext(away=(2, 4))
    >>> ctx.can_double, ctx.doubled().cube, ctx.doubled().owner
    (True, 2, Owner.OPPONENT)
    >>> round(ctx.value_of(1), 5)  # winning one point: 1-away vs 4-away
    0.81436
    """

    cube: int = 1
    owner: Owner = Owner.CENTRED
    away: tuple[int, int] | None = None
    crawford: bool = False
    post_crawford: bool = False
    jacoby: bool = False
    beavers: bool = False
    cube_limit: int | None = None
    met: MatchEquityTable = field(default_factory=MatchEquityTable.default, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.cube < 1 or self.cube & (self.cube - 1):
            raise CubeContextError(f"cube must be a power of two >= 1, got {self.cube}")
        if self.away is not None:
            me, opponent = self.away
            if not (1 <= me <= 25 and 1 <= opponent <= 25):
                raise CubeContextError(f"away must be two scores 1-25 (points needed), got {self.away}")
            if self.crawford and 1 not in self.away:
                raise CubeContextError(f"the Crawford game needs a side 1-away, got {self.away}")
            if self.crawford and self.post_crawford:
                raise CubeContextError("a game cannot be both the Crawford game and after it")
            if self.jacoby or self.beavers or self.cube_limit is not None:
                raise CubeContextError("Jacoby, beavers and a cube limit are money-play rules")
        elif self.crawford or self.post_crawford:
            raise CubeContextError("the Crawford rule exists only in match play")

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def from_state(cls, state: GameState, met: MatchEquityTable | None = None) -> CubeContext:
        """The context of ``state`` from the side on roll (the one who may double)."""
        me = state.position.turn
        owner = Owner.CENTRED if state.cube_owner is None else (Owner.ME if state.cube_owner == me else Owner.OPPONENT)
        met = met or MatchEquityTable.default()
        if state.is_money:
            return cls(state.cube, owner, None, jacoby=state.jacoby, beavers=state.beavers,
                       cube_limit=state.cube_limit, met=met)
        # A snapshot of the Crawford game says so; one after it, by a side 1-away.
        score = MatchScore(state.match_length, (state.score[me], state.score[me.other]), state.post_crawford)
        return cls.for_match(score, state.cube, owner, met)

    @classmethod
    def for_match(cls, score: MatchScore, cube: int = 1, owner: Owner = Owner.CENTRED,
                  met: MatchEquityTable | None = None) -> CubeContext:
        """Side 0's context in a match at ``score`` (:class:`gammon.referee.MatchScore`)."""
        away = (score.away(0), score.away(1))
        met = met or MatchEquityTable.default()
        if not score.cube_in_play:  # the Crawford game, or a 1-point match: no cube
            return cls(1, Owner.CENTRED, away, crawford=True, met=met)
        return cls(cube, owner, away, post_crawford=score.post_crawford, met=met)

    @property
    def is_money(self) -> bool:
        return self.away is None

    def flip(self) -> CubeContext:
        """The same context from the other side."""
        away = None if self.away is None else (self.away[1], self.away[0])
        return replace(self, owner=self.owner.flip(), away=away)

    def doubled(self) -> CubeContext:
        """After I double and the opponent takes: twice the cube, theirs."""
        return replace(self, cube=CubeState(self.cube).after_take(Owner.OPPONENT).value, owner=Owner.OPPONENT)

    def beavered(self) -> CubeContext:
        """After I double and the opponent beavers: four times the cube, still theirs."""
        return replace(self, cube=CubeState(self.cube).after_beaver(Owner.OPPONENT).value, owner=Owner.OPPONENT)

    # -- rules -----------------------------------------------------------------------------
    def _may_double(self, me: bool, cube: int) -> bool:
        """Whether a side holding access to a ``cube`` may double it usefully."""
        if double_refusal(CubeState(cube), crawford_game=self.crawford, cube_limit=self.cube_limit) is not None:
            return False
        # A side that wins the match with a single game at this cube has nothing to gain.
        return self.away is None or (self.away[0] if me else self.away[1]) > cube

    @property
    def can_double(self) -> bool:
        """Whether I may double now (cube access, Crawford, cube limit, dead cube)."""
        return self.owner is not Owner.OPPONENT and self._may_double(True, self.cube)

    @property
    def can_beaver(self) -> bool:
        """Whether a side doubled in this context may beaver (money with beavers on)."""
        return self.away is None and beaver_refusal(CubeState(self.cube), beavers=self.beavers,
                                                    cube_limit=self.cube_limit) is None

    # -- values of outcomes -------------------------------------------------------------------
    def value_of(self, points: int) -> float:
        """What a game ending now with me winning ``points`` (negative: losing) is worth to me.

        Money: the points themselves. Match: my MWC at the new score.
        """
        if self.away is None:
            return float(points)
        me, opponent = self.away
        # Once this game is over the Crawford game is behind if it is this one or came before
        # (as the referee's MatchScore.after_game counts it).
        crawford_played = self.crawford or self.post_crawford
        if points >= 0:
            if points:
                return self.met.mwc(me - points, opponent, crawford_played)
            return self.met.mwc(me, opponent, self.post_crawford)
        return self.met.mwc(me, opponent + points, crawford_played)

    def outcome_table(self, levels: int = MAX_LEVELS) -> np.ndarray:
        """``table[k, j]``: my value of outcome ``j`` with the cube at ``cube * 2**k``.

        Outcomes ``j``: win single, gammon, backgammon, lose single, gammon, backgammon. In a
        money game with the cube centred and the Jacoby rule, gammons count single at level 0
        (every level above it has seen the cube turned).
        """
        out = np.empty((levels, 6))
        jacoby = self.away is None and self.jacoby
        for k in range(levels):
            # Only whether the cube is centred matters here (the Jacoby rule), not who owns it.
            cube = CubeState(self.cube << k, None if k == 0 and self.owner is Owner.CENTRED else Owner.ME)
            for j, kind in enumerate(WinKind):
                points = points_won(kind, cube, jacoby)
                out[k, j], out[k, j + 3] = self.value_of(points), self.value_of(-points)
        return out

    def double_flags(self, levels: int = MAX_LEVELS) -> np.ndarray:
        """``flags[k] = (I may double, opponent may double)`` with the cube at ``cube * 2**k``;
        the top level never doubles (the formulas stop there)."""
        flags = np.zeros((levels, 2), np.bool_)
        for k in range(levels - 1):
            cube = self.cube << k
            flags[k] = (self._may_double(True, cube), self._may_double(False, cube))
        return flags

    def levels(self) -> int:
        """How many cube levels matter: for a match, until both sides' cubes are dead."""
        if self.away is None:
            if self.cube_limit is None:
                return MAX_LEVELS
            return max(1, min(MAX_LEVELS, (self.cube_limit // self.cube).bit_length()))
        k = 1
        while (self.cube << (k - 1)) < max(self.away) and k < MAX_LEVELS:
            k += 1
        return k + 1

    # -- reporting ------------------------------------------------------------------------------
    @property
    def cash(self) -> float:
        """My value when the opponent passes my double (I win the cube's value)."""
        return self.value_of(self.cube)

    def normalise(self, value: float | np.ndarray) -> float | np.ndarray:
        """A value as an equity per cube: money points / cube, match MWC as GNU Backgammon's
        money-like equity (+1 = winning the cube's value, -1 = losing it)."""
        if self.away is None:
            return value / self.cube
        return mwc_to_equity(value, self.value_of(self.cube), self.value_of(-self.cube))

    def describe(self) -> str:
        owner = {Owner.CENTRED: "centred", Owner.ME: "mine", Owner.OPPONENT: "opponent's"}[self.owner]
        if self.away is None:
            rules = [r for r, on in (("Jacoby", self.jacoby), ("beavers", self.beavers)) if on]
            limit = f", limit {self.cube_limit}" if self.cube_limit else ""
            return f"money, cube {self.cube} {owner}{limit}" + (f" ({', '.join(rules)})" if rules else "")
        stage = " (Crawford game)" if self.crawford else (" (post-Crawford)" if self.post_crawford else "")
        return f"{self.away[0]}-away / {self.away[1]}-away{stage}, cube {self.cube} {owner}"

"""What an evaluation gives: outcome probabilities, ranked plays and cube decisions.

These value types sit in the core, below both gammon's own bots and the engine client, as
``chess.engine``'s results depend only on ``chess``: whoever evaluates (a bot in process,
an engine over UBGI, GNU Backgammon) answers with the same types.

Gammon and backgammon probabilities are cumulative, as GNU Backgammon counts them: a
backgammon is also a gammon, and a gammon also a win. So ``win >= win_gammon >=
win_backgammon`` and ``1 - win >= lose_gammon >= lose_backgammon``. Engines keep
probabilities as ``float64`` arrays of shape ``(N, 5)`` in the order of :data:`FIELDS`;
:class:`Probabilities` is the value users see.

The cube: the side on roll compares *no double* (ND), *double, take* (DT) and *double,
pass* (DP). The opponent answers a double with whichever of take and pass is worse for the
doubler (and beavers a take it expects to win, where beavers are allowed), so the value of
doubling is ``min(DT, DP)``. Doubling is right when that beats ND; a position where ND
beats even DP is *too good*: the side on roll plays on for a gammon.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from .play import Play

#: Column order of probability arrays.
FIELDS = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
WIN, WIN_GAMMON, WIN_BACKGAMMON, LOSE_GAMMON, LOSE_BACKGAMMON = range(5)


def equities(probabilities: np.ndarray) -> np.ndarray:
    """Cubeless money equity of each row of an ``(N, 5)`` array (see :meth:`Probabilities.equity`)."""
    p = probabilities
    result: np.ndarray = 2.0 * p[:, 0] - 1.0 + p[:, 1] + p[:, 2] - p[:, 3] - p[:, 4]
    return result


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


@dataclass(frozen=True, slots=True)
class Hint:
    """One ranked play. ``probabilities`` are the mover's after the play, computed at ``ply``.

    An engine that names its play without evaluating it (a UBGI peer that sends only
    ``bestmove``) gives a hint with ``probabilities`` None and no equity or loss: unknown,
    never shown as an even game. :attr:`evaluated` says which kind a hint is. ``judge`` says
    what judged the position after the play where gammon's own evaluator did ("contact net",
    "race net", "crashed net", "bear-off table", "game over", or a heuristic's name; None for
    an engine's hint).
    """

    rank: int
    play: Play
    probabilities: Probabilities | None
    ply: int
    loss: float | None
    cubeful: float | None = None
    judge: str | None = None

    @property
    def equity(self) -> float | None:
        """Cubeful equity per cube when the hint had a cube and score, else cubeless equity;
        None when the engine gave neither."""
        if self.cubeful is not None:
            return self.cubeful
        return None if self.probabilities is None else self.probabilities.equity

    @property
    def evaluated(self) -> bool:
        """Whether the play comes with an equity (False: the engine only named it)."""
        return self.equity is not None

    def play_text(self) -> str:
        return play_text(self.play)

    def as_dict(self) -> dict[str, object]:
        """``gammon hint --json``'s play: ``equity``, ``loss`` and ``probabilities`` are null
        when the engine did not give them."""
        equity, loss, p = self.equity, self.loss, self.probabilities
        return {
            "rank": self.rank,
            "play": self.play_text(),
            "equity": None if equity is None else round(equity, 6),
            "loss": None if loss is None else round(loss, 6),
            "ply": self.ply,
            "judge": self.judge,
            "probabilities": None if p is None else {k: round(v, 6) for k, v in p.as_dict().items()},
        }


#: What a hint without an evaluation shows in place of its numbers.
NOT_EVALUATED = "no evaluation (the engine named its play only)"


def play_text(play: Play) -> str:
    """Standard move text; ``(no move)`` for a roll that cannot be played."""
    return str(play) or "(no move)"

#: Equities closer than this are a tie ("optional double").
TIE = 1e-6
#: :func:`cube_verdict`'s answers, by number.
TAKE, PASS, BEAVER = 0, 1, 2
#: :func:`cube_verdict`'s kinds of decision: not available, optional, double, too good, no double.
UNAVAILABLE, OPTIONAL, DOUBLE, TOO_GOOD, NO_DOUBLE = range(5)


def cube_verdict(no_double: float, double_take: float, double_pass: float, available: bool, has_beaver: bool,
                 beaver: float) -> tuple[bool, int, int]:
    """``(double, answer, kind)`` of a cube decision from its equities: the one rule, plain enough
    for numba to compile it for the compiled rollout trials (:mod:`gammon.rollout.kernel`).

    The taker answers with whatever is worse for the doubler (a beaver, where ``has_beaver``,
    when the take is good for the taker and a beaver worse still); doubling is right when that
    beats no double, optional within :data:`TIE`, and too good when no double beats even a pass.

    >>> cube_verdict(0.5, 0.6, 1.0, True, False, 0.0)
    (True, 0, 2)
    """
    answer = TAKE if double_take <= double_pass + TIE else PASS
    value_of_double = min(double_take, double_pass)
    if has_beaver and double_take < 0 and beaver < value_of_double:
        answer, value_of_double = BEAVER, beaver
    gain = value_of_double - no_double
    if not available:
        return False, answer, UNAVAILABLE
    if abs(gain) <= TIE and not (no_double > double_pass + TIE):
        return True, answer, OPTIONAL
    if gain > 0:
        return True, answer, DOUBLE
    if no_double > double_pass + TIE:
        return False, answer, TOO_GOOD
    return False, answer, NO_DOUBLE


class Response(enum.Enum):
    TAKE = "take"
    PASS = "pass"
    BEAVER = "beaver"


_RESPONSES = (Response.TAKE, Response.PASS, Response.BEAVER)


@dataclass(frozen=True, slots=True)
class CubeDecision:
    """The cube decision of the side on roll, with equities per cube (GNU Backgammon's scale).

    ``double`` says whether to double now, ``take`` whether the opponent should take (or
    beaver) if doubled. ``no_double``, ``double_take`` and ``double_pass`` are normalised
    equities (money: points per cube; match: +1 is winning the cube's value, -1 losing it);
    ``mwc`` holds the same three as match winning chances in a match.

    An engine's answer to one question (:meth:`from_ubgi`) is a decision too: ``offered``
    says the question was the answer to a double, the other side's choice is None, and so
    are the equities the engine did not give. ``depth`` is the ply it was decided at (None:
    not said), ``info`` what the engine said besides. :meth:`ubgi` is the answer's word.

    >>> d = CubeDecision.from_equities(0.50, 0.60, 1.0)
    >>> d.action, d.double, d.take, d.ubgi()
    ('Double, take', True, True, 'double')
    >>> CubeDecision.from_equities(1.2, 1.6, 1.0).action
    'Too good to double, pass'
    >>> answer = CubeDecision.from_ubgi("take", offered=True, info={"dt": 0.4, "dp": 1.0})
    >>> answer.take, answer.double, answer.double_take, answer.no_double, answer.ubgi()
    (True, None, 0.4, None, 'take')
    """

    no_double: float | None
    double_take: float | None
    double_pass: float | None
    double: bool | None
    take: bool | None
    response: Response | None
    action: str
    available: bool = True
    redouble: bool = False
    mwc: tuple[float, float, float] | None = None
    offered: bool = False
    depth: int | None = None
    info: dict[str, object] = field(default_factory=dict, compare=False)

    @classmethod
    def from_ubgi(cls, word: str, *, offered: bool, info: Mapping[str, object] | None = None,
                  depth: int | None = None, action: str | None = None) -> CubeDecision:
        """An engine's answer, as ``bestcube`` gives it: ``double`` or ``nodouble`` for the side on
        roll, ``take`` or ``drop`` when a double is ``offered`` (ValueError for another word).

        The equities come from ``info``'s ``nd``, ``dt`` and ``dp`` when it has them, ``depth``
        from its ``depth`` unless given; ``action`` is the answer in words (default: the word's).
        """
        words = ("take", "drop") if offered else ("double", "nodouble")
        if word not in words:
            raise ValueError(f"expected {' or '.join(words)}, got {word!r}")
        info = dict(info or {})
        nd, dt, dp = (_number(info.get(key)) for key in ("nd", "dt", "dp"))
        given = info.get("depth")
        if depth is None and isinstance(given, int):
            depth = given
        double = None if offered else word == "double"
        take = word == "take" if offered else None
        response = None if take is None else Response.TAKE if take else Response.PASS
        return cls(nd, dt, dp, double, take, response, action or _ANSWERS[word], offered=offered, depth=depth,
                   info=info)

    def ubgi(self) -> str:
        """The answer as UBGI's ``bestcube`` writes it: ``take``/``drop`` when the question was a
        double offered, else ``double``/``nodouble``."""
        if self.offered:
            return "take" if self.take else "drop"
        return "double" if self.double and self.available else "nodouble"

    @classmethod
    def from_equities(
        cls,
        no_double: float,
        double_take: float,
        double_pass: float,
        *,
        available: bool = True,
        redouble: bool = False,
        beaver: float | None = None,
        mwc: tuple[float, float, float] | None = None,
    ) -> CubeDecision:
        """Classify a decision; ``beaver`` is the doubler's equity after a beaver, if allowed."""
        double, answer, kind = cube_verdict(no_double, double_take, double_pass, available,
                                            beaver is not None, 0.0 if beaver is None else beaver)
        response = _RESPONSES[answer]
        verb = "redouble" if redouble else "double"
        head = (f"No {verb} available", f"Optional {verb}", verb.capitalize(), f"Too good to {verb}",
                f"No {verb}")[kind]
        action = head if not available else f"{head}, {response.value}"
        return cls(no_double, double_take, double_pass, bool(double), response is not Response.PASS, response,
                   action, available, redouble, mwc)

    def as_json(self) -> dict[str, object]:
        """The ``gammon cube --batch`` line: exactly these six fields."""
        return {
            "double": self.double,
            "take": self.take,
            "no_double": _rounded(self.no_double),
            "double_take": _rounded(self.double_take),
            "double_pass": _rounded(self.double_pass),
            "action": self.action,
        }

    def _equities(self) -> tuple[float, float, float]:
        """No double, double/take, double/pass; ValueError for an engine's answer without them."""
        if self.no_double is None or self.double_take is None or self.double_pass is None:
            raise ValueError(f"{self.action!r}: the engine gave no equities with this cube decision")
        return self.no_double, self.double_take, self.double_pass

    @property
    def best(self) -> float:
        """The equity of the proper action."""
        no_double, double_take, double_pass = self._equities()
        return min(double_take, double_pass) if self.double else no_double

    def error(self, doubled: bool) -> float:
        """Equity given up by doubling (``doubled``) or not, compared with the proper action."""
        no_double, double_take, double_pass = self._equities()
        chosen = min(double_take, double_pass) if doubled else no_double
        return max(0.0, self.best - chosen)

    def __str__(self) -> str:
        lines = [f"Proper cube action: {self.action}"]
        if self.no_double is None or self.double_take is None or self.double_pass is None:
            return lines[0]  # an engine's answer without its equities
        rows = (("No double", self.no_double), ("Double, take", self.double_take), ("Double, pass", self.double_pass))
        best = self.best
        for i, (label, value) in enumerate(rows):
            if self.redouble:
                label = label.replace("Double", "Redouble").replace("No double", "No redouble")
            extra = f"  MWC {100 * self.mwc[i]:.1f}%" if self.mwc else ""
            lines.append(f"  {label:<14} {value:+.4f} ({value - best:+.4f}){extra}")
        return "\n".join(lines)


#: An engine's one-word cube answers in words.
_ANSWERS = {"double": "Double", "nodouble": "No double", "take": "Take", "drop": "Pass"}


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


class ResignationDecision(enum.Enum):
    ACCEPT = "accept"
    REJECT = "reject"

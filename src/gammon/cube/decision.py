"""Cube decisions from three equities, and resignation decisions.

The side on roll compares *no double* (ND), *double, take* (DT) and *double, pass* (DP).
The opponent answers a double with whichever of take and pass is worse for the doubler
(and beavers a take it expects to win, where beavers are allowed), so the value of
doubling is ``min(DT, DP)``. Doubling is right when that beats ND; a position where ND
beats even DP is *too good*: the side on roll plays on for a gammon.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

#: Equities closer than this are a tie ("optional double").
TIE = 1e-6


class Response(enum.Enum):
    TAKE = "take"
    PASS = "pass"
    BEAVER = "beaver"


@dataclass(frozen=True, slots=True)
class CubeDecision:
    """The cube decision of the side on roll, with equities per cube (GNU Backgammon's scale).

    ``double`` says whether to double now, ``take`` whether the opponent should take (or
    beaver) if doubled. ``no_double``, ``double_take`` and ``double_pass`` are normalised
    equities (money: points per cube; match: +1 is winning the cube's value, -1 losing it);
    ``mwc`` holds the same three as match winning chances in a match.

    >>> d = CubeDecision.from_equities(0.50, 0.60, 1.0)
    >>> d.action, d.double, d.take
    ('Double, take', True, True)
    >>> CubeDecision.from_equities(1.2, 1.6, 1.0).action
    'Too good to double, pass'
    """

    no_double: float
    double_take: float
    double_pass: float
    double: bool
    take: bool
    response: Response
    action: str
    available: bool = True
    redouble: bool = False
    mwc: tuple[float, float, float] | None = None

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
        response = Response.TAKE if double_take <= double_pass + TIE else Response.PASS
        value_of_double = min(double_take, double_pass)
        if beaver is not None and double_take < 0 and beaver < value_of_double:
            response, value_of_double = Response.BEAVER, beaver
        verb = "redouble" if redouble else "double"
        answer = response.value
        gain = value_of_double - no_double
        if not available:
            double, head = False, f"No {verb} available"
        elif abs(gain) <= TIE and not (no_double > double_pass + TIE):
            double, head = True, f"Optional {verb}"
        elif gain > 0:
            double, head = True, verb.capitalize()
        elif no_double > double_pass + TIE:
            double, head = False, f"Too good to {verb}"
        else:
            double, head = False, f"No {verb}"
        action = head if not available else f"{head}, {answer}"
        return cls(no_double, double_take, double_pass, double, response is not Response.PASS, response,
                   action, available, redouble, mwc)

    def as_json(self) -> dict[str, object]:
        """The ``gammon cube --batch`` line: exactly these six fields."""
        return {
            "double": self.double,
            "take": self.take,
            "no_double": round(self.no_double, 6),
            "double_take": round(self.double_take, 6),
            "double_pass": round(self.double_pass, 6),
            "action": self.action,
        }

    @property
    def best(self) -> float:
        """The equity of the proper action."""
        return min(self.double_take, self.double_pass) if self.double else self.no_double

    def error(self, doubled: bool) -> float:
        """Equity given up by doubling (``doubled``) or not, compared with the proper action."""
        chosen = min(self.double_take, self.double_pass) if doubled else self.no_double
        return max(0.0, self.best - chosen)

    def __str__(self) -> str:
        lines = [f"Proper cube action: {self.action}"]
        rows = (("No double", self.no_double), ("Double, take", self.double_take), ("Double, pass", self.double_pass))
        best = self.best
        for i, (label, value) in enumerate(rows):
            if self.redouble:
                label = label.replace("Double", "Redouble").replace("No double", "No redouble")
            extra = f"  MWC {100 * self.mwc[i]:.1f}%" if self.mwc else ""
            lines.append(f"  {label:<14} {value:+.4f} ({value - best:+.4f}){extra}")
        return "\n".join(lines)


class ResignationDecision(enum.Enum):
    ACCEPT = "accept"
    REJECT = "reject"

"""The figures players quote, from a match's judged decisions: XG's PR, GNU Backgammon's mEMG and
ladder, marks, luck and its ratings, the cube breakdown and the errors in match winning chances.

Two styles name the same arithmetic two ways (docs/analysis.md gives every definition with an
example):

* **xg** (the default): the headline is the PR, eXtreme Gammon's *performance rating*, the
  equity lost per counted decision times 500. A checker play counts unless it is forced (one
  legal play). The doubler's turn counts when he doubled, when doubling was right (a missed
  double), or when not doubling was right by less than :data:`CLOSE_CUBE` and the position was
  not too good to double (playing on for the gammon is no decision); every take or pass counts.
  XG does not publish its thresholds: this is gammon's reading of them, stated here and in the
  docs. Errors are marked *error* from 0.020 EMG and *blunder* from 0.080, as XG marks ``?``
  and ``??``.
* **gnubg**: the headline is GNU Backgammon's error rate, mEMG per decision over the unforced
  plays and the "close or actual" cube decisions (a double, every take or pass, a turn whose
  double would have cost under 0.16), with its rating ladder; marks above 0.03 (doubtful), 0.06
  (error, gnubg's "bad") and 0.12 (blunder, "very bad").

Both rest on the same errors (a no double that neither counts has no error: not doubling was
right), so the PR is half the mEMG rate over a slightly different count of decisions. Luck is
GNU Backgammon's: a roll is marked lucky above +0.3 EMG, very lucky above +0.6 (unlucky below
-0.3, very unlucky below -0.6); the luck rate is the luck per roll (forced rolls and dances
included, as GNU Backgammon counts them) and its rating GNU Backgammon's, whose thresholds were
read from gnubg 1.07 itself (tests/test_analysis.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..position import Color

__all__ = [
    "CLOSE_CUBE",
    "CUBE_CLASSES",
    "GNUBG",
    "LUCK_MARKS",
    "LUCK_RATINGS",
    "RATINGS",
    "STYLES",
    "THRESHOLDS",
    "XG",
    "CubeEquities",
    "PlayerSummary",
    "Style",
    "StyleError",
    "luck_mark",
    "luck_rating",
    "mark",
    "rating",
    "style_of",
    "summarise",
]

#: A turn with the cube available counts as a cube decision when doubling would cost less than this.
CLOSE_CUBE = 0.16
#: GNU Backgammon's rating ladder: the label for an error rate per decision (EMG) below each.
RATINGS: tuple[tuple[float, str], ...] = (
    (0.002, "Supernatural"), (0.005, "World class"), (0.008, "Expert"), (0.012, "Advanced"),
    (0.018, "Intermediate"), (0.026, "Casual player"), (0.035, "Beginner"))
#: GNU Backgammon's luck marks of one roll (EMG): above each, or below its negative.
LUCK_MARKS: tuple[tuple[float, str, str], ...] = ((0.6, "very lucky", "very unlucky"), (0.3, "lucky", "unlucky"))
#: GNU Backgammon 1.07's luck rating of the luck per roll (EMG): at most each bound, else the last label.
LUCK_RATINGS: tuple[tuple[float, str], ...] = (
    (-0.06, "Go to bed"), (-0.03, "Bad dice, man!"), (0.03, "None"), (0.06, "Good dice, man!"))
#: The cube breakdown's rows, in GNU Backgammon's order (its "missed doubles below/above CP", "wrong
#: doubles below DP/above TG", "wrong takes", "wrong passes").
CUBE_CLASSES = ("missed_double_below_cp", "missed_double_above_cp", "wrong_double_below_dp", "wrong_double_above_tg",
                "wrong_take", "wrong_pass")


class StyleError(ValueError):
    """A style that is not ``xg`` or ``gnubg``."""


@dataclass(frozen=True, slots=True)
class Style:
    """How figures are told: the marks and their thresholds (EMG), and which rate is the headline."""

    name: str
    title: str
    marks: tuple[tuple[float, str], ...]
    inclusive: bool  # a mark from its threshold on (XG) or only above it (GNU Backgammon)

    def mark(self, error: float) -> str | None:
        """The mark of an error in EMG, or None."""
        for threshold, label in self.marks:
            if error > threshold or (self.inclusive and error >= threshold - 1e-12):
                return label
        return None


XG = Style("xg", "eXtreme Gammon", ((0.080, "blunder"), (0.020, "error")), inclusive=True)
GNUBG = Style("gnubg", "GNU Backgammon", ((0.12, "blunder"), (0.06, "error"), (0.03, "doubtful")), inclusive=False)
STYLES: dict[str, Style] = {style.name: style for style in (XG, GNUBG)}
#: GNU Backgammon 1.07's default analysis thresholds (EMG): the mark for an error above each.
THRESHOLDS = GNUBG.marks


def style_of(name: str | Style) -> Style:
    """A style by name (``xg`` or ``gnubg``)."""
    if isinstance(name, Style):
        return name
    try:
        return STYLES[name.strip().lower()]
    except KeyError:
        raise StyleError(f"style: expected xg or gnubg, got {name!r}") from None


def mark(error: float, style: str | Style = GNUBG) -> str | None:
    """``blunder``, ``error``, ``doubtful`` or None for an error in EMG, by ``style``'s thresholds."""
    return style_of(style).mark(error)


def rating(rate: float) -> str:
    """GNU Backgammon's label for an error rate per decision in EMG (not mEMG)."""
    return next((label for threshold, label in RATINGS if rate < threshold), "Awful!")


def luck_mark(luck: float) -> str | None:
    """GNU Backgammon's mark of one roll's luck in EMG: ``very lucky`` ... ``very unlucky``, or None."""
    for threshold, lucky, unlucky in LUCK_MARKS:
        if luck > threshold:
            return lucky
        if luck < -threshold:
            return unlucky
    return None


def luck_rating(rate: float) -> str:
    """GNU Backgammon 1.07's luck rating of the luck per roll in EMG (not mEMG)."""
    return next((label for bound, label in LUCK_RATINGS if (rate < bound if bound < 0 else rate <= bound)),
                "Go to Las Vegas")


@dataclass(frozen=True, slots=True)
class CubeEquities:
    """The three equities of a cube decision (EMG, the doubler's side) and what was done.

    ``doubled`` says the side doubled; ``answer`` is ``take``, ``pass`` (or ``beaver``) for the
    answer's decision, None for the doubler's.
    """

    no_double: float
    double_take: float
    double_pass: float
    doubled: bool
    answer: str | None = None

    @property
    def doubling(self) -> float:
        """What doubling is worth: the opponent answers as is best for him."""
        return min(self.double_take, self.double_pass)

    @property
    def too_good(self) -> bool:
        """Too good to double: playing on is worth more than the pass the double would bring."""
        return self.double_pass < self.double_take and self.no_double > self.double_pass

    def counted(self, style: Style) -> bool:
        """Whether the decision counts among a player's decisions (see the module)."""
        if self.answer is not None or self.doubled or self.doubling > self.no_double:
            return True
        close = self.no_double - self.doubling < CLOSE_CUBE
        return close and not (style.name == XG.name and self.too_good)

    def error(self) -> float:
        """The equity the decision gave up (EMG, never negative)."""
        if self.answer is None:
            best = max(self.no_double, self.doubling)
            return max(0.0, best - (self.doubling if self.doubled else self.no_double))
        chose = self.double_pass if self.answer == "pass" else self.double_take
        return max(0.0, chose - self.doubling)

    def kind(self) -> str | None:
        """Which row of the cube breakdown an error is (:data:`CUBE_CLASSES`), None without one.

        As GNU Backgammon splits them: a missed double is *above the cash point* when the
        opponent should have passed (double/take worth more than double/pass), else below it; a
        wrong double is *above the too-good point* when playing on was worth more than the cash
        (no double above double/pass), else *below the double point* (too early).
        """
        if self.error() <= 1e-9:
            return None
        if self.answer is not None:
            return "wrong_pass" if self.answer == "pass" else "wrong_take"
        if not self.doubled:
            return "missed_double_above_cp" if self.double_take > self.double_pass else "missed_double_below_cp"
        return "wrong_double_above_tg" if self.no_double > self.double_pass else "wrong_double_below_dp"


@dataclass(frozen=True, slots=True)
class PlayerSummary:
    """One side's figures (errors and luck in EMG, ``*_mwc`` in match winning chance, ``result``
    and ``luck_adjusted`` in MWC above 50% for a match, points for money).

    ``checker_decisions`` are the unforced plays; ``cube_decisions`` GNU Backgammon's close or
    actual cube decisions, ``xg_cube_decisions`` XG's (see the module).
    """

    name: str
    color: Color
    moves: int = 0
    checker_decisions: int = 0
    checker_error: float = 0.0
    cube_decisions: int = 0
    xg_cube_decisions: int = 0
    cube_error: float = 0.0
    checker_error_mwc: float = 0.0
    cube_error_mwc: float = 0.0
    marks: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    luck: float = 0.0
    luck_value: float = 0.0
    luck_marks: Mapping[str, int] = field(default_factory=dict)
    result: float = 0.0
    opponent_luck_value: float = 0.0
    cube: Mapping[str, Any] = field(default_factory=dict)

    @property
    def checker_error_rate(self) -> float:
        """mEMG per unforced checker play."""
        return 1000 * self.checker_error / self.checker_decisions if self.checker_decisions else 0.0

    @property
    def cube_error_rate(self) -> float:
        return 1000 * self.cube_error / self.cube_decisions if self.cube_decisions else 0.0

    @property
    def error(self) -> float:
        return self.checker_error + self.cube_error

    @property
    def error_mwc(self) -> float:
        return self.checker_error_mwc + self.cube_error_mwc

    @property
    def error_rate(self) -> float:
        """mEMG per decision, checker and cube together, as GNU Backgammon's overall rate."""
        decisions = self.checker_decisions + self.cube_decisions
        return 1000 * self.error / decisions if decisions else 0.0

    @property
    def xg_decisions(self) -> int:
        return self.checker_decisions + self.xg_cube_decisions

    @property
    def pr(self) -> float:
        """XG's performance rating: the equity lost per counted decision times 500."""
        return 500 * self.error / self.xg_decisions if self.xg_decisions else 0.0

    @property
    def rating(self) -> str:
        return rating(self.error_rate / 1000)

    @property
    def luck_rate(self) -> float:
        """mEMG of luck per roll (forced rolls and dances included)."""
        return 1000 * self.luck / self.moves if self.moves else 0.0

    @property
    def luck_rating(self) -> str:
        return luck_rating(self.luck_rate / 1000)

    @property
    def luck_adjusted(self) -> float:
        """The result less the luck of both sides (GNU Backgammon's luck-adjusted result)."""
        return self.result - (self.luck_value - self.opponent_luck_value)

    def as_json(self) -> dict[str, Any]:
        """The ``--json`` figures of one player."""
        return {
            "color": self.color.name.lower(),
            "pr": round(self.pr, 2), "decisions": self.xg_decisions,
            "error_rate": round(self.error_rate, 3), "rating": self.rating,
            "checker_decisions": self.checker_decisions, "checker_error": round(self.checker_error, 6),
            "checker_error_rate": round(self.checker_error_rate, 3),
            "cube_decisions": self.cube_decisions, "xg_cube_decisions": self.xg_cube_decisions,
            "cube_error": round(self.cube_error, 6), "cube_error_rate": round(self.cube_error_rate, 3),
            "error": round(self.error, 6),
            "error_mwc": round(self.error_mwc, 6), "checker_error_mwc": round(self.checker_error_mwc, 6),
            "cube_error_mwc": round(self.cube_error_mwc, 6),
            "marks": {style: dict(counts) for style, counts in self.marks.items()},
            "moves": self.moves, "luck": round(self.luck, 6), "luck_rate": round(self.luck_rate, 3),
            "luck_rating": self.luck_rating, "luck_marks": dict(self.luck_marks),
            "luck_value": round(self.luck_value, 6), "result": round(self.result, 6),
            "luck_adjusted": round(self.luck_adjusted, 6), "cube": _rounded(self.cube),
        }


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 6)
    if isinstance(value, Mapping):
        return {key: _rounded(item) for key, item in value.items()}
    return value


class _Tally:
    """A side's totals while the decisions are read (frozen into a :class:`PlayerSummary`)."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {"moves": 0, "checker_decisions": 0, "checker_error": 0.0, "cube_decisions": 0,
                                       "xg_cube_decisions": 0, "cube_error": 0.0, "checker_error_mwc": 0.0,
                                       "cube_error_mwc": 0.0, "luck": 0.0, "luck_value": 0.0}
        self.marks: dict[str, dict[str, int]] = {style.name: {label: 0 for _, label in style.marks} for style in STYLES.values()}
        self.luck_marks = {label: 0 for _, lucky, unlucky in LUCK_MARKS for label in (lucky, unlucky)}
        self.cube: dict[str, Any] = {"doubles": 0, "takes": 0, "passes": 0,
                                     **{kind: {"count": 0, "error": 0.0, "error_mwc": 0.0} for kind in CUBE_CLASSES}}

    def add(self, key: str, amount: float) -> None:
        self.values[key] += amount


def summarise(decisions: Iterable[Any], names: Mapping[Color, str], results: Mapping[Color, float]) -> dict[Color, PlayerSummary]:
    """Each side's :class:`PlayerSummary` from judged decisions (:class:`gammon.analysis.Decision`)
    and its result."""
    tallies = {color: _Tally() for color in Color}
    for decision in decisions:
        tally = tallies[decision.color]
        scale = decision.scale
        if decision.luck is not None:
            tally.add("moves", 1)
            tally.add("luck", decision.luck)
            tally.add("luck_value", decision.luck * scale)
            lucky = luck_mark(decision.luck)
            if lucky is not None:
                tally.luck_marks[lucky] += 1
        if decision.kind == "checker":
            if decision.forced:
                continue
            tally.add("checker_decisions", 1)
            tally.add("checker_error", decision.error)
            tally.add("checker_error_mwc", decision.error * scale)
        else:
            cube = decision.cube
            if cube is None:
                continue
            if cube.answer is None and cube.doubled:
                tally.cube["doubles"] += 1
            elif cube.answer == "pass":
                tally.cube["passes"] += 1
            elif cube.answer is not None:
                tally.cube["takes"] += 1
            tally.add("cube_decisions", cube.counted(GNUBG))
            tally.add("xg_cube_decisions", cube.counted(XG))
            tally.add("cube_error", decision.error)
            tally.add("cube_error_mwc", decision.error * scale)
            kind = cube.kind()
            if kind is not None:
                row = tally.cube[kind]
                row["count"] += 1
                row["error"] += decision.error
                row["error_mwc"] += decision.error * scale
        for style in STYLES.values():
            label = style.mark(decision.error)
            if label is not None:
                tally.marks[style.name][label] += 1
    out = {}
    for color in Color:
        tally = tallies[color]
        out[color] = PlayerSummary(names[color], color, **tally.values, marks=tally.marks, luck_marks=tally.luck_marks,
                                   result=results.get(color, 0.0),
                                   opponent_luck_value=tallies[color.other].values["luck_value"], cube=tally.cube)
    return out

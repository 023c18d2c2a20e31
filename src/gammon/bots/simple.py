"""The heuristic evaluator of Kristian Ekman's article "Backgammon Artificial Intelligence".

A score in pips, from the side that just moved:

* the pip difference (the opponent's pips minus ours);
* while there is contact, for each side (ours counted +, the opponent's -):

  - ``block * length ** block_exponent`` for each run of consecutive made points that
    still has an opposing checker behind it (a run the opponent has passed blocks nothing);
  - minus ``blot * pips`` for each blot, where ``pips`` is what being hit costs
    (25 - point), or ``blot_passed * pips`` once every opposing checker has passed it
    (only a checker that is hit and re-enters can reach it then);
  - blots costing at most ``blot_threshold`` pips (deep in the opponent's home board) are free;

* once contact is over, ``run_or_block`` more times the pip difference (so a side that
  leads in the race likes to break contact and one that trails likes to keep it) and
  ``borne_off`` per checker borne off more than the opponent.

The weights come from the article's trainer (``gammon train simple``, hill climbing on
self-play) and ship as ``gammon/data/simple.json``; that file also holds the logistic
calibration that turns the score into a win probability for search (no gammon model).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from .evaluator import (
    CONTACT,
    Evaluator,
    EvaluatorKernel,
    board_class,
    board_classes,
    logistic_probabilities,
)
from ..compiled import kernel

WEIGHT_NAMES = ("block", "block_exponent", "blot", "blot_threshold", "blot_passed", "run_or_block", "borne_off")
BLOCK, BLOCK_EXPONENT, BLOT, BLOT_THRESHOLD, BLOT_PASSED, RUN_OR_BLOCK, BORNE_OFF = range(7)
#: The untrained heuristic the trainer starts from: pips and a linear bonus for blocks, every
#: other factor 0. (All 0 is no start: two pure pip counters hit each other forever.) It
#: wins about 19 % of its games against the trained weights, as the article's untrained AI did.
UNTRAINED_WEIGHTS = (1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0)


@dataclass
class SimpleWeights:
    """The heuristic's weights plus the logistic calibration of its score: (a, b) for race, contact."""

    values: tuple[float, ...] = UNTRAINED_WEIGHTS
    calibration: tuple[tuple[float, ...], tuple[float, ...]] = ((0.1, 0.0), (0.04, 0.0))
    info: dict[str, object] = field(default_factory=dict)

    def array(self) -> np.ndarray:
        return np.array(self.values, np.float64)

    def to_json(self) -> str:
        return json.dumps(
            {
                "weights": dict(zip(WEIGHT_NAMES, self.values)),
                "calibration": {"race": list(self.calibration[0]), "contact": list(self.calibration[1])},
                "info": self.info,
            },
            indent=2,
        )

    @classmethod
    def from_json(cls, text: str) -> SimpleWeights:
        data = json.loads(text)
        weights = data["weights"]
        missing = [n for n in WEIGHT_NAMES if n not in weights]
        if missing:
            raise ValueError(f"simple weights lack {', '.join(missing)}")
        cal = data.get("calibration", {"race": [0.1, 0.0], "contact": [0.04, 0.0]})
        if len(cal["race"]) != 2 or len(cal["contact"]) != 2:
            raise ValueError("simple calibration needs (a, b) for race and for contact")
        return cls(
            tuple(float(weights[n]) for n in WEIGHT_NAMES),
            (tuple(cal["race"]), tuple(cal["contact"])),  # type: ignore[arg-type]
            dict(data.get("info", {})),
        )

    @classmethod
    def load(cls, path: str | Path | None = None) -> SimpleWeights:
        """Weights from ``path``, or the trained ones shipped with gammon."""
        if path is not None:
            return cls.from_json(Path(path).read_text())
        return _shipped()


@lru_cache(maxsize=1)
def _shipped() -> SimpleWeights:
    source = resources.files("gammon.data").joinpath("simple.json")
    if not source.is_file():
        return SimpleWeights()
    return SimpleWeights.from_json(source.read_text())


#: The type of :meth:`SimpleEvaluator.kernel`'s parameters (weights, calibration), for the kernels'
#: signatures.
PARAMS = "readonly(Tuple((float64[::1], float64[:, ::1])))"


@kernel(inline="always")
def _at(board, point, side):
    """Signed count on ``point`` in the numbering of ``side`` (0 = the board's mover, 1 = the other)."""
    return board[point] if side == 0 else -board[25 - point]


@kernel("(readonly(int8[::1]), int64, readonly(float64[::1]))")
def _structure(board, side, w):
    """Blocks minus blots of one side, while contact lasts."""
    opponent_back = 25  # the rearmost opposing checker in this side's numbering (0 = its bar)
    for point in range(25):
        if _at(board, point, side) < 0:
            opponent_back = point
            break
    score = 0.0
    run = 0
    for point in range(1, 25):
        n = _at(board, point, side)
        ahead = point > opponent_back  # an opposing checker is still behind this point
        if n >= 2 and ahead:
            run += 1
            continue
        if run:
            score += w[BLOCK] * run ** w[BLOCK_EXPONENT]
            run = 0
        if n == 1:
            cost = 25 - point
            if cost > w[BLOT_THRESHOLD]:
                score -= cost * (w[BLOT] if ahead else w[BLOT_PASSED])
    if run:
        score += w[BLOCK] * run ** w[BLOCK_EXPONENT]
    return score


@kernel("(readonly(int8[::1]), readonly(float64[::1]))")
def simple_score(board, w):
    """The heuristic score of one board after a play, for the side that moved (in pips)."""
    ours = 0
    theirs = 0
    our_off = 15
    their_off = 15
    for point in range(1, 26):
        if board[point] > 0:
            ours += point * board[point]
            our_off -= board[point]
    for point in range(25):
        if board[point] < 0:
            theirs += (25 - point) * -board[point]
            their_off += board[point]
    lead = float(theirs - ours)
    if board_class(board) == CONTACT:
        return lead + _structure(board, 0, w) - _structure(board, 1, w)
    return lead * (1.0 + w[RUN_OR_BLOCK]) + w[BORNE_OFF] * (our_off - their_off)


@kernel("(readonly(int8[:, ::1]), readonly(float64[::1]))")
def simple_scores(boards, w):
    out = np.empty(boards.shape[0])
    for i in range(boards.shape[0]):
        out[i] = simple_score(boards[i], w)
    return out


@kernel(f"({PARAMS}, readonly(int8[:, ::1]))")
def kernel_boards(params, boards):
    """The score through its logistic curve: ``params`` is (weights, calibration). The score
    counts both sides already, pip lead included: it is the only feature."""
    race = board_classes(boards) != CONTACT
    return logistic_probabilities(simple_scores(boards, params[0])[:, None], race, params[1])


@kernel(f"({PARAMS}, readonly(int8[:, ::1]), readonly(int64[::1]), readonly(int8[:, ::1]))")
def kernel_children(params, parents, offsets, children):
    """The plays of rolls: each scored on its own, whatever came before."""
    return kernel_boards(params, children)


class SimpleEvaluator(Evaluator):
    """The article's heuristic with trained (or given) weights."""

    name = "simple"

    def __init__(self, weights: SimpleWeights | None = None) -> None:
        self.weights = weights or SimpleWeights.load()
        self._w = self.weights.array()
        self._calibration = np.array(self.weights.calibration, np.float64)

    def scores(self, boards: np.ndarray) -> np.ndarray:
        return simple_scores(np.ascontiguousarray(boards, np.int8), self._w)

    def kernel(self) -> EvaluatorKernel:
        return EvaluatorKernel(kernel_children, kernel_boards, (self._w, self._calibration), same=True)

    def _evaluate(self, boards: np.ndarray) -> np.ndarray:
        return kernel_boards((self._w, self._calibration), boards)

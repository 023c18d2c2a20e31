"""Tesauro's pubeval (1993): the public linear evaluator every backgammon program is measured against.

The weights and the input encoding are data (``gammon/data/pubeval.json``): 122 inputs,
five per point and two for the bar and the borne-off checkers, scored with the race
weights when the position *before* the play is a race and the contact weights otherwise.
The encoding is computed straight from the kernel board inside one compiled loop, so a
batch of children costs one call.

pubeval returns a score, not probabilities, and a one-sided one: its inputs barely see the
opponent's checkers (only its blots and bar; in a race, nothing). Search compares values
across rolls and across the opponent's replies, so the win probability is a logistic curve
per weight set over three features: pubeval's score of the play, pubeval's score of the
opponent's standing before the play (its last play, seen from its side) and the pip lead
after the roll. The last two are the same for every play of a roll, so ``pubeval`` at 0
ply plays exactly Tesauro's moves. A position valued on its own (:meth:`evaluate_batch`,
the leaves of a search) has no parent: there each side's score uses the weights of the
position's own class, the opponent's read off the board itself, with a curve of its own.
The curves are fitted on pubeval's own self-play (:mod:`gammon.train.calibrate`). There
is no gammon model: the gammon columns are 0.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

import numpy as np

from ..movegen import flip_board
from .evaluator import (
    CONTACT,
    OVER,
    Evaluator,
    EvaluatorKernel,
    board_class,
    leads_of_boards,
    leads_of_children,
    logistic_probabilities,
)
from ..compiled import kernel

#: Logistic calibration, rows race and contact, columns (score, opponent's score, lead, bias)
#: of ``logit P(win)`` (see the module docstring). Fitted by
#: ``python -m gammon.train.calibrate pubeval`` (20,000 self-play games, seed 1).
CALIBRATION = np.array([[0.082149, -0.082937, 0.200271, -0.817566], [0.066000, -0.059475, 0.020778, -0.131137]])
#: The curve for a position on its own (search's leaves): its score and the opponent's,
#: each with the weights of its own class, and its pip lead (``--standalone`` fit).
#: The type of :meth:`PubevalEvaluator.kernel`'s parameters, for the kernels' signatures.
PARAMS = "readonly(Tuple((float64[::1], float64[::1], float64[:, ::1], float64[:, ::1])))"
STANDALONE_CALIBRATION = np.array([[0.079166, -0.080430, 0.194007, -0.777709], [0.066608, -0.065134, 0.020363, -0.152901]])


@lru_cache(maxsize=1)
def load_weights() -> tuple[np.ndarray, np.ndarray]:
    """(race, contact) weight vectors of 122 floats from the package data."""
    data = json.loads(resources.files("gammon.data").joinpath("pubeval.json").read_text())
    race = np.array(data["race_weights"], np.float64)
    contact = np.array(data["contact_weights"], np.float64)
    return race, contact


@kernel("(readonly(int8[::1]), readonly(float64[::1]))")
def pubeval_score(board, weights):
    """Tesauro's score of one board after a play, from the mover's side (higher is better)."""
    score = 0.0
    for point in range(1, 25):
        n = board[point]
        base = 5 * (24 - point)
        if n == -1:
            score += weights[base]
        elif n == 1:
            score += weights[base + 1]
        elif n >= 2:
            score += weights[base + 2]
            if n == 3:
                score += weights[base + 3]
            elif n >= 4:
                score += weights[base + 4] * (n - 3) / 2.0
    score += weights[120] * (-board[0]) / 2.0
    off = 15
    for point in range(1, 26):
        if board[point] > 0:
            off -= board[point]
    score += weights[121] * off / 15.0
    return score


@kernel("(readonly(int8[::1]),)")
def _is_race(board):
    kind = board_class(board)
    return kind != CONTACT and kind != OVER


@kernel("(readonly(int8[:, ::1]), readonly(boolean[::1]), readonly(float64[::1]), readonly(float64[::1]))")
def pubeval_scores(boards, race, race_weights, contact_weights):
    """Scores of many boards; ``race[i]`` picks the weight set of board ``i``."""
    out = np.empty(boards.shape[0])
    for i in range(boards.shape[0]):
        out[i] = pubeval_score(boards[i], race_weights if race[i] else contact_weights)
    return out


@kernel("(readonly(int8[:, ::1]),)")
def _race_of_boards(boards):
    race = np.empty(boards.shape[0], np.bool_)
    for i in range(boards.shape[0]):
        race[i] = _is_race(boards[i])
    return race


@kernel("(readonly(int8[:, ::1]), readonly(int64[::1]))")
def _race_of_children(parents, offsets):
    """Each child's weight set, from its parent (the position before the play)."""
    race = np.empty(offsets[-1], np.bool_)
    for i in range(parents.shape[0]):
        flag = _is_race(parents[i])
        for j in range(offsets[i], offsets[i + 1]):
            race[j] = flag
    return race


@kernel("(readonly(int8[:, ::1]), readonly(int64[::1]), readonly(int8[:, ::1]), readonly(float64[::1]), readonly(float64[::1]))")
def _features_of_children(parents, offsets, children, race_weights, contact_weights):
    """(score, opponent's score before the play, lead after the roll) of each child."""
    out = np.empty((children.shape[0], 3))
    leads = leads_of_children(parents, offsets, children)
    for i in range(parents.shape[0]):
        weights = race_weights if _is_race(parents[i]) else contact_weights
        other = pubeval_score(flip_board(parents[i]), weights)
        for j in range(offsets[i], offsets[i + 1]):
            out[j, 0] = pubeval_score(children[j], weights)
            out[j, 1] = other
            out[j, 2] = leads[j]
    return out


@kernel("(readonly(int8[:, ::1]), readonly(boolean[::1]), readonly(float64[::1]), readonly(float64[::1]))")
def _features_of_boards(boards, race, race_weights, contact_weights):
    """The same features without a parent: the opponent's standing is read off the board itself."""
    out = np.empty((boards.shape[0], 3))
    leads = leads_of_boards(boards)
    for i in range(boards.shape[0]):
        weights = race_weights if race[i] else contact_weights
        out[i, 0] = pubeval_score(boards[i], weights)
        out[i, 1] = pubeval_score(flip_board(boards[i]), weights)
        out[i, 2] = leads[i]
    return out


@kernel(f"({PARAMS}, readonly(int8[:, ::1]))")
def kernel_boards(params, boards):
    """Positions on their own: ``params`` is (race weights, contact weights, calibration, standalone)."""
    race = _race_of_boards(boards)
    return logistic_probabilities(_features_of_boards(boards, race, params[0], params[1]), race, params[3])


@kernel(f"({PARAMS}, readonly(int8[:, ::1]), readonly(int64[::1]), readonly(int8[:, ::1]))")
def kernel_children(params, parents, offsets, children):
    """The plays of rolls, each scored with its parent's weight set and curve (see the module docstring)."""
    race = _race_of_children(parents, offsets)
    features = _features_of_children(parents, offsets, children, params[0], params[1])
    return logistic_probabilities(features, race, params[2])


class PubevalEvaluator(Evaluator):
    """Tesauro's pubeval; ``calibration`` maps its score to a win probability (see module doc)."""

    name = "pubeval"

    def __init__(self, calibration: np.ndarray | None = None, standalone: np.ndarray | None = None) -> None:
        self.race_weights, self.contact_weights = load_weights()
        self.calibration = CALIBRATION if calibration is None else np.asarray(calibration, np.float64)
        self.standalone = STANDALONE_CALIBRATION if standalone is None else np.asarray(standalone, np.float64)

    def scores(self, boards: np.ndarray, race: np.ndarray | None = None) -> np.ndarray:
        """Raw pubeval scores; by default each board picks its weights by its own class."""
        boards = np.ascontiguousarray(boards, np.int8)
        if race is None:
            race = _race_of_boards(boards)
        return pubeval_scores(boards, race, self.race_weights, self.contact_weights)

    def kernel(self) -> EvaluatorKernel:
        return EvaluatorKernel(kernel_children, kernel_boards,
                               (self.race_weights, self.contact_weights, self.calibration, self.standalone))

    def _evaluate(self, boards: np.ndarray) -> np.ndarray:
        kernel = self.kernel()
        return kernel.boards(kernel.params, boards)

    def _evaluate_children(self, parents: np.ndarray, offsets: np.ndarray, children: np.ndarray) -> np.ndarray:
        kernel = self.kernel()
        return kernel.children(kernel.params, np.ascontiguousarray(parents, np.int8), np.asarray(offsets, np.int64),
                               children)

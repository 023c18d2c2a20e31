"""Tesauro's pubeval (1993): the public linear evaluator every backgammon program is measured against.

The weights and the input encoding are data (``gammon/data/pubeval.json``): 122 inputs,
five per point and two for the bar and the borne-off checkers, scored with the race
weights when the position *before* the play is a race and the contact weights otherwise.
The encoding is computed straight from the kernel board inside one compiled loop, so a
batch of children costs one call.

pubeval returns a score, not probabilities. For search (which averages over rolls) the
score is mapped to a win probability by a logistic curve per weight set, fitted on
pubeval's own self-play games (:mod:`gammon.train.calibrate`); it has no gammon model, so
its gammon columns are 0. At 0 ply only the order of the scores matters, so ``pubeval``
plays exactly Tesauro's moves.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

import numpy as np
from numba import njit

from .evaluator import (
    CONTACT,
    OVER,
    Evaluator,
    board_class,
    leads_of_boards,
    leads_of_children,
    logistic_probabilities,
)

#: Logistic calibration, rows race and contact, columns (a, c, b) of
#: ``logit P(win) = a * score + c * lead + b`` (see :mod:`gammon.bots.evaluator`).
#: Fitted by ``python -m gammon.train.calibrate pubeval`` (20,000 self-play games, seed 1).
CALIBRATION = np.array([[0.050933, 0.170731, -0.388205], [0.072505, 0.020732, -0.932308]])


@lru_cache(maxsize=1)
def load_weights() -> tuple[np.ndarray, np.ndarray]:
    """(race, contact) weight vectors of 122 floats from the package data."""
    data = json.loads(resources.files("gammon.data").joinpath("pubeval.json").read_text())
    race = np.array(data["race_weights"], np.float64)
    contact = np.array(data["contact_weights"], np.float64)
    return race, contact


@njit(cache=True)
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


@njit(cache=True)
def _is_race(board):
    kind = board_class(board)
    return kind != CONTACT and kind != OVER


@njit(cache=True)
def pubeval_scores(boards, race, race_weights, contact_weights):
    """Scores of many boards; ``race[i]`` picks the weight set of board ``i``."""
    out = np.empty(boards.shape[0])
    for i in range(boards.shape[0]):
        out[i] = pubeval_score(boards[i], race_weights if race[i] else contact_weights)
    return out


@njit(cache=True)
def _race_of_boards(boards):
    race = np.empty(boards.shape[0], np.bool_)
    for i in range(boards.shape[0]):
        race[i] = _is_race(boards[i])
    return race


@njit(cache=True)
def _race_of_children(parents, offsets):
    """Each child's weight set, from its parent (the position before the play)."""
    race = np.empty(offsets[-1], np.bool_)
    for i in range(parents.shape[0]):
        flag = _is_race(parents[i])
        for j in range(offsets[i], offsets[i + 1]):
            race[j] = flag
    return race


class PubevalEvaluator(Evaluator):
    """Tesauro's pubeval; ``calibration`` maps its score to a win probability (see module doc)."""

    name = "pubeval"

    def __init__(self, calibration: np.ndarray | None = None) -> None:
        self.race_weights, self.contact_weights = load_weights()
        self.calibration = CALIBRATION if calibration is None else np.asarray(calibration, np.float64)

    def scores(self, boards: np.ndarray, race: np.ndarray | None = None) -> np.ndarray:
        """Raw pubeval scores; by default each board picks its weights by its own class."""
        boards = np.ascontiguousarray(boards, np.int8)
        if race is None:
            race = _race_of_boards(boards)
        return pubeval_scores(boards, race, self.race_weights, self.contact_weights)

    def _evaluate(self, boards: np.ndarray) -> np.ndarray:
        race = _race_of_boards(boards)
        scores = pubeval_scores(boards, race, self.race_weights, self.contact_weights)
        return logistic_probabilities(scores, leads_of_boards(boards), race, self.calibration)

    def _evaluate_children(self, parents: np.ndarray, offsets: np.ndarray, children: np.ndarray) -> np.ndarray:
        parents = np.ascontiguousarray(parents, np.int8)
        offsets = np.asarray(offsets, np.int64)
        race = _race_of_children(parents, offsets)
        scores = pubeval_scores(children, race, self.race_weights, self.contact_weights)
        leads = leads_of_children(parents, offsets, children)
        return logistic_probabilities(scores, leads, race, self.calibration)

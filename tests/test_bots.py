"""Evaluators: pubeval against a hand computation, probabilities, finished games, the composite."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from gammon import Position, movegen
from gammon.bots.evaluator import RACE, CompositeEvaluator, board_class, finished_batch, flip_batch
from gammon.evaluation import Probabilities, equities, flip_probabilities
from gammon.bots.pubeval import PubevalEvaluator
from gammon.bots.random_eval import RandomEvaluator
from gammon.bots.simple import SimpleEvaluator, SimpleWeights

CORPUS = Path(__file__).parent / "vectors" / "corpus.txt"


def corpus(count: int) -> list[tuple[str, int, int]]:
    rows = [line.split() for line in CORPUS.read_text().splitlines()[:count]]
    return [(r[0], int(r[1]), int(r[2])) for r in rows]


# -- pubeval ------------------------------------------------------------------------------------
def test_pubeval_hand_computed() -> None:
    # Mover: 2 on its 24-point, 5 on its 13-point, 8 off. Opponent: a blot on the mover's
    # ace point and one checker on the bar: contact weights.
    #   24-point n=2:  w[2]                      = -1.66135
    #   13-point n=5:  w[57] + w[59] * (5-3)/2   =  1.78389 + 0.36797
    #   opponent blot on the ace point: w[115]   =  1.23606
    #   opponent bar 1/2: w[120] / 2             =  5.62596 / 2
    #   borne off 8/15: w[121] * 8 / 15          = -2.758 * 8 / 15
    board = np.zeros(26, np.int8)
    board[24], board[13], board[1], board[0] = 2, 5, -1, -1
    expected = -1.66135 + 1.78389 + 0.36797 + 1.23606 + 5.62596 / 2 - 2.758 * 8 / 15
    assert PubevalEvaluator().scores(board[None])[0] == pytest.approx(expected, abs=1e-9)
    assert expected == pytest.approx(3.0686167, abs=1e-6)


def _reference_pubeval(board: list[int], race: bool) -> float:
    """The encoding exactly as pubeval.json describes it, one input at a time."""
    data = json.loads(resources.files("gammon.data").joinpath("pubeval.json").read_text())
    weights = data["race_weights" if race else "contact_weights"]
    x = [0.0] * 122
    for p in range(1, 25):
        n = board[p]
        b = 5 * (24 - p)
        if n == -1:
            x[b] = 1
        if n == 1:
            x[b + 1] = 1
        if n >= 2:
            x[b + 2] = 1
        if n == 3:
            x[b + 3] = 1
        if n >= 4:
            x[b + 4] = (n - 3) / 2
    x[120] = -board[0] / 2
    x[121] = (15 - sum(v for v in board[1:] if v > 0)) / 15
    return sum(w * v for w, v in zip(weights, x))


def test_pubeval_matches_reference_encoding() -> None:
    evaluator = PubevalEvaluator()
    for pid, d1, d2 in corpus(40):
        children, _, _ = movegen.generate(Position(pid).array(), d1, d2)
        for race in (False, True):
            got = evaluator.scores(children, np.full(len(children), race))
            want = [_reference_pubeval(c.tolist(), race) for c in children]
            np.testing.assert_allclose(got, want, atol=1e-9)


def test_pubeval_children_use_the_parent_weight_set() -> None:
    # 6-5 in contact where 13/2 ends the contact: pubeval still scores every child with the
    # contact weights, as Tesauro's program does (the flag is the position before the play).
    board = np.zeros(26, np.int8)
    board[13], board[6] = 1, 14  # the mover
    board[7], board[20] = -1, -14  # the opponent: a blot the 13-point checker can hit or pass
    children, _, _ = movegen.generate(board, 6, 5)
    assert any(board_class(c) == RACE for c in children)
    evaluator = PubevalEvaluator()
    probs = evaluator.evaluate_children(board[None], np.array([0, len(children)]), children)
    contact = evaluator.scores(children, np.zeros(len(children), bool))
    np.testing.assert_array_equal(np.argsort(-equities(probs), kind="stable"), np.argsort(-contact, kind="stable"))


# -- probabilities ------------------------------------------------------------------------------
def test_probabilities_equity_and_flip() -> None:
    p = Probabilities(0.6, 0.2, 0.05, 0.1, 0.01)
    assert p.equity == pytest.approx(2 * 0.6 - 1 + 0.2 + 0.05 - 0.1 - 0.01)
    assert p.flip().equity == pytest.approx(-p.equity)
    assert p.flip().flip() == p
    row = np.array([p.as_tuple()])
    assert equities(row)[0] == pytest.approx(p.equity)
    assert Probabilities.from_array(flip_probabilities(row)[0]) == p.flip()
    assert Probabilities(1.0, 1.0, 1.0).equity == 3.0


@pytest.mark.parametrize("values", [(0.5, 0.6, 0, 0, 0), (0.5, 0.1, 0.2, 0, 0), (0.8, 0, 0, 0.3, 0), (1.2, 0, 0, 0, 0)])
def test_probabilities_reject_inconsistent(values: tuple[float, ...]) -> None:
    with pytest.raises(ValueError, match="inconsistent"):
        Probabilities(*values)


@pytest.mark.parametrize("evaluator", [PubevalEvaluator(), SimpleEvaluator(), RandomEvaluator(1)], ids=lambda e: e.name)
def test_evaluators_give_consistent_probabilities(evaluator) -> None:
    for pid, d1, d2 in corpus(30):
        board = Position(pid).array()
        children, _, _ = movegen.generate(board, d1, d2)
        probs = evaluator.evaluate_children(board[None], np.array([0, len(children)]), children)
        assert probs.shape == (len(children), 5)
        for row in probs:
            Probabilities.from_array(row)  # raises when inconsistent
        np.testing.assert_allclose(evaluator.evaluate_batch(children)[:, 1:], probs[:, 1:])


def test_evaluate_position_is_from_the_side_to_act() -> None:
    evaluator = PubevalEvaluator()
    position = Position()
    assert evaluator.evaluate_position(position) == evaluator.evaluate(movegen.flip_board(position.array())).flip()


# -- finished games -----------------------------------------------------------------------------
def _finished(opponent: dict[int, int]) -> np.ndarray:
    board = np.zeros(26, np.int8)
    for point, count in opponent.items():
        board[point] = -count
    return board


@pytest.mark.parametrize(
    "opponent, expected",
    [
        ({20: 14}, (1, 0, 0, 0, 0)),  # it bore off one checker: single game
        ({20: 15}, (1, 1, 0, 0, 0)),  # none off: gammon
        ({20: 14, 3: 1}, (1, 1, 1, 0, 0)),  # one still in the winner's home board: backgammon
        ({20: 14, 0: 1}, (1, 1, 1, 0, 0)),  # one on the bar: backgammon
    ],
)
def test_finished_games_are_exact(opponent: dict[int, int], expected: tuple[int, ...]) -> None:
    board = _finished(opponent)
    for evaluator in (PubevalEvaluator(), SimpleEvaluator(), RandomEvaluator()):
        assert evaluator.evaluate(board).as_tuple() == expected
    out = np.zeros((1, 5))
    assert not finished_batch(flip_batch(board[None]), out)[0]
    assert tuple(out[0]) == tuple(Probabilities(*expected).flip().as_tuple())


# -- composite --------------------------------------------------------------------------------
class FakeBearoff:
    """Tables that know only positions where the side to move has 1 checker left."""

    def __init__(self) -> None:
        self.seen: list[np.ndarray] = []

    def covers(self, board: np.ndarray) -> bool:
        return int(board[board > 0].sum()) == 1

    def on_roll_batch(self, boards: np.ndarray) -> np.ndarray:
        self.seen.extend(boards)
        return np.tile([0.9, 0.2, 0.0, 0.0, 0.0], (len(boards), 1))


def test_composite_uses_tables_for_covered_positions_from_their_view() -> None:
    tables = FakeBearoff()
    composite = CompositeEvaluator(PubevalEvaluator(), tables)
    covered = np.zeros(26, np.int8)
    covered[2], covered[24] = 3, -1  # after our play the opponent (to move) has one checker left
    contact = Position().array()
    probs = composite.evaluate_batch(np.stack([covered, contact]))
    # The table's 0.9 win for the side to move, flipped; its gammon (0.2) cannot happen: we
    # have borne checkers off, and impossible outcomes are zeroed.
    np.testing.assert_allclose(probs[0], (0.1, 0.0, 0.0, 0.0, 0.0))
    assert tuple(probs[1]) == tuple(PubevalEvaluator().evaluate_batch(contact[None])[0])
    assert len(tables.seen) == 1 and tables.seen[0][1] == 1  # handed over seen from the side to move


def test_simple_weights_round_trip() -> None:
    weights = SimpleWeights.load()
    again = SimpleWeights.from_json(weights.to_json())
    assert again.values == weights.values and again.calibration == weights.calibration
    with pytest.raises(ValueError, match="lack"):
        SimpleWeights.from_json('{"weights": {"block": 1}}')


def test_impossible_gammons_and_backgammons_are_zeroed() -> None:
    from gammon.bots.evaluator import impossible_outcomes

    board = np.zeros(26, np.int8)
    board[8] = 15  # the mover: all fifteen on its 8-point, none off
    board[24] = -1  # the opponent: one checker left, on its ace point (no contact)
    p = np.array([[0.0, 0.0, 0.0, 1.0, 0.05]])
    impossible_outcomes(board[None], p)
    assert tuple(p[0]) == (0.0, 0.0, 0.0, 1.0, 0.0)  # gammoned for sure, never backgammoned
    board[8], board[20] = 14, 1  # one checker still in the opponent's home board
    p = np.array([[0.0, 0.0, 0.0, 1.0, 0.05]])
    impossible_outcomes(board[None], p)
    assert p[0, 4] == 0.05

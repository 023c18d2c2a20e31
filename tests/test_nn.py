"""The neural net: input encoding, forward pass, weights files, TD steps, the shipped ``nn`` player."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from gammon import Position, movegen
from gammon.duel import play_pair
from gammon.bots import Bot
from gammon.players import load_player
from gammon.bots.pubeval import PubevalEvaluator
from gammon.nn import features
from gammon.nn.evaluator import NNEvaluator, load_network
from gammon.nn.features import INPUTS, SIDE_INPUTS, encode_batch
from gammon.nn.network import Network, NetworkFileError
from gammon.train import td
from gammon.train.selfplay import pubeval_block

OPENING = Position().array()


def _view(points: dict[int, int]) -> np.ndarray:
    view = np.zeros(26, np.int8)
    for point, n in points.items():
        view[point] = n
    return view


def test_opening_features() -> None:
    x = encode_batch(OPENING[None, :])[0]
    assert x.shape == (INPUTS,)
    # The opening is symmetric: both sides read the same inputs.
    np.testing.assert_array_equal(x[:SIDE_INPUTS], x[SIDE_INPUTS : 2 * SIDE_INPUTS])
    extras = x[2 * SIDE_INPUTS : features.VERSION_INPUTS[2]].reshape(2, features.SIDE_EXTRAS)
    np.testing.assert_array_equal(extras[0], extras[1])
    third = x[features.VERSION_INPUTS[2] :].reshape(2, features.SIDE_EXTRAS_3)
    np.testing.assert_array_equal(third[0], third[1])
    # a lone checker on the 24-point cannot pass the 19-, 17- and 12-points: fully contained
    assert third[0, features.CONTAIN] == 1.0 and third[0, features.BACKGAME] == 0.0
    assert third[0, features.TIMING] == pytest.approx((5 * 7 + 3 * 2 + 2 * 18) / 100)  # 13, 8, 24 beyond the 6
    assert third[0, features.BURIED] == 0.0
    assert extras[0, features.BREAK_CONTACT] == pytest.approx(1.52)  # 167 pips less 1 for each checker
    assert extras[0, features.ENTER] == pytest.approx(1 / 36)  # one point (the 6-point) closed
    units = x[: features.POINT_UNITS].reshape(24, 4)
    np.testing.assert_array_equal(units[5], [1, 1, 1, 1])  # 5 on the 6-point: (5 - 3) / 2
    np.testing.assert_array_equal(units[7], [1, 1, 1, 0])  # 3 on the 8-point
    np.testing.assert_array_equal(units[23], [1, 1, 0, 0])  # 2 on the 24-point
    assert units[[i for i in range(24) if i not in (5, 7, 12, 23)]].sum() == 0
    assert x[features.PIPS] == pytest.approx(1.0)  # 167 pips
    assert x[features.BACK] == pytest.approx(2 / 5)
    assert x[features.ANCHORS] == pytest.approx(0.5)
    assert x[features.BLOTS] == 0 and x[features.SHOTS] == 0 and x[features.BAR] == 0 and x[features.OFF] == 0


def test_shots_count_the_classic_numbers() -> None:
    # A blot 6 pips away is hit by 17 rolls: 11 sixes, 5-1, 4-2, 3-3 and 2-2.
    assert features.shots(_view({8: 1, 2: -1})) == 17
    # A blot 1 pip away: 11 rolls with a 1 (no combination can make 1).
    assert features.shots(_view({8: 1, 7: -1})) == 11
    # 6 away with the 6-, 5- and 4-points blocked: the 11 sixes and 5-1 (through the 7- or
    # 3-point); 4-2, 3-3 and 2-2 land on a blocked point on the way.
    assert features.shots(_view({8: 1, 2: -1, 5: -2, 6: -2, 4: -2})) == 13
    # Two on the bar, a blot on the 22-point: the 11 threes enter on it; 1-1 enters both
    # and walks one checker on to it; 2-1 must enter both checkers and cannot.
    assert features.shots(_view({25: 2, 22: -1})) == 12


def test_double_shots_and_pip_loss() -> None:
    # A checker on our 24-point, opposing blots 3 and 9 pips away (on our 21- and 15-points).
    view = _view({24: 1, 21: -1, 15: -1})
    count, double, loss = features.attack(view)
    # The near blot: 11 rolls with a 3, 2-1 and 1-1 (14); the far one adds only 5-4 (2).
    assert count == features.shots(view) == 16
    assert double == 3  # 6-3 and 3-3 reach both
    assert loss == 14 * 21 + 2 * 15  # a hit costs the farther-travelled blot's pips


def test_version_one_nets_read_a_prefix() -> None:
    old = Network.random(8, seed=6, features=1)
    assert old.w1.shape[1] == 2 * SIDE_INPUTS and old.features_version == 1
    boards = movegen.generate(OPENING, 5, 2)[0]
    trimmed = np.zeros((old.w1.shape[0], INPUTS, 8))
    trimmed[:, : 2 * SIDE_INPUTS] = old.w1
    padded = Network(trimmed, old.b1, old.w2, old.b2)
    np.testing.assert_allclose(old.evaluate(boards), padded.evaluate(boards), atol=1e-12)


def test_escapes_behind_a_prime() -> None:
    assert features.escapes(_view({24: 1, 3: -2})) == 36  # nothing within 12 pips ahead
    # Behind a full prime (18-23 of the side's numbering) nothing escapes.
    assert features.escapes(_view({24: 1, 18: -2, 19: -2, 20: -2, 21: -2, 22: -2, 23: -2})) == 0
    # A 5-prime 19-23: only a 6 jumps it directly (24 -> 18), 11 rolls plus 6-6.
    blocked = _view({24: 1, 19: -2, 20: -2, 21: -2, 22: -2, 23: -2})
    assert features.escapes(blocked) == 11


def test_batch_forward_equals_single() -> None:
    net = Network.random(8, seed=3, scale=0.5)
    boards = movegen.generate(OPENING, 6, 4)[0]
    batch = net.evaluate(boards)
    single = np.concatenate([net.evaluate(b[None, :]) for b in boards])
    np.testing.assert_allclose(batch, single, rtol=0, atol=1e-12)


def test_probabilities_are_consistent() -> None:
    net = Network.random(8, seed=4, scale=3.0)  # large weights: raw outputs all over the place
    boards = movegen.generate(OPENING, 3, 3)[0]
    p = net.evaluate(boards)
    assert ((p >= 0) & (p <= 1)).all()
    assert (p[:, 1] <= p[:, 0]).all() and (p[:, 2] <= p[:, 1]).all()
    assert (p[:, 3] <= 1 - p[:, 0] + 1e-12).all() and (p[:, 4] <= p[:, 3]).all()


def test_weights_file_round_trip(tmp_path) -> None:
    net = Network.random(6, seed=5)
    net.meta = {"games": 12}
    path = tmp_path / "w.npz"
    net.save(path, dtype=np.float64)
    back = Network.load(path)
    for a, b in zip(net.arrays(), back.arrays()):
        np.testing.assert_array_equal(a, b)
    assert back.meta == {"games": 12}


def test_bad_weights_files_are_clear_errors(tmp_path) -> None:
    with pytest.raises(NetworkFileError, match="no such"):
        Network.load(tmp_path / "missing.npz")
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip at all")
    with pytest.raises(NetworkFileError, match="not a gammon weights file"):
        Network.load(junk)
    net = Network.random(4, seed=1)
    buffer = io.BytesIO()
    header = net.header()
    header["features_version"] = 0
    np.savez(buffer, meta=np.array(json.dumps(header)), w1=net.w1, b1=net.b1, w2=net.w2, b2=net.b2)
    buffer.seek(0)
    with pytest.raises(NetworkFileError, match="feature encoding"):
        Network.load(buffer)
    buffer = io.BytesIO()
    np.savez(buffer, meta=np.array(json.dumps(net.header())), w1=net.w1[:, :5], b1=net.b1, w2=net.w2, b2=net.b2)
    buffer.seek(0)
    with pytest.raises(NetworkFileError, match="shape"):
        Network.load(buffer)


def test_td_steps_learn_deterministically() -> None:
    start = Network.random(8, seed=2)
    runs = []
    for _ in range(2):
        w = [a.copy() for a in start.arrays()]
        turns = td.train_games(*w, 9, 0, 3, 0.1, 0.7)
        assert turns > 0
        runs.append(w)
    for a, b, _ in zip(runs[0], runs[1], start.arrays()):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(runs[0][0], start.w1)
    w = [a.copy() for a in start.arrays()]
    td.train_games(*w, 10, 0, 3, 0.1, 0.7)  # another seed: other dice, other weights
    assert not np.array_equal(w[0], runs[0][0])


def test_compiled_duel_matches_python_duel() -> None:
    # The learning curve's compiled duel makes the same choices as `gammon duel nn pubeval`.
    net = load_network()
    compiled = td.duel_pubeval(*net.arrays(), pubeval_block(), 4, 0, 3)
    a, b = Bot(NNEvaluator(net)), Bot(PubevalEvaluator())
    python = [p for k in range(3) for p in play_pair(a, b, 4, k)]
    assert compiled.tolist() == python


def test_shipped_net_plays_legal_plays() -> None:
    net = load_network()
    assert str(net.meta.get("trainer")).startswith("gammon train")
    player = load_player("nn")
    # Two whole games against itself on seeded dice: hits, the bar, blocked rolls and the bear-off
    # all come up, and every board it chooses is one the move generator lists for the roll.
    rng = np.random.default_rng(7)
    turns = 0
    for _ in range(2):
        board = OPENING.copy()
        while True:
            d1, d2 = (int(d) for d in rng.integers(1, 7, size=2))
            legal = movegen.generate(board, d1, d2)[0]
            after = player.choose_board(board, d1, d2)
            assert any((after == b).all() for b in legal), (board.tolist(), d1, d2)
            turns += 1
            if movegen.win_kind(after):
                break
            board = movegen.flip_board(after)
    assert turns > 60  # two real games, not a position or two
    play = player.choose_play(Position(), 3, 1)
    assert play.ubgi() == "8/5 6/5"  # making the 5-point: any decent net knows it

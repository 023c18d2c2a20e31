"""Nets by phase: the one classifier (net_of), evaluators never asked about finished or impossible
positions, and the phase data sets (gammon.train.phases) growing and training only their own net."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gammon import GameState, Position, movegen
from gammon.bots.evaluator import CONTACT, RACE
from gammon.cli import main
from gammon.nn.evaluator import default_weights_path
from gammon.nn.network import CONTACT_NET, CRASHED_NET, NETS, RACE_NET, Network, crashed, net_of
from gammon.players import HintError, hint, load_player
from gammon.train import phases


def after(position_id: str) -> np.ndarray:
    """The board of a position as an evaluator sees it: after the other side's play."""
    return movegen.flip_board(Position.from_position_id(position_id).array())


def test_the_classifier_names_each_phase() -> None:
    assert net_of(after("4HPwATDgc/ABMA")) == CONTACT_NET  # the opening
    assert net_of(after("SQAAACAIAAAAAA")) == RACE_NET  # two stragglers against three checkers home
    assert net_of(after("lwAAwDZBmwQQAA")) == CRASHED_NET  # five checkers left against one on the bar
    assert net_of(after("tm1AFDB+DwAAAA")) == CRASHED_NET  # a closed-out bear-off
    bearoff = np.zeros(26, np.int8)
    bearoff[[1, 2]], bearoff[[23, 24]] = 3, -3
    assert net_of(bearoff) == RACE_NET  # no contact (the tables answer where they cover)
    # Crashed is about a side's live checkers: piles on the ace and deuce points beyond two are dead.
    piled = np.zeros(26, np.int8)
    piled[1], piled[2], piled[8], piled[0], piled[19], piled[13] = 9, 2, 4, -1, -2, -12
    assert crashed(piled)  # 15 in play, 9 of the 11 on the ace and deuce points dead: 6 live
    piled[1], piled[9] = 8, 1  # one off the ace point: 8 dead, 7 live
    assert not crashed(piled) and net_of(piled) == CONTACT_NET


def test_drawn_positions_are_of_their_phase() -> None:
    rng = np.random.default_rng(4)
    for _ in range(200):
        race = phases.random_race(rng)
        assert movegen.board_class(race) == RACE and net_of(movegen.flip_board(race)) == RACE_NET
        assert race[race > 0].sum() <= 15 and -race[race < 0].sum() <= 15
        hit = phases.random_late_hit(rng)
        assert movegen.board_class(hit) == CONTACT and net_of(movegen.flip_board(hit)) == CRASHED_NET
        assert hit[hit > 0].sum() <= 15 and -hit[hit < 0].sum() <= 15
        lopsided = phases.random_gammonish(rng)
        assert movegen.board_class(lopsided) == RACE
        counts = sorted((lopsided[lopsided > 0].sum(), -lopsided[lopsided < 0].sum()))
        assert counts[1] == 15 and counts[0] <= 12  # one side has none off, the other three or more


def test_a_two_net_file_answers_crashed_positions_with_its_contact_net(tmp_path: Path) -> None:
    net = Network.random(6, seed=2)
    two = Network(net.w1[:2], net.b1[:2], net.w2[:2], net.b2[:2])
    path = tmp_path / "two.npz"
    np.savez(path, meta=np.array('{"format": "gammon-nn", "version": 1, "features_version": 3, "inputs": 228, '
                                 '"hidden": 6, "nets": 2, "meta": {}}'), **{k: getattr(two, k) for k in ("w1", "b1", "w2", "b2")})
    loaded = Network.load(path)
    assert loaded.w1.shape[0] == NETS
    np.testing.assert_array_equal(loaded.w1[CRASHED_NET], two.w1[CONTACT_NET])


@pytest.mark.parametrize("name", ["nn", "pubeval", "simple"])
def test_no_evaluator_answers_a_finished_or_impossible_position(name: str) -> None:
    evaluator = load_player(name).evaluator
    base = getattr(evaluator, "base", evaluator)
    asked: list[np.ndarray] = []
    inner = base._evaluate

    def spy(boards: np.ndarray) -> np.ndarray:
        asked.extend(boards)
        return inner(boards)

    base._evaluate = spy  # type: ignore[method-assign]
    won = np.zeros(26, np.int8)
    won[19], won[20] = -2, -13  # the mover has borne off all 15: a gammon
    off = np.zeros(26, np.int8)
    off[3], off[24], off[20], off[0] = 5, -1, -13, -1  # the mover has 10 off, the opponent one on the bar
    out = evaluator.evaluate_batch(np.array([won, off, movegen.flip_board(Position().array())]))
    assert not any(movegen.win_kind(b) or movegen.win_kind(movegen.flip_board(b)) for b in asked)
    assert out[0].tolist() == [1.0, 1.0, 0.0, 0.0, 0.0]  # exactly, never the evaluator's guess
    assert out[1, 3] == out[1, 4] == 0.0  # a side with checkers off cannot lose a gammon
    # A finished game has no plays to hint, for any player; the engine refuses it too.
    with pytest.raises(HintError):
        hint(Position.from_array(movegen.flip_board(won)), 3, 1, name)
    with pytest.raises(HintError):
        hint(GameState(position=Position.from_array(movegen.flip_board(won))), 3, 1, name)


def test_a_phase_data_set_grows_resumably_and_trains_only_its_net(tmp_path: Path) -> None:
    data = tmp_path / "race.npz"
    first = phases.build(data, "race", phases.CHUNK, trials=2, seed=3, progress=False)
    assert first["boards"].shape == (phases.CHUNK, 26) and first["targets"].shape == (phases.CHUNK, 5)
    assert all(net_of(b) == RACE_NET for b in first["boards"])
    assert ((first["targets"] >= 0) & (first["targets"] <= 1)).all() and (first["errors"] >= 0).all()
    again = phases.build(data, "race", phases.CHUNK, trials=2, seed=3, progress=False)  # nothing left to do
    np.testing.assert_array_equal(again["targets"], first["targets"])
    grown = phases.build(data, "race", 2 * phases.CHUNK, trials=2, seed=3, progress=False)
    assert grown["boards"].shape[0] == 2 * phases.CHUNK
    np.testing.assert_array_equal(grown["boards"][: phases.CHUNK], first["boards"])
    output = tmp_path / "fitted.npz"
    assert main(["train", "phase-fit", str(data), "--weights", str(default_weights_path()), "--output", str(output),
                 "--epochs", "1"]) == 0
    before, fitted = Network.load(default_weights_path()), Network.load(output)
    assert not np.array_equal(fitted.w1[RACE_NET], before.w1[RACE_NET])
    np.testing.assert_array_equal(fitted.w1[CONTACT_NET], before.w1[CONTACT_NET])
    np.testing.assert_array_equal(fitted.w1[CRASHED_NET], before.w1[CRASHED_NET])


def test_siblings_keep_how_the_net_ranked_plays_while_the_rollouts_set_the_level(tmp_path: Path) -> None:
    network = Network.load(default_weights_path())
    boards, values, starts = phases.siblings(network, {RACE_NET}, 60, seed=5)
    assert boards.shape[0] >= 60 and starts[0] == 0 and np.all(np.diff(starts) >= 2)
    assert all(net_of(b) == RACE_NET for b in boards)
    assert not any(phases.straggler(movegen.flip_board(b)) for b in boards)  # the data sets label those
    assert all(movegen.board_class(b) == RACE for b in boards)  # not a bear-off: the tables answer those
    np.testing.assert_allclose(values, network.evaluate(boards))
    # The targets keep each group's differences and take the group's level from the net now.
    np.testing.assert_allclose(phases.sibling_targets(values, values, starts), values)
    inside = (values > 0.02) & (values < 0.98)
    shifted = phases.sibling_targets(values, values + 0.01, starts)
    np.testing.assert_allclose(shifted[inside], values[inside] + 0.01)
    # Labels that move the level of some races a long way (their wins raised by 0.15), so that a fit to
    # them alone also moves how the net ranks sibling plays elsewhere.
    drawn = phases.positions(network, "race", 40, seed=3, chunk=0)
    lifted = np.array([movegen.flip_board(b) for b in drawn])
    targets = network.evaluate(lifted)
    targets[:, 0] = np.clip(targets[:, 0] + 0.15, 0, 1)
    data = tmp_path / "lifted.npz"
    np.savez(data, boards=lifted, targets=targets, errors=np.zeros(len(lifted)))
    alone, kept = tmp_path / "alone.npz", tmp_path / "kept.npz"
    phases.fit(default_weights_path(), [data], alone, epochs=20, alpha=0.1, progress=False)
    phases.fit(default_weights_path(), [data], kept, epochs=20, alpha=0.1, progress=False, sibling_boards=400)
    # The fit's own siblings (the same seed and count: the same groups).
    fitted, fitted_values, fitted_starts = phases.siblings(network, {RACE_NET}, 400, seed=1)

    def spread_change(path: Path) -> float:
        """How far the differences between the siblings of each group moved from the starting net's."""
        out = Network.load(path).evaluate(fitted)
        sizes = np.diff(np.append(fitted_starts, fitted.shape[0]))

        def centre(v: np.ndarray) -> np.ndarray:
            return v - np.repeat(np.add.reduceat(v, fitted_starts) / sizes[:, None], sizes, axis=0)

        return float(np.abs(centre(out) - centre(fitted_values)).mean())

    assert spread_change(kept) < spread_change(alone)
    assert Network.load(kept).meta["phases"][-1]["siblings"] == 400

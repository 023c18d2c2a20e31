"""Rollouts (gammon.rollout): quasi-random dice, luck adjustment, reproducibility on any number of
workers, the standard-error target, the rollout:N player, ``gammon rollout`` and UBGI's ``trials``."""

from __future__ import annotations

import argparse
import io
import json
import sys
from collections import Counter
from functools import partial

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gammon import GameState, Position
from gammon.bots import load_bearoff
from gammon.cli import main
from gammon.cli.rollout import _target
from gammon.cube import CubeContext
from gammon.cube.context import Owner
from gammon.engine_server import UbgiEngine
from gammon.errors import InvalidPlayerError
from gammon.players import hint, load_player, parse_player
from gammon.rollout import ORDERED_ROLLS, RolloutError, quasi_random_rolls, rollout
from gammon.rollout.run import consistent
from gammon.rollout.trial import Roller
from rollout_reference import ReferenceRoller

PUBEVAL = partial(load_player, "pubeval")
#: White on roll with four checkers left (two on its 6-point, two on its 5-point) against
#: black's three on black's 4-point: both have borne off, so no gammons; the tables cover it.
BEAROFF = np.zeros(26, np.int8)
BEAROFF[6], BEAROFF[5], BEAROFF[21] = 2, 2, -3


def test_quasi_random_dice_balance_first_and_second_rolls() -> None:
    """Every 36 trials open with each roll once and see each second roll once; 1,296 see each pair once."""
    for block in range(3):
        rolls = [quasi_random_rolls(36 * block + i) for i in range(36)]
        assert sorted(first for first, _ in rolls) == sorted(ORDERED_ROLLS)
        assert sorted(second for _, second in rolls) == sorted(ORDERED_ROLLS)
    pairs = Counter(quasi_random_rolls(k) for k in range(1296))
    assert len(pairs) == 1296 and set(pairs.values()) == {1}


def test_same_seed_same_result_on_one_or_two_workers() -> None:
    one = rollout(Position(), PUBEVAL, trials=80, seed=3, workers=1)
    two = rollout(Position(), PUBEVAL, trials=80, seed=3, workers=2)
    assert one.trials == two.trials == 80
    assert np.array_equal(one.samples, two.samples, equal_nan=True)
    other = rollout(Position(), PUBEVAL, trials=80, seed=4, workers=1)
    assert not np.array_equal(one.samples, other.samples, equal_nan=True)


def test_luck_adjustment_against_an_exact_evaluator_leaves_no_noise() -> None:
    """With the bear-off tables as evaluator, outcome less luck telescopes to the exact value in every trial."""
    tables = load_bearoff()
    assert tables is not None, "the bear-off tables ship with gammon"
    exact = np.asarray(tables.on_roll_batch(BEAROFF[None, :]))[0]
    simple = partial(load_player, "simple")
    cubeless = rollout(BEAROFF, simple, trials=36)  # stops at once: the tables cover the position
    assert cubeless.probabilities.win == pytest.approx(exact[0], abs=1e-12)
    assert cubeless.std_error["equity"] == pytest.approx(0.0, abs=1e-12)
    # Cubeful in the Crawford game (no cube: every play is the tables' best), so the trials are played out.
    crawford = CubeContext(away=(1, 5), crawford=True)
    played = rollout(BEAROFF, simple, trials=36, context=crawford)
    assert played.probabilities.win == pytest.approx(exact[0], abs=1e-4)  # the tables store rounded values
    assert played.std_error["probabilities"][0] < 1e-4
    raw = rollout(BEAROFF, simple, trials=36, context=crawford, variance_reduction=False)
    assert raw.std_error["probabilities"][0] > 0.01  # without it, the dice's noise is all there


def test_variance_reduction_keeps_the_estimate_and_cuts_the_error() -> None:
    adjusted = rollout(Position(), PUBEVAL, trials=144, seed=2, truncate=6)
    raw = rollout(Position(), PUBEVAL, trials=144, seed=2, truncate=6, variance_reduction=False)
    assert adjusted.std_error["probabilities"][0] < raw.std_error["probabilities"][0]
    assert abs(adjusted.probabilities.win - raw.probabilities.win) < 3 * raw.std_error["probabilities"][0]
    low, high = adjusted.ci95["equity"]
    assert low < adjusted.equity < high


def test_a_standard_error_target_stops_at_a_block_on_any_number_of_workers() -> None:
    one = rollout(Position(), PUBEVAL, trials=360, se=0.5, truncate=2, workers=1)
    two = rollout(Position(), PUBEVAL, trials=360, se=0.5, truncate=2, workers=2)
    assert one.trials == two.trials == 36
    assert np.array_equal(one.samples, two.samples, equal_nan=True)
    assert one.std_error["equity"] < 0.5


#: The last roll: white on roll with two checkers left, on its 3- and 1-points, against black's
#: one checker on black's ace point, off next turn whatever it rolls. White wins at once with 34
#: of the 36 rolls (not 2-1: 3/1 leaves one checker, since the 1 cannot bear off from the 3):
#: cubeless, 34/36 - 2/36 = 8/9. With the cube white doubles and black, at 1/18, passes: +1 a cube.
LAST_ROLL = np.zeros(26, np.int8)
LAST_ROLL[3], LAST_ROLL[1], LAST_ROLL[24] = 1, 1, -1


@pytest.mark.parametrize(("context", "cubeful"), [
    (CubeContext(), 1.0),  # money, cube centred: double, pass
    (CubeContext(cube=2, owner=Owner.OPPONENT), 8 / 9),  # black owns the cube: white plays on, per cube
    (CubeContext(away=(2, 2)), 1.0),  # 2-away/2-away: double, pass (1-away/2-away beats a 1/18 take)
    (CubeContext(away=(1, 1), crawford=True), 8 / 9),  # double match point: no cube, 2·(17/18) - 1
], ids=["money", "money, cube theirs", "2-away 2-away", "DMP"])
def test_cubeful_rollouts_find_the_known_value_of_a_last_roll(context: CubeContext, cubeful: float) -> None:
    # 36 trials open with each roll once, so the rollout's outcome is the exact average.
    result = rollout(LAST_ROLL, partial(load_player, "simple"), trials=36, context=context)
    assert result.probabilities.win == pytest.approx(34 / 36, abs=1e-4)
    assert result.equity == pytest.approx(8 / 9, abs=1e-4)  # cubeless, whatever the cube
    assert result.cubeful_equity == pytest.approx(cubeful, abs=1e-4)
    assert result.std_error["cubeful_equity"] == pytest.approx(0.0, abs=1e-4)


def test_cubeful_rollouts_are_asked_for() -> None:
    money = rollout(Position(), PUBEVAL, trials=36, cube=True, truncate=4)
    assert money.cubeful_equity is not None and money.std_error["cubeful_equity"] > 0
    money_state = GameState.parse("4HPwATDgc/ABMA:cAkAAAAAAAAA")  # a cube in the state, but no --cube
    assert rollout(money_state, PUBEVAL, trials=36, truncate=4).cubeful_equity is None


def test_bad_settings_are_refused_with_what_was_expected() -> None:
    with pytest.raises(RolloutError, match="at least 2 trials"):
        rollout(Position(), PUBEVAL, trials=1)
    with pytest.raises(RolloutError, match="before the roll"):
        rollout(GameState(dice=(3, 1)), PUBEVAL, trials=2)
    with pytest.raises(RolloutError, match="gammon's own players"):
        rollout(Position(), lambda: object(), trials=2)  # type: ignore[arg-type, return-value]


@pytest.mark.parametrize("name, context, truncate", [
    ("pubeval", None, None),
    ("pubeval", CubeContext(), None),
    ("pubeval", CubeContext(away=(3, 5)), 8),
    ("pubeval:advanced", CubeContext(beavers=True), 6),  # noise: the bot answers the trial's questions
    ("pubeval:1", CubeContext(jacoby=True), 2),
    ("simple", None, 10),
    ("nn", CubeContext(), 6),
])
def test_the_compiled_trial_plays_the_trials_of_the_python_loop_it_replaced(name: str, context: CubeContext | None,
                                                                            truncate: int | None) -> None:
    """Trial by trial, the samples of the per-turn Python loop the compiled trial replaced
    (tests/rollout_reference.py): the same dice, plays, cube actions, luck and truncation."""
    compiled = Roller(load_player(name), truncate).trials(Position().array(), context, 5, 0, 12)
    reference = ReferenceRoller(load_player(name), truncate).trials(Position().array(), context, 5, 0, 12)
    assert np.allclose(compiled, reference, rtol=0, atol=1e-9, equal_nan=True), np.abs(compiled - reference).max()
    assert np.isnan(compiled[:, 6]).all() == (context is None)


def test_rollouts_need_an_evaluator_with_a_compiled_form() -> None:
    with pytest.raises(RolloutError, match="compiled form"):
        rollout(Position(), partial(load_player, "random"), trials=2)


def test_clamped_probabilities_stay_consistent() -> None:
    p = consistent([1.02, 0.3, 0.4, 0.1, -0.01])
    assert (p.win, p.win_gammon, p.win_backgammon, p.lose_gammon, p.lose_backgammon) == (1.0, 0.3, 0.3, 0.0, 0.0)


# -- the player ---------------------------------------------------------------------------------------
def test_rollout_player_ranks_rolled_out_candidates_first() -> None:
    hints = hint(Position(), 3, 1, "rollout:8:pubeval")
    assert len(hints) == len(Position().legal_plays(3, 1))
    assert [h.rank for h in hints] == list(range(1, len(hints) + 1))
    assert hints[0].loss == 0.0 and all(h.loss >= 0 for h in hints[:8])
    assert load_player("rollout:8:pubeval").name == "rollout:8:pubeval"


@given(st.text(max_size=30))
@settings(max_examples=200, deadline=None)
def test_rollout_player_names_parse_or_say_what_was_expected(tail: str) -> None:
    text = "rollout:" + tail
    try:
        spec = parse_player(text)
    except InvalidPlayerError as error:
        assert "rollout" in str(error)
        return
    assert spec.name == "rollout" and spec.trials >= 2
    assert parse_player(str(spec)) == spec


# -- the command and the engine ----------------------------------------------------------------------
@given(st.text(max_size=12))
@settings(max_examples=200, deadline=None)
def test_se_target_parses_positive_numbers_or_says_what_was_expected(text: str) -> None:
    try:
        value = _target(text)
    except argparse.ArgumentTypeError as error:
        assert "expected a standard error > 0" in str(error)
        return
    assert value > 0 and value == float(text)


def test_cli_json_has_exactly_the_promised_keys(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rollout", "4HPwATDgc/ABMA", "--player", "pubeval", "--trials", "36", "--truncate", "3",
                 "--workers", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"trials", "probabilities", "equity", "cubeful_equity", "std_error"}
    assert out["trials"] == 36 and len(out["probabilities"]) == 5 and out["cubeful_equity"] is None
    assert set(out["std_error"]) == {"probabilities", "equity", "cubeful_equity"}


def test_cli_refuses_engines_and_a_missing_ray(capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    assert main(["rollout", "4HPwATDgc/ABMA", "--player", "gnubg:0"]) == 1
    assert "gammon's own players" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    assert main(["rollout", "4HPwATDgc/ABMA", "--player", "pubeval", "--ray", "auto"]) == 1
    err = capsys.readouterr().err
    assert "pip install gammon[ray]" in err and "Traceback" not in err


def test_ubgi_go_trials_answers_from_rollouts() -> None:
    out = io.StringIO()
    engine = UbgiEngine("pubeval", 0, out)
    engine.run(iter(f"{line}\n" for line in [
        "setoption name EvalMode value cubeless", "position gnubgid 4HPwATDgc/ABMA", "dice 3 1",
        "go role chequer trials 4", "dice 3 1", "go role chequer nodes 16"]))
    lines = out.getvalue().splitlines()
    best = [line for line in lines if line.startswith("bestmove")]
    infos = [line for line in lines if line.startswith("info role chequer")]
    assert len(best) == 2 and all(b.split(" ", 1)[1] in Position().legal_plays(3, 1) for b in best)
    assert len(infos) == 4  # the 0-ply choice, then the rollouts' for each go


def test_sides_seat_other_players_and_a_bot_in_both_seats_changes_nothing() -> None:
    """``sides`` seats a player per side; the bot in both seats is the plain rollout, asked its plays."""
    board = Position().array()
    plain = Roller(load_player("pubeval"), 6).trials(board, None, 2, 0, 8)
    bot = load_player("pubeval")
    seated = Roller(bot, 6, sides=(bot, bot)).trials(board, None, 2, 0, 8)
    np.testing.assert_allclose(seated, plain, atol=1e-12)
    other = Roller(load_player("pubeval"), 6, sides=(bot, load_player("random"))).trials(board, None, 2, 0, 8)
    assert not np.allclose(other, plain)  # a random opponent plays otherwise

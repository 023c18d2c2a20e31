"""Match equity tables: the published Kazaross-XG2 table, lookups, equity <-> MWC, and the
table gammon constructs from first principles next to it."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gammon.cube.construct import FREE_DROP_2AWAY, compare, construct_met, post_crawford_row
from gammon.cube.met import MAX_AWAY, MatchEquityError, MatchEquityTable, equity_to_mwc, mwc_to_equity


@pytest.fixture(scope="module")
def kazaross() -> MatchEquityTable:
    return MatchEquityTable.default()


@pytest.fixture(scope="module")
def ours() -> MatchEquityTable:
    return construct_met()


# -- the published table ----------------------------------------------------------------------


def test_kazaross_published_values(kazaross: MatchEquityTable) -> None:
    assert kazaross.mwc(1, 2) == 0.67736  # the Crawford game, 1-away vs 2-away
    assert kazaross.mwc(2, 1) == pytest.approx(0.32264)
    assert kazaross.mwc(2, 4) == 0.6687
    assert kazaross.mwc(7, 7) == 0.5
    assert kazaross.pre.shape == (MAX_AWAY, MAX_AWAY) and kazaross.post.shape == (MAX_AWAY,)
    assert "Kazaross" in kazaross.notice


def test_kazaross_is_symmetric(kazaross: MatchEquityTable) -> None:
    # The shipped table stores both halves and they agree to the last digit.
    assert np.abs(kazaross.pre + kazaross.pre.T - 1.0).max() < 1e-12


def test_kazaross_is_monotone(kazaross: MatchEquityTable) -> None:
    assert (np.diff(kazaross.pre, axis=0) < 0).all()
    assert (np.diff(kazaross.pre, axis=1) > 0).all()
    assert (np.diff(kazaross.post) <= 0).all()


def test_won_and_lost_scores() -> None:
    met = MatchEquityTable.default()
    for other in (1, 5, 25, 30):
        assert met.mwc(0, other) == 1.0
        assert met.mwc(-3, other) == 1.0
        assert met.mwc(other, 0) == 0.0
    assert met.mwc(1, 1) == met.mwc(1, 1, post_crawford=True) == 0.5


def test_post_crawford_lookups(kazaross: MatchEquityTable) -> None:
    assert kazaross.mwc(2, 1, post_crawford=True) == pytest.approx(0.48803)  # the free drop
    assert kazaross.mwc(1, 2, post_crawford=True) == pytest.approx(1 - 0.48803)
    assert kazaross.mwc(5, 1, post_crawford=True) == kazaross.post[4]
    # Pre-Crawford lookups of a 1-away side are the Crawford game, which is different.
    assert kazaross.mwc(2, 1) != kazaross.mwc(2, 1, post_crawford=True)
    after = kazaross.after_game(crawford_played=True)
    assert after[0, 3] == 1.0 and after[3, 0] == 0.0
    assert after[4, 1] == kazaross.post[3]


def test_score_beyond_the_table(kazaross: MatchEquityTable) -> None:
    with pytest.raises(MatchEquityError, match="26-away"):
        kazaross.mwc(26, 3)


def test_json_round_trip(kazaross: MatchEquityTable) -> None:
    again = MatchEquityTable.from_json(kazaross.to_json())
    assert again.name == kazaross.name and again.notice == kazaross.notice
    np.testing.assert_allclose(again.pre, kazaross.pre, atol=1e-6)
    np.testing.assert_allclose(again.post, kazaross.post, atol=1e-6)


def _layout(pre: object, post: object) -> str:
    return json.dumps({"pre_crawford": {"table": pre}, "post_crawford": {"table": {"both": post}}})


@pytest.mark.parametrize("text", [
    "not json",
    "[]",
    json.dumps({"pre_crawford": {"table": [[0.5]]}}),  # no post-Crawford row
    _layout([[0.5] * 25] * 25, [0.5] * 3),  # short post-Crawford row
    _layout([[0.5] * 24] * 25, [0.5] * 25),  # not square
    _layout([[1.5] * 25] * 25, [0.5] * 25),  # not a probability
])
def test_bad_json_raises(text: str) -> None:
    with pytest.raises(MatchEquityError):
        MatchEquityTable.from_json(text)


def test_equity_mwc_endpoints() -> None:
    win, lose = 0.8, 0.3
    assert mwc_to_equity(win, win, lose) == pytest.approx(1.0)
    assert mwc_to_equity(lose, win, lose) == pytest.approx(-1.0)
    assert equity_to_mwc(0.0, win, lose) == pytest.approx(0.55)
    np.testing.assert_allclose(equity_to_mwc(mwc_to_equity(np.array([0.1, 0.5, 0.9]), win, lose), win, lose),
                               [0.1, 0.5, 0.9])


_unit = st.floats(0.0, 1.0, allow_nan=False)


@given(_unit, _unit, _unit)
def test_equity_mwc_round_trip(mwc: float, a: float, b: float) -> None:
    win, lose = max(a, b), min(a, b)
    if win - lose < 1e-6:
        return  # no cube value to scale by
    equity = mwc_to_equity(mwc, win, lose)
    assert equity_to_mwc(equity, win, lose) == pytest.approx(mwc, abs=1e-9)
    # More MWC is more equity, and the midpoint of cashing and being cashed is zero.
    assert mwc_to_equity(min(mwc + 0.01, 1.0), win, lose) >= equity
    assert mwc_to_equity((win + lose) / 2, win, lose) == pytest.approx(0.0, abs=1e-9)


# -- the constructed table ---------------------------------------------------------------------


def test_constructed_is_symmetric_and_in_range(ours: MatchEquityTable) -> None:
    assert np.abs(ours.pre + ours.pre.T - 1.0).max() < 1e-12
    assert np.diag(ours.pre) == pytest.approx(0.5)
    assert ((ours.pre >= 0) & (ours.pre <= 1)).all() and ((ours.post >= 0) & (ours.post <= 1)).all()


def test_constructed_is_monotone(ours: MatchEquityTable) -> None:
    # Needing more points is worse; the opponent needing more is better.
    assert (np.diff(ours.pre, axis=0) < 0).all()
    assert (np.diff(ours.pre, axis=1) > 0).all()
    assert (np.diff(ours.post) <= 0).all()
    assert ours.post[0] == 0.5


def test_constructed_crawford_row(ours: MatchEquityTable) -> None:
    assert 0.6 < ours.mwc(1, 2) < 0.75
    # 1-away vs 2-away, Crawford: I win any game; if I lose a single game it is DMP.
    g = 0.29
    assert ours.mwc(1, 2) == pytest.approx(0.5 + 0.5 * (1 - g) * 0.5)
    assert ours.mwc(1, 25) > 0.99


def test_post_crawford_free_drop() -> None:
    g, bg = 0.29, 0.29 * 0.01 / 0.27
    row = post_crawford_row(g, bg, FREE_DROP_2AWAY)
    # At 2-away the leader's free drop is worth exactly the parameter in the normal model ...
    assert row[1] == pytest.approx(0.5 - FREE_DROP_2AWAY)
    # ... and less at 4-away; without it the recursion is P(n) = p * [(1-g) P(n-2) + ...].
    plain = post_crawford_row(g, bg, 0.0)
    assert plain[1] == 0.5
    assert plain[2] == pytest.approx(0.5 * ((1 - g) * 0.5 + g))
    assert plain[3] == pytest.approx(0.5 * ((1 - g) * 0.5 + g))
    assert 0 < plain[3] - row[3] < FREE_DROP_2AWAY
    assert abs(plain[2] - row[2]) < 1e-6  # at odd scores dropping gives too much away


def test_constructed_close_to_kazaross(ours: MatchEquityTable, kazaross: MatchEquityTable) -> None:
    # Measured with the defaults: mean 0.17% (0.27% to 11-away), max 1.35% (2-away vs 4-away),
    # post-Crawford max 0.25%.
    figures = compare(ours, kazaross)
    assert figures["pre_mean"] < 0.005
    assert figures["pre11_mean"] < 0.006
    assert figures["pre_max"] < 0.025
    assert figures["post_max"] < 0.006
    assert abs(ours.mwc(1, 2) - kazaross.mwc(1, 2)) < 0.002


def test_constructed_round_trips_through_json(ours: MatchEquityTable) -> None:
    again = MatchEquityTable.from_json(ours.to_json())
    np.testing.assert_allclose(again.pre, ours.pre, atol=1e-6)
    assert "gammon rate 0.27" in again.notice


def test_more_gammons_help_the_trailer() -> None:
    # Gammons make a short lead less safe: the leader's MWC at 2-away vs 5-away falls.
    assert construct_met(gammon_rate=0.3).mwc(2, 5) < construct_met(gammon_rate=0.2).mwc(2, 5)


@pytest.mark.parametrize("bad", [
    {"gammon_rate": 1.5}, {"backgammon_rate": 0.5}, {"efficiency": -0.1}, {"free_drop": -0.01},
])
def test_construct_rejects_impossible_parameters(bad: dict[str, float]) -> None:
    with pytest.raises(MatchEquityError, match=next(iter(bad))):
        construct_met(**bad)

"""The referee: each rule above the board on its own, and Match, duels and cube contexts agreeing through it."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gammon.cube.context import CubeContext, Owner
from gammon.dice import DiceSource, DiceStream, FixedDice, ci95
from gammon.dice import streams
from gammon.duel import match_context
from gammon.errors import IllegalActionError
from gammon.match import GameResult, Match
from gammon.position import Color
from gammon.referee import (
    CubeState,
    MatchScore,
    WinKind,
    beaver_refusal,
    double_refusal,
    dropped_points,
    opening_roll,
    opening_winner,
    points_won,
    within_limit,
)
from gammon.state import GameState, GameStatus, Resignation


# -- the opening roll and the dice ---------------------------------------------------------------
def test_opening_roll_rerolls_ties_first_side_first() -> None:
    dice = FixedDice([(4, 4), (2, 2), (3, 5), (6, 1)])
    assert opening_roll(dice) == (3, 5)
    assert opening_roll(dice) == (6, 1)


def test_the_higher_opening_die_wins_and_a_recorded_opening_says_so() -> None:
    assert (opening_winner(5, 2), opening_winner(2, 5), opening_winner(4, 4)) == (0, 1, None)
    with pytest.raises(IllegalActionError, match="two different dice"):
        Match(3).roll(dice=(4, 4))
    for line in ("black opening 5-5", "white opening 1-6"):  # a tie, or the loser's die first
        with pytest.raises(IllegalActionError, match="opening"):
            Match.replay([line], GameState(match_length=3, status=GameStatus.NONE))


def test_a_dice_stream_is_a_dice_source_read_one_die_at_a_time() -> None:
    dice = DiceStream(3, 9)
    assert isinstance(dice, DiceSource)
    again = DiceStream(3, 9)
    first = again.roll()
    assert (dice.roll_one(), dice.roll_one()) == first
    second, third = again.roll(), again.roll()
    assert dice.roll_one() == second[0]
    assert dice.roll() == (second[1], third[0])  # the spare die is read first
    with pytest.raises(ValueError):
        DiceStream(-1, 0)


@pytest.mark.parametrize("seed", range(40))
def test_the_opening_roll_of_a_stream_is_the_compiled_loops_one(seed: int) -> None:
    # Python games (Match, duels) and compiled loops (self-play, training) open alike on one stream.
    state = streams.stream_state(seed, 5)
    compiled = streams.opening_roll(state)
    dice = DiceStream(seed, 5)
    assert opening_roll(dice) == tuple(int(d) for d in compiled)
    assert dice.roll() == tuple(int(d) for d in streams.next_roll(state))


def test_ci95_is_over_pair_means() -> None:
    assert ci95(np.array([1, -1])) == (-np.inf, np.inf)  # one pair: no interval
    low, high = ci95(np.array([2, 0, 2, 0, 1, 1]))  # every pair's mean is 1: no spread
    assert low == high == 1.0
    low, high = ci95(np.array([3, -1, 1, 1, -1, -1, 2, 2]))
    assert low < 0.75 < high


# -- the cube -------------------------------------------------------------------------------------
def test_cube_transitions() -> None:
    cube = CubeState()
    assert cube.centred and cube.value == 1
    taken = cube.after_take(Color.BLACK)
    assert taken == CubeState(2, Color.BLACK) and not taken.centred
    assert taken.after_take(Color.WHITE) == CubeState(4, Color.WHITE)
    assert taken.after_beaver(Color.WHITE) == CubeState(8, Color.WHITE)  # the beaverer keeps it


@pytest.mark.parametrize(
    "cube, side, rules, refusal",
    [
        (CubeState(), 0, {}, None),
        (CubeState(), 0, {"length": 1}, "1-point match"),
        (CubeState(), 1, {"length": 5, "crawford_game": True}, "Crawford"),
        (CubeState(2, 1), 0, {}, "owns the cube"),
        (CubeState(2, 1), 1, {}, None),  # the owner redoubles
        (CubeState(2, 1), None, {}, None),  # a side with access
        (CubeState(4, 0), 0, {"cube_limit": 8}, None),
        (CubeState(8, 0), 0, {"cube_limit": 8}, "limit of 8"),
    ],
)
def test_who_may_double(cube: CubeState, side: int | None, rules: dict, refusal: str | None) -> None:
    answer = double_refusal(cube, side, **rules)
    assert answer is None if refusal is None else refusal in answer


def test_beavers_and_the_cube_limit() -> None:
    assert "option is off" in beaver_refusal(CubeState(), beavers=False)
    assert beaver_refusal(CubeState(2, 0), beavers=True) is None
    assert beaver_refusal(CubeState(2, 0), beavers=True, cube_limit=8) is None
    assert "limit of 4" in beaver_refusal(CubeState(2, 0), beavers=True, cube_limit=4)
    assert within_limit(64, None) and within_limit(4, 4) and not within_limit(8, 4)
    # No notation carries a cube past 32768: it stops there, limit or not.
    assert within_limit(32768, None) and not within_limit(65536, None)
    assert "limit of 32768" in double_refusal(CubeState(32768, 0), 0)
    assert "limit of 32768" in beaver_refusal(CubeState(16384, 0), beavers=True)


# -- scoring --------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", list(WinKind))
@pytest.mark.parametrize("cube", [CubeState(), CubeState(2, 0), CubeState(8, 1)])
def test_points_are_the_kind_times_the_cube(kind: WinKind, cube: CubeState) -> None:
    assert points_won(kind, cube) == int(kind) * cube.value
    assert points_won(Resignation(int(kind)), cube) == int(kind) * cube.value  # a resignation's stake alike
    assert dropped_points(cube) == cube.value


def test_jacoby_counts_gammons_only_once_the_cube_is_turned() -> None:
    assert points_won(WinKind.BACKGAMMON, CubeState(), jacoby=True) == 1
    assert points_won(WinKind.GAMMON, CubeState(2, 0), jacoby=True) == 4
    assert points_won(WinKind.GAMMON, CubeState(), jacoby=False) == 2


# -- the match ------------------------------------------------------------------------------------
def test_crawford_game_then_post_crawford() -> None:
    score = MatchScore(5)
    assert not score.crawford and not score.post_crawford and score.cube_in_play and score.winner is None
    score = score.after_game(1, 2).after_game(1, 2)  # 0-4: side 1 is 1-away
    assert score.crawford and not score.post_crawford and not score.cube_in_play
    assert (score.away(0), score.away(1)) == (5, 1)
    score = score.after_game(0, 1)  # the Crawford game is over
    assert score.crawford_played and not score.crawford and score.post_crawford and score.cube_in_play
    score = score.after_game(0, 3)  # 4-4: still post-Crawford, never a second Crawford game
    assert score.post_crawford and not score.crawford
    assert score.after_game(1, 1).winner == 1


def test_crawford_needs_the_rule_and_a_match_of_two_points_or_more() -> None:
    assert not MatchScore(5, (4, 0), crawford_rule=False).crawford
    assert MatchScore(5, (4, 0), crawford_rule=False).post_crawford
    one_point = MatchScore(1)
    assert not one_point.crawford and not one_point.post_crawford and not one_point.cube_in_play
    assert not one_point.after_game(0, 1).crawford_played and one_point.after_game(0, 1).winner == 0


def test_money_play_never_ends() -> None:
    score = MatchScore(0).after_game(0, 64).after_game(1, 3)
    assert score.score == (64, 3) and score.winner is None and score.cube_in_play and score.away(0) == 0
    assert score.swapped().score == (3, 64)


@given(st.integers(2, 25), st.lists(st.tuples(st.integers(0, 1), st.sampled_from([1, 2, 3, 4, 6, 8])), max_size=60))
def test_the_crawford_game_is_the_first_game_with_a_side_one_away(length: int, games: list[tuple[int, int]]) -> None:
    score = MatchScore(length)
    seen_one_away = False
    crawford_games = 0
    for winner, points in games:
        if score.winner is not None:
            break
        one_away = length - 1 in score.score
        assert score.crawford == (one_away and not seen_one_away)
        assert score.post_crawford == (one_away and seen_one_away)
        crawford_games += score.crawford
        seen_one_away = seen_one_away or one_away
        score = score.after_game(winner, points)
    assert crawford_games <= 1


# -- cube contexts ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "state",
    [
        GameState(match_length=5, score=(4, 2), crawford=True),
        GameState(match_length=5, score=(2, 4)),  # post-Crawford
        GameState(match_length=5, score=(1, 2), cube=2, cube_owner=Color.WHITE),
        GameState(match_length=1),
        GameState(match_length=7),
    ],
)
def test_a_cube_context_from_a_state_is_the_one_for_its_score(state: GameState) -> None:
    me = state.position.turn
    score = MatchScore(state.match_length, (state.score[me], state.score[me.other]), state.post_crawford)
    owner = Owner.CENTRED if state.cube_owner is None else (Owner.ME if state.cube_owner == me else Owner.OPPONENT)
    context = CubeContext.from_state(state)
    assert context == CubeContext.for_match(score, state.cube, owner)
    assert context.crawford == (state.crawford or state.match_length == 1)  # no cube in either
    assert context.post_crawford == state.post_crawford


# -- Match and the duels agree --------------------------------------------------------------------
def _play_out(match: Match, rng: random.Random) -> list[GameState]:
    """Random actions until the match is won (money: three games); each game's state before its opening roll."""
    starts = []
    while not match.is_over and not (match.length == 0 and len(match.results) == 3):
        state = match.state
        if match.game_over:
            match.new_game()
        elif state.status == GameStatus.NONE:
            starts.append(state)
            match.roll()
        elif state.double_offered:
            beaver = beaver_refusal(CubeState(state.cube), beavers=state.beavers, cube_limit=state.cube_limit) is None
            rng.choice([match.take, match.drop, *([match.beaver] if beaver else [])])()
        elif state.resignation is not None:
            rng.choice([match.accept, match.reject])()
        elif state.dice is None:
            chance = rng.random()
            if chance < 0.05:
                match.resign(rng.choice(list(Resignation)))
            elif chance < 0.3 and match.can_double():
                match.double()
            else:
                match.roll()
        else:
            match.play(rng.choice(list(match.legal_plays)))
    return starts


def _duel_points(result: GameResult, jacoby: bool) -> int:
    """A game's points as a duel counts them: from how it ended, its win kind and the cube."""
    if result.dropped:
        return dropped_points(CubeState(result.cube))
    # In every game played, a cube above 1 has been turned (taken or beavered).
    cube = CubeState(result.cube, None if result.cube == 1 else result.winner)
    return points_won(result.kind, cube, jacoby)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), length=st.sampled_from([1, 2, 3, 5, 7]), crawford=st.booleans())
def test_a_match_scores_as_a_duel_scores_it(seed: int, length: int, crawford: bool) -> None:
    match = Match(length, dice=DiceStream(seed % 1000, seed // 1000), crawford=crawford)
    starts = _play_out(match, random.Random(seed))
    score = MatchScore(length, crawford_rule=crawford)  # Color values are the referee's sides
    assert len(starts) == len(match.results)
    for state, result in zip(starts, match.results):
        assert (score.score, score.crawford, score.post_crawford) == (state.score, state.crawford, state.post_crawford)
        if crawford:  # the duels' context (for side 0) is the one the match's state gives
            duel = match_context(length, score.score, score.crawford_played)
            assert CubeContext.from_state(state) == (duel if state.position.turn == 0 else duel.flip())
        points = _duel_points(result, jacoby=False)
        assert points == result.points
        score = score.after_game(result.winner, points)
    assert score.score == match.score and score.winner == match.winner and score.winner is not None


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# Cube limits keep three games' points within a GameState's score (at most 32767).
@given(seed=st.integers(0, 2**32 - 1), jacoby=st.booleans(), beavers=st.booleans(), limit=st.sampled_from([4, 64, 1024]))
def test_money_games_score_as_a_duel_scores_them(seed: int, jacoby: bool, beavers: bool, limit: int) -> None:
    match = Match(0, dice=DiceStream(seed % 1000, seed // 1000), jacoby=jacoby, beavers=beavers, cube_limit=limit)
    _play_out(match, random.Random(seed))
    score = MatchScore(0)
    for result in match.results:
        assert within_limit(result.cube, limit)
        points = _duel_points(result, jacoby)
        assert points == result.points
        score = score.after_game(result.winner, points)
    assert score.score == match.score

"""Games and matches: opening roll, cube, Crawford, money rules, resignations, entry and scoring."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gammon.dice import FixedDice, SeededDice
from gammon.errors import (
    AmbiguousPlayError,
    CubeActionError,
    IllegalActionError,
    IllegalPlayError,
    InvalidMoveError,
    NotYourTurnError,
)
from gammon.match import Action, ActionKind, GameResult, Match, WinKind
from gammon.play import Move, Play
from gammon.position import CHECKERS, Color, Position
from gammon.state import GameState, GameStatus, Resignation

WHITE, BLACK = Color.WHITE, Color.BLACK


def opened(length: int = 5, rolls: list = [], **rules: object) -> Match:  # noqa: B006
    """A match whose first game white has opened with 3-1, played 8/5 6/5; black on roll."""
    match = Match(length, dice=FixedDice([(3, 1), *rolls]), **rules)  # type: ignore[arg-type]
    match.roll()
    match.play("8/5 6/5")
    return match


def snapshot(match: Match) -> tuple:
    return match.state, match.history, match.pending_moves, match.score, tuple(match.results)


def counts(points: dict[int, int], bar: int = 0) -> list[int]:
    """25 checker counts (points 1-24, bar) from {point: count}."""
    result = [0] * 25
    for point, count in points.items():
        result[point - 1] = count
    result[24] = bar
    return result


def bearing_off_win(black: dict[int, int], black_bar: int = 0, **state: object) -> Match:
    """White on roll with its last checker on the 1-point; black's checkers in its own numbering."""
    position = Position.from_checkers(counts({1: 1}), counts(black, black_bar), WHITE)
    return Match.from_state(GameState(position=position, **state))  # type: ignore[arg-type]


# -- the opening roll -------------------------------------------------------------------------
def test_opening_roll_rerolls_ties_and_higher_die_plays_both() -> None:
    match = Match(3, dice=FixedDice([(4, 4), (6, 6), (2, 5)]))
    assert match.to_act is None and match.state.status == GameStatus.NONE
    assert match.roll() == (5, 2)
    state = match.state
    assert state.position.turn == BLACK and state.dice == (5, 2) and state.status == GameStatus.PLAYING
    assert match.history == (Action(ActionKind.OPENING_ROLL, BLACK, dice=(5, 2)),)
    assert str(match.history[0]) == "black opening 5-2"
    assert len(match.legal_plays) > 1


def test_opening_winner_cannot_double_or_reroll() -> None:
    match = Match(5, dice=FixedDice([(6, 1)]))
    match.roll()
    before = snapshot(match)
    with pytest.raises(CubeActionError, match="after rolling"):
        match.double()
    with pytest.raises(IllegalActionError, match="already rolled"):
        match.roll()
    assert snapshot(match) == before


# -- the cube --------------------------------------------------------------------------------
def test_take_then_redouble_and_drop_scores_cube_before_the_double() -> None:
    match = opened(5, [(6, 5)])
    match.double(BLACK)
    assert match.state.double_offered and match.to_act == WHITE
    match.take(WHITE)
    assert (match.state.cube, match.state.cube_owner, match.to_act) == (2, WHITE, BLACK)
    with pytest.raises(CubeActionError, match="owns the cube"):
        match.double(BLACK)
    match.roll(BLACK)
    match.play("24/18 18/13")
    match.double(WHITE)
    result = match.drop(BLACK)
    assert result == GameResult(WHITE, 2, WinKind.SINGLE, 2, GameStatus.DROPPED)
    assert result.dropped and match.score == (0, 2) and match.state.status == GameStatus.DROPPED
    assert match.game_over and not match.is_over


def test_first_drop_scores_one() -> None:
    match = opened(3)
    match.double()
    assert match.drop() == GameResult(BLACK, 1, WinKind.SINGLE, 1, GameStatus.DROPPED)
    assert match.score[BLACK] == 1


def test_no_cube_in_one_point_match() -> None:
    match = opened(1)
    assert not match.can_double()
    with pytest.raises(CubeActionError, match="1-point match"):
        match.double()


def test_cube_limit() -> None:
    match = opened(0, [(6, 5)], cube_limit=2)
    match.double()
    match.take()
    assert not match.can_double(BLACK) and not match.can_double(WHITE)
    match.roll()
    match.play(match.legal_plays[0])
    with pytest.raises(CubeActionError, match="limit"):
        match.double(WHITE)


# -- Crawford ----------------------------------------------------------------------------------
def test_crawford_game_then_post_crawford() -> None:
    match = opened(2, [(2, 5)])
    match.double()
    match.drop()  # black 1, one point from winning 2
    match.new_game()
    state = match.state
    assert state.crawford and not state.post_crawford and state.status == GameStatus.NONE
    match.roll()  # black opens with 5-2
    match.play(match.legal_plays[0])
    before = snapshot(match)
    assert not match.can_double(WHITE)
    with pytest.raises(CubeActionError, match="Crawford"):
        match.double(WHITE)
    assert snapshot(match) == before
    match.resign(Resignation.SINGLE, WHITE)
    match.reject(BLACK)
    match.resign(Resignation.SINGLE, WHITE)
    assert match.accept(BLACK).points == 1
    assert match.is_over and match.winner == BLACK
    with pytest.raises(IllegalActionError, match="match is over"):
        match.new_game()


def test_post_crawford_doubling_allowed() -> None:
    match = opened(2, [(2, 5), (4, 1)])
    match.double()
    match.drop()
    match.new_game()
    match.roll()  # black opens: the Crawford game
    match.resign(Resignation.SINGLE, BLACK)
    match.accept(WHITE)  # 1-1
    match.new_game()
    state = match.state
    assert not state.crawford and state.post_crawford
    match.roll()  # white opens with 4-1
    match.play(match.legal_plays[0])
    assert match.can_double(BLACK)
    match.double(BLACK)
    match.take(WHITE)
    assert match.state.cube == 2


def test_crawford_rule_can_be_switched_off() -> None:
    match = Match(2, dice=FixedDice([(3, 1), (5, 2)]), crawford=False)
    match.roll()
    match.play("8/5 6/5")
    match.double()
    match.drop()
    match.new_game()
    assert not match.state.crawford


# -- winning and money rules -------------------------------------------------------------------
@pytest.mark.parametrize(
    "black, bar, kind",
    [
        ({6: 14}, 0, WinKind.SINGLE),  # black has borne off one checker
        ({6: 15}, 0, WinKind.GAMMON),
        ({6: 14, 20: 1}, 0, WinKind.BACKGAMMON),  # a checker in white's home board
        ({6: 14}, 1, WinKind.BACKGAMMON),  # a checker on the bar
    ],
)
def test_win_kinds(black: dict[int, int], bar: int, kind: WinKind) -> None:
    match = bearing_off_win(black, bar, match_length=0)
    match.roll(dice=(2, 1))
    match.play("1/off")
    assert match.result == GameResult(WHITE, int(kind), kind, 1)
    assert match.score == (0, int(kind))


def test_jacoby_counts_gammons_only_after_the_cube_is_turned() -> None:
    match = bearing_off_win({6: 15}, 0, jacoby=True)
    match.roll(dice=(2, 1))
    match.play("1/off")
    assert match.result == GameResult(WHITE, 1, WinKind.GAMMON, 1)
    turned = bearing_off_win({6: 15}, 0, jacoby=True, cube=2, cube_owner=WHITE)
    turned.roll(dice=(2, 1))
    turned.play("1/off")
    assert turned.result == GameResult(WHITE, 4, WinKind.GAMMON, 2)


def test_gammons_count_in_match_play() -> None:
    match = bearing_off_win({6: 15}, 0, match_length=3, score=(0, 1))
    match.roll(dice=(6, 6))
    match.play("1/off")
    assert match.is_over and match.winner == WHITE and match.score == (0, 3)
    assert match.state.status == GameStatus.OVER


def test_beaver_redoubles_and_keeps_the_cube() -> None:
    match = opened(0, [(6, 5)], beavers=True)
    match.double(BLACK)
    match.beaver(WHITE)
    state = match.state
    assert (state.cube, state.cube_owner, match.to_act) == (4, WHITE, BLACK)
    assert match.history[-1] == Action(ActionKind.BEAVER, WHITE)
    match.roll(BLACK)  # the doubler plays on
    assert not match.can_double(BLACK) and match.state.dice == (6, 5)


def test_beaver_needs_the_option() -> None:
    match = opened(0)
    match.double()
    before = snapshot(match)
    with pytest.raises(CubeActionError, match="beavers"):
        match.beaver()
    assert snapshot(match) == before


def test_money_rules_only_in_money_play() -> None:
    with pytest.raises(ValueError):
        Match(5, jacoby=True)


# -- resignations -----------------------------------------------------------------------------
def test_resignation_accepted_scores_kind_times_cube() -> None:
    match = opened(7, [(6, 5)])
    match.double()
    match.take()
    match.roll()
    match.resign(Resignation.GAMMON)
    assert match.to_act == WHITE and match.state.resignation == Resignation.GAMMON
    result = match.accept(WHITE)
    assert result == GameResult(WHITE, 4, WinKind.GAMMON, 2, GameStatus.RESIGNED) and result.resigned
    assert match.score == (0, 4)
    assert str(result) == "white wins 4 points (gammon, resigned)"


def test_resignation_rejected_play_goes_on() -> None:
    match = opened(3, [(6, 5)])
    match.resign(Resignation.BACKGAMMON, BLACK)
    with pytest.raises(IllegalActionError, match="accept or reject"):
        match.roll(BLACK)
    with pytest.raises(NotYourTurnError):
        match.reject(BLACK)
    match.reject(WHITE)
    assert match.state.resignation is None and match.to_act == BLACK
    match.roll()


# -- illegal actions change nothing -----------------------------------------------------------
ILLEGAL: list[tuple[str, Callable[[Match], object], type[Exception]]] = [
    ("out of turn roll", lambda m: m.roll(WHITE), NotYourTurnError),
    ("out of turn double", lambda m: m.double(WHITE), NotYourTurnError),
    ("take without double", lambda m: m.take(), CubeActionError),
    ("drop without double", lambda m: m.drop(), CubeActionError),
    ("move before rolling", lambda m: m.move(13, 8), IllegalActionError),
    ("play before rolling", lambda m: m.play("13/8 13/10"), IllegalActionError),
    ("commit before rolling", lambda m: m.commit(), IllegalActionError),
    ("accept without resignation", lambda m: m.accept(), IllegalActionError),
    ("new game mid-game", lambda m: m.new_game(), IllegalActionError),
    ("resign nonsense", lambda m: m.resign(5), IllegalActionError),  # type: ignore[arg-type]
    ("undo nothing", lambda m: m.undo(), IllegalActionError),
]
ILLEGAL_ROLLED: list[tuple[str, Callable[[Match], object], type[Exception]]] = [
    ("roll twice", lambda m: m.roll(), IllegalActionError),
    ("double after rolling", lambda m: m.double(), CubeActionError),
    ("illegal play", lambda m: m.play("24/20 24/21"), IllegalPlayError),
    ("illegal play object", lambda m: m.play(Play((Move(24, 18),))), IllegalPlayError),
    ("bad move text", lambda m: m.play("24/z"), InvalidMoveError),
    ("illegal checker move", lambda m: m.move(24, 21), IllegalPlayError),
    ("off the board", lambda m: m.move(3, 7), InvalidMoveError),
    ("commit incomplete", lambda m: m.commit(), IllegalPlayError),
    ("out of turn move", lambda m: m.move(13, 8, WHITE), NotYourTurnError),
]


@pytest.mark.parametrize("name, action, error", ILLEGAL, ids=[i[0] for i in ILLEGAL])
def test_illegal_action_before_rolling(name: str, action: Callable[[Match], object], error: type) -> None:
    match = opened(5, [(6, 5)])
    before = snapshot(match)
    with pytest.raises(error):
        action(match)
    assert snapshot(match) == before


@pytest.mark.parametrize("name, action, error", ILLEGAL_ROLLED, ids=[i[0] for i in ILLEGAL_ROLLED])
def test_illegal_action_after_rolling(name: str, action: Callable[[Match], object], error: type) -> None:
    match = opened(5, [(6, 5)])
    match.roll()
    match.move(24, 18)
    before = snapshot(match)
    with pytest.raises(error):
        action(match)
    assert snapshot(match) == before


def test_actions_after_the_game_raise() -> None:
    match = opened(3)
    match.double()
    match.drop()
    before = snapshot(match)
    for action in (match.roll, match.double, match.take, match.commit):
        with pytest.raises(IllegalActionError, match="game is over"):
            action()
    assert snapshot(match) == before


# -- checker-by-checker entry -------------------------------------------------------------------
def test_checker_by_checker_with_undo() -> None:
    match = Match(3, dice=FixedDice([(3, 1)]))
    match.roll()
    assert match.remaining_dice == (3, 1)
    assert match.move(8, 5) == (Move(8, 5),)
    assert match.remaining_dice == (1,)
    assert match.current_position != match.position  # the snapshot stays committed
    assert match.undo() == (Move(8, 5),)
    assert match.pending_moves == () and match.remaining_dice == (3, 1)
    match.move(6, 5)
    match.move(8, 5)
    with pytest.raises(IllegalPlayError):
        match.move(13, 12)  # both dice are used
    play = match.commit()
    assert play == Play((Move(6, 5), Move(8, 5)))
    assert match.position == Position().apply("8/5 6/5")
    assert match.history[-1] == Action(ActionKind.PLAY, WHITE, play=play)


def test_one_checker_over_two_dice() -> None:
    match = Match(3, dice=FixedDice([(3, 1)]))
    match.roll()
    steps = match.move(13, 9)
    assert len(steps) == 2 and steps[0].source == 13 and steps[-1].target == 9
    match.commit()
    assert match.position == Position().apply("13/10 10/9")


def test_ambiguous_checker_path_with_a_hit() -> None:
    # A black blot on white's 11-point (black's 14): 13/7 with 4-2 passes it or hits it.
    position = Position.from_checkers(counts({13: 2, 6: 13}), counts({14: 1, 1: 14}), WHITE)
    match = Match.from_state(GameState(position=position, dice=(4, 2)))
    with pytest.raises(AmbiguousPlayError):
        match.move(13, 7)  # 13/9/7 or 13/11*/7
    match.move(13, 11)
    assert match.pending_moves == (Move(13, 11, hit=True),)


def test_a_move_no_legal_play_extends_is_refused() -> None:
    # 6-1 from a lone checker on the 8-point, black holding white's ace point: 8/2 or
    # 8/7 can each be played, but not both, so the larger die must be played.
    position = Position.from_checkers(counts({8: 1}), counts({24: 2, 6: 13}), WHITE)
    match = Match.from_state(GameState(position=position, dice=(6, 1)))
    with pytest.raises(IllegalPlayError):
        match.move(8, 7)
    match.move(8, 2)
    assert match.commit() == Play((Move(8, 2),))


def test_bear_off_with_a_larger_die() -> None:
    position = Position.from_checkers(counts({2: 1, 1: 1}), counts({6: 15}), WHITE)
    match = Match.from_state(GameState(position=position, dice=(6, 3)))
    match.move(2, 0)
    match.move(1, 0)
    match.commit()
    assert match.result is not None and match.result.kind == WinKind.GAMMON


def test_pass_commits_empty_play() -> None:
    # White on the bar against a closed board cannot enter.
    position = Position.from_checkers(counts({6: 14}, bar=1), counts({1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 5}), WHITE)
    match = Match.from_state(GameState(position=position, dice=(6, 5)))
    assert match.legal_plays.is_pass()
    assert match.commit() == Play()
    assert match.to_act == BLACK


# -- history ---------------------------------------------------------------------------------
def test_history_replays_from_text() -> None:
    match = opened(5, [(6, 5)])
    match.double()
    match.take()
    match.roll()
    match.move(24, 18)
    match.move(18, 13)
    match.commit()
    lines = [str(action) for action in match.history]
    assert lines[:4] == ["white opening 3-1", "white play 8/5 6/5", "black double", "white take"]
    copy = Match.replay(lines, match.start)
    assert copy.state == match.state and copy.history == match.history


def test_action_text_errors() -> None:
    for bad in ["", "white fly", "white roll x", "new_game white", "roll 3-1"]:
        with pytest.raises(InvalidMoveError):
            Action.from_text(bad)


# -- random games and matches -----------------------------------------------------------------
def step(match: Match, rng: random.Random) -> None:
    """One random action, as a player might take it; checks the turn's bookkeeping."""
    state = match.state
    if match.game_over:
        match.new_game()
    elif state.status == GameStatus.NONE:
        match.roll()
    elif state.double_offered:
        beaver = state.beavers and (state.cube_limit is None or state.cube * 4 <= state.cube_limit)
        options = [match.take, match.drop] + ([match.beaver] if beaver else [])
        rng.choice(options)()
    elif state.resignation is not None:
        rng.choice([match.accept, match.reject])()
    elif state.dice is None:
        if rng.random() < 0.02:
            match.resign(rng.choice(list(Resignation)))
        elif match.can_double() and rng.random() < 0.15:
            match.double()
        else:
            match.roll()
    else:
        mover, position = state.position.turn, state.position
        play = rng.choice(list(match.legal_plays))
        if rng.random() < 0.5:
            for move in play.moves:
                match.move(move.source, move.target)
                if rng.random() < 0.2:
                    match.undo()
                    match.move(move.source, move.target)
            played = match.commit()
        else:
            played = match.play(play)
        after = match.state.position
        # Checkers are conserved: the mover's pips fall by exactly the pips moved, the
        # mover bears off only what the play bears off, and the opponent's total is unchanged.
        assert position.pip_count(mover) - after.pip_count(mover) == sum(m.pips for m in played.moves)
        assert after.borne_off(mover) - position.borne_off(mover) == sum(m.target == 0 for m in played.moves)
        assert after.borne_off(mover.other) == position.borne_off(mover.other)
        for color in (WHITE, BLACK):
            assert sum(after.checkers(color)) + after.borne_off(color) == CHECKERS
        assert after.turn == mover.other or match.game_over


def check_result(result: GameResult) -> None:
    if result.dropped:
        assert result.points == result.cube
    else:
        assert result.points in (result.cube, 2 * result.cube, 3 * result.cube)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    length=st.sampled_from([1, 2, 3, 5, 7, 11, 25]),
    crawford=st.booleans(),
)
def test_random_matches_end_with_a_valid_score(seed: int, length: int, crawford: bool) -> None:
    rng = random.Random(seed)
    match = Match(length, dice=SeededDice(seed), crawford=crawford)
    crawford_games = 0
    for _ in range(100_000):
        if match.is_over:
            break
        if match.state.status == GameStatus.NONE:
            crawford_games += match.state.crawford
            if match.state.crawford:
                assert not match.can_double()
        step(match, rng)
    assert match.is_over
    assert max(match.score) >= length and min(match.score) < length
    assert sum(r.points for r in match.results) == sum(match.score)
    for result in match.results:
        check_result(result)
    assert crawford_games <= (1 if crawford and length > 1 else 0)
    assert Match.replay(map(str, match.history), match.start, crawford=crawford).state == match.state


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), jacoby=st.booleans(), beavers=st.booleans(), limit=st.sampled_from([None, 8]))
def test_random_money_games(seed: int, jacoby: bool, beavers: bool, limit: int | None) -> None:
    rng = random.Random(seed)
    match = Match(0, dice=SeededDice(seed), jacoby=jacoby, beavers=beavers, cube_limit=limit)
    while len(match.results) < 3:
        step(match, rng)
    for result in match.results:
        check_result(result)
        assert limit is None or result.cube <= limit
        if jacoby and result.cube == 1 and not result.dropped:
            assert result.points == 1
    assert sum(match.score) == sum(r.points for r in match.results)
    assert not match.is_over and match.winner is None


def test_next_moves_are_what_move_accepts() -> None:
    """Every (source, target) next_moves offers is accepted by move; none it leaves out is."""
    from gammon.errors import GammonError

    match = Match(3, dice=FixedDice([(3, 1)]))
    match.roll()  # white opens 3-1
    offered = match.next_moves()
    assert offered[8] == (7, 5, 4) and offered[6] == (5, 3, 2) and 24 in offered and 13 in offered
    for source in range(1, 26):
        for target in range(source):
            try:
                match.move(source, target)
            except GammonError as error:
                assert target not in offered.get(source, ()) or "more than one way" in str(error)
            else:
                match.undo()
                assert target in offered.get(source, ()), (source, target)
    match.move(8, 5)
    match.move(6, 5)
    assert match.next_moves() == {}

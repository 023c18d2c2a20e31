"""The cube: contexts, Janowski's cubeful values, decisions, and agreement with GNU Backgammon."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gammon import Color, GameState, Position
from gammon.players import load_player
from gammon.cube import CubeContext, CubeContextError, CubeDecision, Owner, Response, cubeful_values, cubeless_values
from gammon.evaluation import TIE

VECTORS = Path(__file__).parent / "vectors" / "cube" / "cube_decisions_sample.json"
SAMPLE = json.loads(VECTORS.read_text())["positions"]
sys.path.insert(0, str(Path(__file__).parent.parent / "bench"))
from cube_agreement import formula_decision, gnubg_choices  # noqa: E402


def probs(w, wg=0.0, wbg=0.0, lg=0.0, lbg=0.0):
    return np.array([[w, wg, wbg, lg, lbg]])


def take_point(context: CubeContext, shape, x: float) -> float:
    """The doubler's winning chance where the taker is indifferent (DT = DP), by bisection."""
    low, high = 0.0, 1.0
    for _ in range(60):
        mid = (low + high) / 2
        dt = cubeful_values(shape(mid), context.doubled(), x)[0]
        if dt < context.cash:
            low = mid
        else:
            high = mid
    return 1.0 - (low + high) / 2


# -- money: Janowski's published formulas -----------------------------------------------------------
@pytest.mark.parametrize("x", [0.0, 0.5, 0.68, 1.0])
@pytest.mark.parametrize("gammons", [(0.0, 0.0), (0.2, 0.1), (0.35, 0.05)])
def test_money_take_point_is_janowskis(x, gammons):
    """Take point (L - 1/2) / (W + L + x/2), W and L the taker's average win and loss."""
    my_gammon_rate, their_gammon_rate = gammons  # as shares of wins

    def shape(p):
        return probs(p, p * my_gammon_rate, 0.0, (1 - p) * their_gammon_rate, 0.0)

    # The taker's average loss is the doubler's average win, and the other way round.
    taker_loss = 1 + my_gammon_rate
    taker_win = 1 + their_gammon_rate
    expected = (taker_loss - 0.5) / (taker_win + taker_loss + 0.5 * x)
    assert take_point(CubeContext(), shape, x) == pytest.approx(expected, abs=1e-6)


def test_dead_cube_is_cubeless_equity():
    p = probs(0.6, 0.2, 0.02, 0.1, 0.01)
    money = CubeContext()
    assert cubeful_values(p, money, 0.0)[0] == pytest.approx(2 * 0.6 - 1 + 0.2 + 0.02 - 0.1 - 0.01)
    assert cubeless_values(p, money.doubled())[0] == pytest.approx(2 * (2 * 0.6 - 1 + 0.2 + 0.02 - 0.1 - 0.01))


probabilities = st.tuples(
    st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(0.0, 1.0)
).map(lambda t: np.array([[t[0], t[0] * t[1], t[0] * t[1] * t[2], (1 - t[0]) * t[3], (1 - t[0]) * t[3] * t[4]]]))
contexts = st.one_of(
    st.builds(CubeContext, cube=st.sampled_from([1, 2, 4]), owner=st.sampled_from(list(Owner)),
              jacoby=st.booleans(), beavers=st.booleans()),
    st.builds(lambda a, b, owner, cube: CubeContext(cube=cube, owner=owner, away=(a, b)),
              st.integers(2, 25), st.integers(2, 25), st.sampled_from(list(Owner)), st.sampled_from([1, 2, 4])),
    st.builds(lambda b, post: CubeContext(away=(1, b), crawford=not post, post_crawford=post) if b > 1 else
              CubeContext(away=(1, 1)), st.integers(1, 25), st.booleans()),
)


@settings(max_examples=300, deadline=None)
@given(probabilities, contexts, st.floats(0.0, 1.0))
def test_cubeful_value_lies_between_losing_and_winning_everything(p, context, x):
    value = cubeful_values(p, context, x)[0]
    worst = context.value_of(-3 * context.cube << 12) if context.is_money else 0.0
    best = context.value_of(3 * context.cube << 12) if context.is_money else 1.0
    assert worst - 1e-9 <= value <= best + 1e-9
    if not context.is_money:
        assert 0.0 <= value <= 1.0


@settings(max_examples=200, deadline=None)
@given(st.floats(0.0, 0.99), st.floats(0.001, 0.01), st.floats(0.0, 0.4), contexts, st.floats(0.0, 1.0))
def test_more_winning_chances_never_hurt(w, step, gammon_rate, context, x):
    def at(p):
        return cubeful_values(probs(p, p * gammon_rate, 0, (1 - p) * gammon_rate, 0), context, x)[0]

    assert at(min(1.0, w + step)) >= at(w) - 1e-9


def test_finished_games_are_worth_their_outcome():
    ctx = CubeContext(cube=2, owner=Owner.ME, away=(5, 3))
    assert cubeful_values(probs(1.0, 1.0), ctx, 0.68)[0] == pytest.approx(ctx.value_of(4))
    assert cubeful_values(probs(0.0, 0, 0, 1.0, 1.0), ctx, 0.68)[0] == pytest.approx(ctx.value_of(-6))


# -- contexts ----------------------------------------------------------------------------------------
def test_context_from_state_sees_the_side_on_roll():
    state = GameState.from_gnubg_id("/gEhUgUbyAhJOQ:cAngADAAKAAA")  # 7-point match, 2-away vs 4-away
    ctx = CubeContext.from_state(state)
    assert ctx.away == (2, 4) and ctx.owner is Owner.CENTRED and ctx.can_double
    assert ctx.flip().away == (4, 2)
    assert ctx.value_of(2) == 1.0 and ctx.value_of(-4) == 0.0


def test_crawford_game_has_no_cube_and_post_crawford_leader_cube_is_dead():
    crawford = CubeContext(away=(1, 5), crawford=True)
    assert not crawford.can_double and not crawford.flip().can_double
    post = CubeContext(away=(4, 1), post_crawford=True)
    assert post.can_double  # the trailer
    assert not post.flip().can_double  # the leader gains nothing from doubling
    assert post.value_of(-1) == 0.0
    # Winning a single game post-Crawford: 3-away vs 1-away, from the post-Crawford row.
    assert post.value_of(1) == pytest.approx(post.met.mwc(3, 1, post_crawford=True))


def test_cube_limit_and_dead_cubes():
    assert not CubeContext(cube=2, owner=Owner.ME, cube_limit=2).can_double
    assert CubeContext(cube=2, owner=Owner.ME, cube_limit=4).can_double
    assert not CubeContext(cube=2, owner=Owner.ME, away=(2, 5)).can_double  # 2 points win the match
    assert not CubeContext(cube=2, owner=Owner.OPPONENT).can_double


@pytest.mark.parametrize("kwargs", [
    {"cube": 3}, {"away": (0, 3)}, {"away": (3, 26)}, {"away": (3, 4), "crawford": True},
    {"crawford": True}, {"away": (3, 4), "jacoby": True},
])
def test_impossible_contexts_are_refused(kwargs):
    with pytest.raises(CubeContextError):
        CubeContext(**kwargs)


# -- decisions ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("nd, dt, dp, action, double, take", [
    (0.40, 0.30, 1.0, "No double, take", False, True),
    (0.50, 0.60, 1.0, "Double, take", True, True),
    (0.70, 1.30, 1.0, "Double, pass", True, False),
    (1.20, 1.60, 1.0, "Too good to double, pass", False, False),
    (1.20, 0.90, 1.0, "Too good to double, take", False, True),
    (1.00, 1.40, 1.0, "Optional double, pass", True, False),
])
def test_decision_classes(nd, dt, dp, action, double, take):
    d = CubeDecision.from_equities(nd, dt, dp)
    assert (d.action, d.double, d.take) == (action, double, take)
    assert set(d.as_json()) == {"double", "take", "no_double", "double_take", "double_pass", "action"}


def test_redouble_and_beaver_and_unavailable_wording():
    assert CubeDecision.from_equities(0.5, 0.6, 1.0, redouble=True).action == "Redouble, take"
    beaver = CubeDecision.from_equities(-0.2, -0.5, 1.0, beaver=-1.0)
    assert beaver.response is Response.BEAVER and beaver.take and beaver.action == "No double, beaver"
    assert CubeDecision.from_equities(0.5, 0.6, 1.0, available=False).action == "No double available"


def test_jacoby_makes_gammonish_positions_double_out():
    """With Jacoby a centred cube cannot be too good: gammons count only after a double."""
    p = probs(0.85, 0.55, 0.02, 0.01, 0.0)
    x = 0.68
    for jacoby, too_good in ((False, True), (True, False)):
        ctx = CubeContext(jacoby=jacoby)
        nd = cubeful_values(p, ctx, x)[0]
        dt = cubeful_values(p, ctx.doubled(), x)[0]
        d = CubeDecision.from_equities(nd, dt, ctx.cash)
        assert d.action.startswith("Too good") is too_good


def test_free_recube_at_two_away():
    """2-away/4-away: after my double the opponent redoubles at no risk, so my DT is just my winning chance."""
    ctx = CubeContext(away=(2, 4))
    dt = cubeful_values(probs(0.745557), ctx.doubled(), 0.6)[0]
    assert dt == pytest.approx(0.745557, abs=1e-9)


def test_formulas_agree_with_gnubg_given_its_probabilities():
    """Score handling, checked alone: gnubg's cubeless numbers through our cubeful formulas."""
    agree = total = 0
    for position in SAMPLE:
        for record in position["contexts"].values():
            state = GameState.from_gnubg_id(f"{position['position_id']}:{record['match_id']}")
            ours = formula_decision(state, record)
            double, take, double_margin, take_margin = gnubg_choices(record)
            for mine, theirs, margin in ((ours.double, double, double_margin), (ours.take, take, take_margin)):
                if margin > 0.1:
                    total += 1
                    agree += mine == theirs
    assert total > 2000
    assert agree / total >= 0.99


def test_neural_net_decisions_agree_with_gnubg_on_clear_cases():
    player = load_player("nn")
    agree = total = 0
    for position in SAMPLE:
        for record in position["contexts"].values():
            state = GameState.from_gnubg_id(f"{position['position_id']}:{record['match_id']}")
            ours = player.cube_decision(state.position.array(), CubeContext.from_state(state))
            double, take, double_margin, take_margin = gnubg_choices(record)
            for mine, theirs, margin in ((ours.double, double, double_margin), (ours.take, take, take_margin)):
                if margin > 0.1:
                    total += 1
                    agree += mine == theirs
    # 0 ply measured 92.3 % (1-ply 94.3 %, 2-ply 94.8 %: python bench/cube_agreement.py).
    assert agree / total >= 0.89


# -- the cubeful search --------------------------------------------------------------------------------
def test_zero_ply_search_is_the_formula_on_the_evaluation():
    player = load_player("pubeval")
    state = GameState.from_gnubg_id("/gEhUgUbyAhJOQ:cAkAAAAAAAAA")
    ctx = CubeContext.from_state(state)
    decision = player.cube_decision(state.position.array(), ctx)
    p = np.array([player.evaluator.evaluate_position(state.position).as_tuple()])
    from gammon.cube import cube_efficiencies

    x = cube_efficiencies(state.position.array()[None, :])
    assert decision.no_double == pytest.approx(cubeful_values(p, ctx, x)[0] / ctx.cube)
    assert decision.double_take == pytest.approx(cubeful_values(p, ctx.doubled(), x)[0] / ctx.cube)


@pytest.mark.parametrize("ply", [0, 1])
def test_double_match_point_plays_for_the_win_only(ply):
    """At 1-away/1-away gammons are worth nothing: the best play is the one that wins most."""
    player = load_player(f"pubeval:{ply}")
    position = Position.from_position_id("/gEhUgUbyAhJOQ")
    analysis = player.analyse(position.array(), 6, 2, full=True, context=CubeContext(away=(1, 1)))
    best = analysis.best()
    deepest = analysis.plies == analysis.plies.max()
    assert analysis.probabilities[best, 0] == pytest.approx(analysis.probabilities[deepest, 0].max())


def test_cubeful_checker_play_ranks_by_cubeful_equity():
    player = load_player("nn:1")
    state = GameState.from_gnubg_id("4HPwATDgc/ABMA:cAngAAAAAAAA")
    ctx = CubeContext.from_state(state)
    analysis = player.analyse(state.position.array(), 6, 5, context=ctx)
    order = analysis.ranking()
    assert analysis.cubeful is not None and analysis.cubeful[order[0]] == analysis.cubeful.max()
    assert analysis.plies[order[0]] == 1


def test_one_ply_decision_is_consistent_and_deterministic():
    player = load_player("nn:1")
    state = GameState.from_gnubg_id("/gEhUgUbyAhJOQ:cAngAAAAAAAA")
    ctx = CubeContext.from_state(state)
    first = player.cube_decision(state.position.array(), ctx)
    player.cubeful.clear_cache()
    assert player.cube_decision(state.position.array(), ctx) == first
    assert first.double_pass == 1.0
    assert first.mwc is not None and 0 < first.mwc[0] < 1


def test_resignations():
    player = load_player("nn")
    ctx = CubeContext()
    white = [0] * 25
    white[0] = 1  # white bears its last checker off next roll
    # Black has borne one checker off and has fourteen home: a certain single loss.
    black = [0] * 25
    black[0], black[1], black[2] = 5, 5, 4
    single = Position.from_checkers(white, black, turn=Color.BLACK).array()
    assert player.cubeful.offer_resignation(single, ctx) == 1
    assert player.cubeful.accept_resignation(single, ctx, 1)
    # All fifteen on black's 8-point: no checker off before white finishes, a gammon.
    black = [0] * 25
    black[7] = 15
    gammoned = Position.from_checkers(white, black, turn=Color.BLACK).array()
    assert not player.cubeful.accept_resignation(gammoned, ctx, 1)
    assert player.cubeful.accept_resignation(gammoned, ctx, 3)
    opening = Position().array()
    assert player.cubeful.offer_resignation(opening, ctx) is None
    assert player.cubeful.accept_resignation(opening, ctx, 1)  # a point given away at the start: taken


# -- the command line ------------------------------------------------------------------------------------
def gammon(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gammon", *args], input=stdin, capture_output=True, text=True,
                          timeout=120)


def test_cube_command_in_words_and_json():
    text = gammon("cube", "/gEhUgUbyAhJOQ:cAngADAAKAAA", "--player", "nn:1")
    assert text.returncode == 0, text.stderr
    assert "2-away / 4-away" in text.stdout and "Proper cube action:" in text.stdout
    as_json = gammon("cube", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "--json", "--player", "nn")
    assert as_json.returncode == 0, as_json.stderr
    answer = json.loads(as_json.stdout)
    assert answer["action"] == "No double, take" and answer["double"] is False and answer["take"] is True


def test_cube_batch_writes_one_line_per_input_and_errors_as_objects():
    lines = "\n".join([
        "/gEhUgUbyAhJOQ:cAkAAAAAAAAA",
        "not a position",
        "4HPwATDgc/ABMA:cAngAAAAAAAA",
        "4HPwATDgc/ABMA:ZZZZ",
    ]) + "\n"
    result = gammon("cube", "--batch", "--player", "nn", stdin=lines)
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(rows) == 4
    assert set(rows[0]) == {"double", "take", "no_double", "double_take", "double_pass", "action", "input"}
    assert [row["input"] for row in rows] == lines.splitlines()
    assert rows[1]["line"] == 2 and "error" in rows[1]
    assert rows[2]["double"] is False and abs(rows[2]["double_pass"] - 1.0) < TIE
    assert "error" in rows[3] and rows[3]["input"] == "4HPwATDgc/ABMA:ZZZZ"


def test_cube_command_advises_resigning_a_hopeless_game():
    result = gammon("cube", "AQAAfN8DAAAAAA:MAEAAAAAAAAE", "--player", "nn")  # one checker against fourteen
    assert result.returncode == 0, result.stderr
    assert "Proper cube action: No double, take" in result.stdout
    assert "resigning a single game gives nothing away" in result.stdout


def test_cube_command_rejects_a_finished_game():
    result = gammon("cube", "not-a-position")
    assert result.returncode != 0 and "Traceback" not in result.stderr


def test_cube_command_with_another_match_equity_table(tmp_path):
    ours = gammon("cube", "/gEhUgUbyAhJOQ:cAngADAAKAAA", "--player", "nn", "--met", "gammon", "--json")
    assert ours.returncode == 0, ours.stderr
    assert json.loads(ours.stdout)["double_pass"] == 1.0
    missing = gammon("cube", "/gEhUgUbyAhJOQ:cAngADAAKAAA", "--met", str(tmp_path / "none.json"))
    assert missing.returncode == 1 and "--met" in missing.stderr and "Traceback" not in missing.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    broken = gammon("cube", "/gEhUgUbyAhJOQ:cAngADAAKAAA", "--met", str(bad))
    assert broken.returncode == 1 and "not a match equity table" in broken.stderr

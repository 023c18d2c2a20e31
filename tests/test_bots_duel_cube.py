"""Duels with the doubling cube: money games and matches, the Crawford rule, scripted cube policies, the CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest

from gammon.duel import (
    CubeGame,
    duel,
    match_context,
    match_duel,
    play_cube_game,
    play_cube_pair,
    play_match_pair,
)
from gammon.bots.evaluator import Evaluator
from gammon.bots import Bot
from gammon.bots.pubeval import PubevalEvaluator
from gammon.bots.random_eval import RandomEvaluator
from gammon.cli import main
from gammon.cube.context import CubeContext
from gammon.evaluation import CubeDecision, Response
from gammon.state import GameStatus


class Scripted(Bot):
    """A player with a fixed cube policy (always or never double; always take, pass or beaver)
    that records every context it is asked a cube question or a play in."""

    def __init__(self, double: bool = False, response: Response = Response.TAKE,
                 evaluator: Evaluator | None = None) -> None:
        super().__init__(evaluator or PubevalEvaluator(), name="scripted")
        self.double, self.response = double, response
        self.asked: list[CubeContext] = []
        self.played: list[CubeContext | None] = []

    def cube_decision(self, board: np.ndarray, context: CubeContext) -> CubeDecision:
        self.asked.append(context)
        return CubeDecision(0.0, 0.0, 0.0, self.double, self.response is not Response.PASS, self.response, "scripted")

    def choose_board(self, board: np.ndarray, d1: int, d2: int, context: CubeContext | None = None) -> np.ndarray:
        self.played.append(context)
        return super().choose_board(board, d1, d2, context)


class Recorder(Bot):
    """pubeval, recording the contexts of its cube decisions and plays."""

    def __init__(self) -> None:
        super().__init__(PubevalEvaluator())
        self.asked: list[CubeContext] = []
        self.played: list[CubeContext | None] = []

    def cube_decision(self, board: np.ndarray, context: CubeContext) -> CubeDecision:
        self.asked.append(context)
        return super().cube_decision(board, context)

    def choose_board(self, board: np.ndarray, d1: int, d2: int, context: CubeContext | None = None) -> np.ndarray:
        self.played.append(context)
        return super().choose_board(board, d1, d2, context)


def _stakes(games: list[CubeGame]) -> list[int]:
    return [abs(g.points) // g.cube for g in games]


# -- money ------------------------------------------------------------------------------------
def test_money_cube_duel_scores_multiples_of_the_cube() -> None:
    result = duel("pubeval", "random", 12, seed=4, workers=1, cube=True)
    assert result.cube and result.cubes is not None and result.games == 12
    assert (result.points != 0).all() and (result.points % result.cubes == 0).all()
    assert set((np.abs(result.points) // result.cubes).tolist()) <= {1, 2, 3}
    assert ((result.cubes >= 1) & ((result.cubes & (result.cubes - 1)) == 0)).all()  # powers of two
    assert result.extra["doubles"] > 0 and result.ppg > 0
    data = result.as_dict()
    assert data["cube"] is True and data["games"] == 12 and data["a_wins"] + data["b_wins"] == 12
    assert data["ci95"][0] <= data["ppg"] <= data["ci95"][1]
    assert "with the cube" in result.summary()


def test_identical_players_cancel_out_with_the_cube() -> None:
    result = duel("pubeval", "pubeval", 12, seed=3, workers=1, cube=True)
    assert result.points.reshape(-1, 2).sum(axis=1).tolist() == [0] * 6
    assert result.extra["doubles"] > 0  # the cube was in play


def test_cube_duels_are_deterministic_whatever_the_workers() -> None:
    one = duel("pubeval", "random", 12, seed=11, workers=1, cube=True, cube_limit=8)
    two = duel("pubeval", "random", 12, seed=11, workers=2, cube=True, cube_limit=8)
    np.testing.assert_array_equal(one.points, two.points)
    np.testing.assert_array_equal(one.cubes, two.cubes)
    assert one.cubes.max() <= 8
    m1 = match_duel("pubeval", "pubeval:advanced", 6, 3, seed=2, workers=1)
    m2 = match_duel("pubeval", "pubeval:advanced", 6, 3, seed=2, workers=2)
    np.testing.assert_array_equal(m1.wins, m2.wins)
    np.testing.assert_array_equal(m1.games, m2.games)


def test_a_player_who_always_passes_loses_every_double() -> None:
    pubeval, passer = Bot(PubevalEvaluator()), Scripted(double=False, response=Response.PASS)
    games = [g for k in range(4) for g in play_cube_pair(pubeval, passer, 7, k)]
    dropped = [g for g in games if g.ended == GameStatus.DROPPED]
    assert dropped and all(g.points == g.cube > 0 for g in dropped)  # pubeval cashed each time
    assert sum(g.points for g in games) > 0


def test_doubler_against_passer_wins_a_point() -> None:
    doubler, passer = Scripted(double=True), Scripted(double=False, response=Response.PASS)
    for first, second, sign, turns in ((doubler, passer, 1, 2), (passer, doubler, -1, 1)):
        # In money play a side is asked only when ahead (cubeless equity > 0): it doubles then.
        game = play_cube_game(first, second, 5, 0)
        assert (game.points, game.cube, game.ended, game.doubles) == (sign, 1, GameStatus.DROPPED, 1)
        # In a match it is always asked: it doubles at its first turn after the opening roll.
        game = play_cube_game(first, second, 5, 0, CubeContext(away=(5, 5)))
        assert (game.points, game.cube, game.ended, game.doubles, game.turns) == (sign, 1, GameStatus.DROPPED, 1, turns)


def test_beavers_and_the_jacoby_rule() -> None:
    doubler, beaverer = Scripted(double=True), Scripted(double=False, response=Response.BEAVER)
    games = [play_cube_game(doubler, beaverer, 3, k, CubeContext(beavers=True)) for k in range(3)]
    # A beaver quadruples the cube and the beaverer keeps it: the doubler cannot double again.
    assert [g.cube for g in games] == [4, 4, 4] and all(g.doubles == 1 for g in games)
    assert set(_stakes(games)) <= {1, 2, 3}
    quiet = Scripted(double=False), Scripted(double=False, evaluator=RandomEvaluator())
    plain = [play_cube_game(*quiet, 3, k) for k in range(6)]
    jacoby = [play_cube_game(*quiet, 3, k, CubeContext(jacoby=True)) for k in range(6)]
    assert max(_stakes(plain)) > 1  # pubeval gammons the random player...
    assert _stakes(jacoby) == [1] * 6  # ...but with the cube never turned, the Jacoby rule counts them single


# -- matches ------------------------------------------------------------------------------------
def test_match_context_follows_the_crawford_rule() -> None:
    start = match_context(3, (0, 0), False)
    assert start.away == (3, 3) and start.can_double and not (start.crawford or start.post_crawford)
    crawford = match_context(3, (2, 1), False)
    assert crawford.away == (1, 2) and crawford.crawford and not crawford.can_double
    assert not crawford.flip().can_double
    post = match_context(3, (2, 1), True)
    assert post.post_crawford and not post.crawford
    assert post.flip().can_double and not post.can_double  # only the trailer's cube is alive
    assert not match_context(1, (0, 0), False).can_double  # a 1-point match has no cube


def test_no_double_in_the_crawford_game() -> None:
    crawford = CubeContext(away=(1, 2), crawford=True)
    for k in range(3):
        doubler, taker = Scripted(double=True), Scripted(double=True)
        game = play_cube_game(doubler, taker, 9, k, crawford)
        assert game.cube == 1 and game.doubles == 0 and doubler.asked == [] and taker.asked == []
        assert abs(game.points) in (1, 2, 3)
    game = play_cube_game(Scripted(double=True), Scripted(response=Response.PASS), 9, 0, CubeContext(away=(2, 2)))
    assert game.ended == GameStatus.DROPPED  # the same doubler doubles at once outside it


def test_three_point_matches_end_with_a_winner_and_skip_the_cube_in_the_crawford_game() -> None:
    a, b = Recorder(), Recorder()
    records = [r for k in range(6) for r in play_match_pair(a, b, 1, k, 3)]
    for record in records:
        assert max(record.score) >= 3 > min(record.score) and record.games >= 1
        assert record.winner == (0 if record.score[0] >= 3 else 1)
    assert any(r.crawford for r in records)
    played = [c for c in a.played + b.played if c is not None]
    assert any(c.crawford for c in played) and any(c.post_crawford for c in played)
    asked = a.asked + b.asked
    assert asked and not any(c.crawford for c in asked)


def test_match_duel_result() -> None:
    result = match_duel("pubeval", "random", 8, 3, seed=2, workers=1)
    assert result.matches == 8 and result.a_match_wins + result.b_match_wins == 8
    assert result.win_rate > 0.5 and result.ci95[0] <= result.win_rate <= result.ci95[1]
    assert result.games_played >= 8 and result.games_per_match >= 1.0
    assert "3-point matches" in result.summary()
    with pytest.raises(ValueError, match="match length"):
        match_duel("pubeval", "random", 2, 0)
    with pytest.raises(ValueError, match="even number"):
        match_duel("pubeval", "random", 3, 3)


# -- the command ---------------------------------------------------------------------------------
def test_duel_command_with_the_cube(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["duel", "pubeval", "random", "--cube", "--games", "4", "--seed", "2", "--workers", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["cube"] is True and data["games"] == 4 and data["a"] == "pubeval"
    assert {"ppg", "ci95", "a_wins", "b_gammons", "seconds", "doubles", "passes", "resignations"} <= set(data)
    assert main(["duel", "pubeval", "random", "--match", "3", "--games", "4", "--seed", "2", "--workers", "1",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"a", "b", "matches", "match_length", "seed", "a_match_wins", "b_match_wins", "win_rate", "ci95",
            "seconds", "games", "games_per_match"} <= set(data)
    assert (data["matches"], data["match_length"], data["seed"]) == (4, 3, 2)
    assert data["a_match_wins"] + data["b_match_wins"] == 4 and len(data["ci95"]) == 2


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--match", "0"], "--match 0: a match length of 1-25"),
        (["--match", "3", "--games", "5"], "--games (matches) 5: an even number"),
        (["--match", "3", "--jacoby"], "money-play rules"),
        (["--cube-limit", "6"], "--cube-limit 6: a power of two"),
        (["--cube", "--workers", "0"], "--workers 0"),
    ],
)
def test_duel_command_rejects_bad_cube_arguments(argv: list[str], message: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["duel", "pubeval", "random", *argv]) == 1
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1

"""Search against a slow roll-by-roll expectimax, move filters, cache, players and hints."""

from __future__ import annotations

import numpy as np
import pytest

from gammon import Position, movegen
from gammon.players import hint
from gammon.players import LEVELS, load_player, parse_player
from gammon.evaluation import equities, flip_probabilities
from gammon.bots.pubeval import PubevalEvaluator
from gammon.bots.search import MoveFilter, Search
from gammon.errors import InvalidPlayerError
from gammon.position import LegalPlays

ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]


def small_contact() -> np.ndarray:
    """A few checkers each, still in contact: cheap to search exhaustively."""
    board = np.zeros(26, np.int8)
    board[3], board[8], board[14] = 2, 1, 1  # the mover
    board[5], board[11], board[20] = -1, -2, -2  # the opponent
    return board


def slow_value(evaluator, board: np.ndarray, plies: int) -> np.ndarray:
    """Value of a board after a play at ``plies``, one roll at a time through the public API."""
    out = np.zeros(5)
    if not (board[1:] > 0).any():
        return evaluator.evaluate_batch(board[None])[0]
    opponent = Position(movegen.flip_board(board).tolist())
    for d1, d2 in ROLLS:
        weight = (1 if d1 == d2 else 2) / 36
        legal = LegalPlays(opponent, d1, d2)
        kids = legal.boards()
        probs = evaluator.evaluate_children(opponent.array()[None], np.array([0, len(kids)]), kids)
        best = int(np.argmax(equities(probs)))
        reply = evaluator.evaluate(kids[best]).as_tuple() if plies == 1 else slow_value(evaluator, kids[best], plies - 1)
        reply = np.asarray(reply)
        out += weight * flip_probabilities(reply[None])[0]
    return out


@pytest.mark.parametrize("plies", [1, 2])
def test_search_equals_roll_by_roll_expectimax(plies: int) -> None:
    evaluator = PubevalEvaluator()
    board = small_contact()
    everything = (MoveFilter(1000, 10.0),) * 3
    analysis = Search(evaluator, everything).analyse(board, 4, 2, plies, full=True)
    assert (analysis.plies == plies).all()
    for child, probs in zip(analysis.boards, analysis.probabilities):
        np.testing.assert_allclose(probs, slow_value(evaluator, child, plies), atol=1e-12)


def test_one_ply_of_a_finished_game_is_exact() -> None:
    board = np.zeros(26, np.int8)
    board[1], board[24], board[3] = 1, -14, -1  # the mover bears off its last checker with any roll
    analysis = Search(PubevalEvaluator()).analyse(board, 6, 1, 1, full=True)
    # no opposing checker off and one still in the winner's home board: a backgammon
    np.testing.assert_array_equal(analysis.probabilities[analysis.best()], [1, 1, 1, 0, 0])


def test_move_filter_keeps_the_best_few_within_the_window() -> None:
    equity = np.array([0.1, 0.5, 0.45, 0.3, 0.49, -1.0])
    assert MoveFilter(2, 0.16).select(equity).tolist() == [1, 4]
    assert MoveFilter(8, 0.06).select(equity).tolist() == [1, 4, 2]
    assert MoveFilter(8, 0.0).select(equity).tolist() == [1]
    with pytest.raises(ValueError):
        MoveFilter(0, 0.1)


def test_search_stops_when_one_candidate_is_left_and_caches() -> None:
    search = Search(PubevalEvaluator(), (MoveFilter(1, 0.0),))
    board = Position().array()
    quick = search.analyse(board, 3, 1, 2)
    assert quick.plies.max() == 0  # the filter left one play: the choice is made at 0 ply
    full = search.analyse(board, 3, 1, 2, full=True)
    assert full.plies.max() == 2
    hits = search.cache_hits
    again = search.analyse(board, 3, 1, 2, full=True)
    assert search.cache_hits > hits
    np.testing.assert_array_equal(again.probabilities, full.probabilities)


# -- players ------------------------------------------------------------------------------------
def test_parse_player() -> None:
    assert parse_player("pubeval:1") == parse_player(" PUBEVAL:1 ")
    assert str(parse_player("simple:2:advanced")) == "simple:2:advanced"
    assert str(parse_player("simple:beginner:0")) == "simple:beginner"
    assert parse_player("random").ply == 0
    assert parse_player("pubeval:intermediate").noise == LEVELS["intermediate"]


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "expected NAME"),
        ("stockfish", "unknown player 'stockfish'"),
        ("gnubg:expert", "an external engine has no noise level"),
        ("ubgi:", "expected ubgi:COMMAND"),
        ("pubeval:9", "ply must be 0-3"),
        ("pubeval:1:2", "two plies"),
        ("pubeval:beginner:advanced", "two levels"),
        ("pubeval:fast", "'fast' is neither a ply"),
    ],
)
def test_parse_player_errors(text: str, message: str) -> None:
    with pytest.raises(InvalidPlayerError, match=message):
        parse_player(text)


def test_player_decisions_are_deterministic_given_a_seed() -> None:
    positions = [Position(line.split()[0]) for line in _corpus(40)]
    rolls = [tuple(int(v) for v in line.split()[1:]) for line in _corpus(40)]

    def plays(name: str, seed: int) -> list[str]:
        player = load_player(name, seed=seed)
        return [player.choose_play(p, *r).ubgi() for p, r in zip(positions, rolls)]

    for name in ("random", "pubeval:beginner"):
        assert plays(name, 7) == plays(name, 7)
        assert plays(name, 7) != plays(name, 8)
    assert plays("pubeval:1", 1) == plays("pubeval:1", 2)  # no noise: the seed does not matter


def test_player_is_a_terminal_game_opponent() -> None:
    player = load_player("pubeval")
    legal = Position().legal_plays(3, 1)
    chosen = player(None, legal)
    assert chosen in legal
    assert chosen == player.choose_play(Position(), 3, 1)
    assert chosen.ubgi() == "8/5 6/5"


def _corpus(count: int) -> list[str]:
    from pathlib import Path

    return (Path(__file__).parent / "vectors" / "corpus.txt").read_text().splitlines()[:count]


# -- hints --------------------------------------------------------------------------------------
def test_hint_ranks_every_legal_play() -> None:
    position = Position()
    hints = hint(position, 6, 5, "pubeval:1")
    assert len(hints) == len(position.legal_plays(6, 5))
    assert [h.rank for h in hints] == list(range(1, len(hints) + 1))
    assert hints[0].loss == 0.0
    plies = [h.ply for h in hints]
    assert plies == sorted(plies, reverse=True)  # deeper evaluations first
    for ply in set(plies):
        same = [h.equity for h in hints if h.ply == ply]
        assert same == sorted(same, reverse=True)
    for h in hints:
        assert h.loss == pytest.approx(hints[0].equity - h.equity)
        assert h.play in position.legal_plays(6, 5)
    assert hints[0].as_dict()["probabilities"]["win"] == pytest.approx(hints[0].probabilities.win, abs=1e-6)


def test_hint_of_a_forced_play() -> None:
    board = np.zeros(26, np.int8)
    board[25], board[6] = 1, 14
    board[19:25] = -2  # the opponent's home board is closed: nothing enters
    hints = hint(Position(board.tolist()), 6, 6, "pubeval:2")
    assert len(hints) == 1 and hints[0].play_text() == "(no move)"


def test_every_hint_says_what_judged_it() -> None:
    """The net of the position's class, the bear-off table where it answers, the game's end."""
    from gammon.nn.network import NET_NAMES, net_of

    contact = Position.from_position_id("4HPwATDgc/ABMA")
    hints = hint(contact, 3, 1, load_player("nn"))
    assert {h.judge for h in hints} == {"contact net"}
    assert hint(contact, 3, 1, load_player("pubeval"))[0].judge == "pubeval"
    # A race: every play judged by the race net.
    race = np.zeros(26, np.int8)
    race[[8, 9, 10]] = (5, 5, 5)
    race[[17, 16, 15]] = (-5, -5, -5)
    race_hints = hint(Position.from_array(race), 6, 5, load_player("nn"))
    assert {h.judge for h in race_hints} == {"race net"}
    # Bearing off with the tables' reach: the table judges; the play that bears the last checker off ends the game.
    home = np.zeros(26, np.int8)
    home[[1, 2]] = (1, 1)
    home[[23, 24]] = (-2, -2)
    judged = {h.play_text(): h.judge for h in hint(Position.from_array(home), 2, 1, load_player("nn"))}
    assert judged["2/off 1/off"] == "game over"
    assert set(judged.values()) <= {"game over", "bear-off table"}
    evaluator = load_player("nn").search.evaluator.base
    children = movegen.generate(contact.array(), 6, 6)[0]
    assert evaluator.judges(children) == [f"{NET_NAMES[net_of(c)]} net" for c in children]

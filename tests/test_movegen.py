"""Legal-play generation against GNU Backgammon's answers, and the rules' invariants."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gammon import IllegalPlayError, Move, Play, Position, movegen
from gammon.notation import position_id

VECTORS = Path(__file__).parent / "vectors"


def load_oracle() -> list[dict]:
    return [json.loads(line) for line in (VECTORS / "legal_plays.jsonl").read_text().splitlines()]


def test_full_oracle_matches_gnu_backgammon_batch() -> None:
    cases = load_oracle()
    texts = np.frombuffer("".join(c["pid"] for c in cases).encode(), np.uint8).reshape(-1, 14)
    dice = np.array([c["dice"] for c in cases], np.int8)
    boards, status = position_id.decode_batch(texts)
    assert not status.any()
    offsets, results, _, _ = movegen.generate_batch(boards, dice)
    ids = position_id.encode_batch(results)
    mismatches = []
    for i, case in enumerate(cases):
        text = ids[offsets[i] : offsets[i + 1]].tobytes().decode()
        got = sorted(text[k : k + 14] for k in range(0, len(text), 14))
        if got != case["results"]:
            mismatches.append((case["pid"], case["dice"], len(got), len(case["results"])))
    assert mismatches == []


def test_oracle_sample_through_python_api() -> None:
    for case in load_oracle()[::50]:
        position = Position(case["pid"])
        plays = position.legal_plays(*case["dice"])
        got = sorted(position_id.encode(b) for b in plays.boards())
        assert got == case["results"]
        assert len(plays) == len(case["results"])


def replay(board: np.ndarray, play: np.ndarray, count: int) -> np.ndarray:
    work = board.copy()
    for source, target, hit in play[:count]:
        assert work[source] > 0
        if target:
            assert work[target] >= -1
            assert hit == (work[target] == -1)
        movegen.apply_move(work, int(source), int(target))
    return work


def positions_from_random_games(seed: int, turns: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    board = Position().array()
    seen = [board]
    for _ in range(turns):
        d1, d2 = (int(x) for x in rng.integers(1, 7, size=2))
        boards, _, _ = movegen.generate(board, d1, d2)
        board = movegen.flip_board(boards[rng.integers(len(boards))])
        if abs(board[1:25]).sum() == 0 or (board > 0).sum() == 0 or (board < 0).sum() == 0:
            break
        seen.append(board)
    return seen


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), d1=st.integers(1, 6), d2=st.integers(1, 6), turns=st.integers(0, 80))
def test_rules_invariants(seed: int, d1: int, d2: int, turns: int) -> None:
    board = positions_from_random_games(seed, turns)[-1]
    boards, moves, counts = movegen.generate(board, d1, d2)
    assert len(boards) >= 1
    # Distinct plays reach distinct positions.
    assert len({b.tobytes() for b in boards}) == len(boards)
    mover_before = int(board[board > 0].sum())
    opponent_before = int(-board[board < 0].sum())
    max_moves = 4 if d1 == d2 else 2
    depth = int(counts.max())
    for b, m, c in zip(boards, moves, counts):
        # Every play uses the same (maximal) number of dice, and replays to its result.
        assert c == depth <= max_moves
        assert np.array_equal(replay(board, m, int(c)), b)
        # Checker conservation: the opponent's checkers are all still there (bar included);
        # the mover's checkers only leave by bearing off.
        assert int(-b[b < 0].sum()) == opponent_before
        off = sum(1 for s, t, _ in m[:c] if t == 0)
        assert int(b[b > 0].sum()) == mover_before - off
        # The bar enters first.
        if board[25] > 0:
            assert c == 0 or m[0][0] == 25


def test_larger_die_rule() -> None:
    # One checker on 8 and the 2-point blocked: with 6-4 the 6 cannot go first, so the
    # only play is 8/4 and then the 6 bears off from the 4-point (now the highest).
    board = [0] * 26
    board[8] = 1
    board[2] = -2
    plays = Position(board).legal_plays(6, 4)
    assert [" ".join(str(m) for m in p.moves) for p in plays] == ["8/4 4/off"]
    # 6-5 from 7 with 1 and 2 blocked: either die alone, never both -> the 6 must be played.
    board = [0] * 26
    board[7] = 1
    board[1] = -2
    board[2] = -2
    board[12] = 1  # keeps the mover out of the bear-off
    plays = Position(board).legal_plays(6, 5)
    assert all(len(p) == 2 or p.moves[0].pips == 6 for p in plays)


def test_bear_off_with_larger_die_only_from_highest_point() -> None:
    board = [0] * 26
    board[4] = 1
    board[2] = 1
    plays = Position(board).legal_plays(6, 1)
    texts = sorted(" ".join(str(m) for m in p.moves) for p in plays)
    # The 6 bears off from the 4-point (highest); the 1 moves a checker or bears off the 1.
    assert all("2/off" not in t or "4/" in t for t in texts)
    assert any(t.startswith("4/off") for t in texts)


def test_dance_is_a_pass() -> None:
    board = [0] * 26
    board[25] = 1
    board[6] = 1
    for p in range(19, 25):
        board[p] = -2
    plays = Position(board).legal_plays(3, 5)
    assert plays.is_pass()
    assert len(plays) == 1 and len(plays[0]) == 0


def test_doubles_play_four_times() -> None:
    plays = Position().legal_plays(6, 6)
    assert all(len(p) == 4 for p in plays)
    assert Play((Move(24, 18), Move(24, 18), Move(13, 7), Move(13, 7))) in plays


def test_membership_and_errors() -> None:
    plays = Position().legal_plays(3, 1)
    assert Play((Move(8, 5), Move(6, 5))) in plays
    assert Play((Move(6, 5), Move(8, 5))) in plays  # any order
    assert Play((Move(24, 20),)) not in plays
    assert 42 not in plays
    with pytest.raises(IllegalPlayError):
        plays.index(Play((Move(13, 9),)))
    with pytest.raises(IllegalPlayError, match="die"):
        Position().legal_plays(0, 3)


def test_the_index_of_a_doubles_plays_finds_the_same_plays_as_looking_through_them() -> None:
    """A double's repeats are found through the index in the move generator's buffers (constant
    time each), a caller's own buffer of MAX_PLAYS hashes looks through the kept plays: both give
    the same plays in the same order, on every double of the oracle, one generation after another
    (the index is never cleared, only stamped)."""
    cases = [c for c in load_oracle() if c["dice"][0] == c["dice"][1]]
    assert len(cases) > 100
    indexed = movegen.play_buffers()
    assert indexed[3].shape[0] == movegen.HASHES_SIZE
    plain = (*indexed[:3], np.empty(movegen.MAX_PLAYS, np.int64))
    most = 0
    for case in cases:
        board = Position(case["pid"]).array()
        d1, d2 = case["dice"]
        n = movegen.generate_into(board, d1, d2, *plain, False)
        kept = (indexed[0][:n].copy(), indexed[1][:n].copy(), indexed[2][:n].copy())
        assert movegen.generate_into(board, d1, d2, *indexed, False) == n
        assert (indexed[0][:n] == kept[0]).all() and (indexed[1][:n] == kept[1]).all() and (indexed[2][:n] == kept[2]).all()
        assert n == len(case["results"])  # and GNU Backgammon's count
        most = max(most, n)
    assert most > 100  # doubles with hundreds of plays are among them

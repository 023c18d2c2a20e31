"""Bear-off tables: the perfect hash, GNU Backgammon's values, exact cases, files and builds."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gammon import Position
from gammon.bearoff import (
    FIRST_OFF,
    BearoffEvaluator,
    OneSidedTable,
    TwoSidedTable,
    best_play,
    defaults,
    onesided,
    perfect_hash,
    position_count,
    rank,
    twosided,
    unrank,
)
from gammon.bearoff.perfect_hash import BINOMIAL, rank_batch, unrank_batch
from gammon.errors import BearoffCoverageError, BearoffTableError

VECTORS = Path(__file__).parent / "vectors" / "bearoff"
PROBABILITY = 2e-5
MEAN = 1e-3
EQUITY = 2e-4


@pytest.fixture(scope="module")
def tables(bearoff_cache: Path) -> tuple[OneSidedTable, TwoSidedTable]:
    return defaults.onesided(), defaults.twosided()


# -- the perfect hash ------------------------------------------------------------------------
def test_paper_ordering() -> None:
    # Table 1 of Benjamin and Ross: (off, points 1..6) -> index.
    assert rank([0, 0, 0, 0, 0, 0]) == 0
    assert rank([1, 0, 0, 0, 0, 0]) == 1
    assert rank([0, 0, 0, 0, 0, 1]) == 6
    assert rank([2, 0, 0, 0, 0, 0]) == 7
    assert rank([1, 1, 0, 0, 0, 0]) == 8
    assert rank([1, 0, 0, 0, 0, 1]) == 12
    # Table 1 numbers (12,3,0,...) 13, skipping the 15 other two-checker lists 022...066; its
    # formula, its example 8887 and the lexicographic order all give 28.
    assert rank([0, 2, 0, 0, 0, 0]) == 13
    assert rank([3, 0, 0, 0, 0, 0]) == 28
    assert rank([3, 3, 2, 0, 2, 1]) == 8887
    assert rank([0, 0, 0, 0, 0, 15]) == 54263
    assert position_count(6, 15) == 54264
    assert position_count(10, 15) == 3268760
    assert position_count(6, 6) ** 2 == 853776


def test_lexicographic_order_of_sorted_checker_lists() -> None:
    # The paper's definition itself, for a small case: list each checker's point (0 = off).
    def checker_list(counts: tuple[int, ...], total: int) -> tuple[int, ...]:
        points = [p + 1 for p, c in enumerate(counts) for _ in range(c)]
        return tuple([0] * (total - len(points)) + points)

    counts = unrank_batch(BINOMIAL, np.arange(position_count(4, 5)), 4)
    lists = [checker_list(tuple(c), 5) for c in counts.tolist()]
    assert lists == sorted(lists)


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 10).flatmap(lambda p: st.tuples(st.just(p), st.lists(st.integers(0, 15), min_size=p, max_size=p)))
)
def test_rank_unrank_round_trip(case: tuple[int, list[int]]) -> None:
    points, counts = case
    while sum(counts) > 15:
        counts[counts.index(max(counts))] -= 1
    index = rank(counts)
    assert 0 <= index < position_count(points, 15)
    assert index < position_count(points, sum(counts))  # the <= c checkers form a prefix
    assert unrank(index, points) == tuple(counts)


def test_batch_forms_cover_every_index() -> None:
    for points, checkers in ((1, 15), (3, 7), (6, 15)):
        indices = np.arange(position_count(points, checkers))
        counts = unrank_batch(BINOMIAL, indices, points)
        assert counts.sum(axis=1).max() == checkers
        assert np.array_equal(rank_batch(BINOMIAL, counts.astype(np.int64)), indices)


def test_bad_hash_input_raises() -> None:
    with pytest.raises(ValueError):
        rank([8, 8, 0, 0, 0, 0])
    with pytest.raises(ValueError):
        rank([-1, 0, 0, 0, 0, 0])
    with pytest.raises(ValueError):
        unrank(54264)


# -- GNU Backgammon's values -----------------------------------------------------------------
def test_onesided_matches_gnu_backgammon(tables: tuple[OneSidedTable, TwoSidedTable]) -> None:
    table, _ = tables
    cases = json.loads((VECTORS / "onesided_6x15_sample.json").read_text())["positions"]
    assert len(cases) == 2006
    worst = {"dist": 0.0, "mean": 0.0}
    for case in cases:
        counts = case["counts"]
        for which, dist_key, mean_key in (
            (0, "dist", "mean_rolls"),
            (FIRST_OFF, "dist_first_off", "mean_rolls_first_off"),
        ):
            got = table.distribution(counts, which)
            want = {int(k): v for k, v in case[dist_key].items()}
            for n in set(got) | set(want):
                worst["dist"] = max(worst["dist"], abs(got.get(n, 0.0) - want.get(n, 0.0)))
            mean = table.mean_rolls(counts) if which == 0 else table.mean_rolls_first_off(counts)
            worst["mean"] = max(worst["mean"], abs(mean - case[mean_key]))
    assert worst["dist"] <= PROBABILITY
    assert worst["mean"] <= MEAN


def test_twosided_matches_gnu_backgammon(tables: tuple[OneSidedTable, TwoSidedTable]) -> None:
    _, table = tables
    cases = json.loads((VECTORS / "twosided_6x6_sample.json").read_text())["positions"]
    assert len(cases) == 1500
    fields = ("cubeless_equity", "cubeful_equity_owned", "cubeful_equity_centred", "cubeful_equity_opponent_owns")
    worst = np.zeros(4)
    worst_p = 0.0
    for case in cases:
        got = table.equities(case["on_roll_counts"], case["opponent_counts"])
        worst = np.maximum(worst, np.abs(np.array(got) - [case[f] for f in fields]))
        p = table.p_win(case["on_roll_counts"], case["opponent_counts"])
        # The vectors give the equity to 4 decimals, so P(win) = (1 + e) / 2 only to 2.5e-5.
        worst_p = max(worst_p, abs(p - (1 + case["cubeless_equity"]) / 2))
        assert Position(case["position_id"]).array()[1:7].tolist() == case["on_roll_counts"]
    assert worst.max() <= EQUITY
    assert worst_p <= 2.5e-5 + 1e-9


# -- exact values ----------------------------------------------------------------------------
def test_known_exact_values(tables: tuple[OneSidedTable, TwoSidedTable]) -> None:
    table, pair = tables
    assert table.distribution([1, 0, 0, 0, 0, 0]) == {1: 1.0}
    assert table.mean_rolls([1, 0, 0, 0, 0, 0]) == 1.0
    six = table.distribution([0, 0, 0, 0, 0, 1])
    assert abs(six[1] - 27 / 36) <= PROBABILITY and abs(six[2] - 9 / 36) <= PROBABILITY
    assert table.distribution([0, 0, 0, 0, 0, 0]) == {0: 1.0}
    assert table.epc([0, 0, 0, 0, 0, 1]) == pytest.approx(1.25 * 49 / 6, abs=1e-3)
    # Two checkers on the ace point: any roll; four on it: only doubles finish in one roll.
    assert table.distribution([2, 0, 0, 0, 0, 0]) == {1: 1.0}
    four = table.distribution([4, 0, 0, 0, 0, 0])
    assert abs(four[1] - Fraction(1, 6)) <= PROBABILITY
    # Fifteen checkers, none off: the first one comes off on the first roll from the ace point.
    assert table.distribution([15, 0, 0, 0, 0, 0], FIRST_OFF) == {1: 1.0}
    assert table.distribution([0, 0, 0, 0, 0, 14], FIRST_OFF) == {0: 1.0}
    # One checker each on the six-point, side on roll: it misses 1/4, then the other hits 3/4.
    assert abs(pair.p_win([0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1]) - 13 / 16) <= PROBABILITY
    assert pair.p_win([1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 6]) == 1.0
    # Money cube, centred: after a miss the opponent doubles and we pass, so 3/4 - 1/4.
    _, owned, centred, _ = pair.equities([0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1])
    assert centred == pytest.approx(0.5, abs=1e-4) and owned == pytest.approx(0.625, abs=1e-4)


def test_rolls_only_shrink_and_probabilities_sum_to_one(tables: tuple[OneSidedTable, TwoSidedTable]) -> None:
    table, _ = tables
    for index in range(0, table.size, 97):
        for which in (0, FIRST_OFF):
            dist = table.distribution(index, which)
            assert math.isclose(sum(dist.values()), 1.0, abs_tol=1e-9)
    # More checkers never need fewer rolls on average.
    assert table.mean_rolls([0, 0, 0, 0, 0, 15]) > table.mean_rolls([0, 0, 0, 0, 0, 14])


# -- the evaluator ---------------------------------------------------------------------------
def _board(mover: list[int], opponent: list[int]) -> np.ndarray:
    board = np.zeros(26, np.int8)
    board[1:7] = mover
    for p, c in enumerate(opponent):
        board[24 - p] = -c
    return board


def test_evaluator_uses_two_sided_table_exactly(tables: tuple[OneSidedTable, TwoSidedTable]) -> None:
    _, pair = tables
    evaluator = BearoffEvaluator()
    board = _board([1, 2, 0, 1, 0, 0], [0, 1, 1, 0, 2, 0])
    assert evaluator.covers(board)
    probabilities = evaluator.on_roll(board)
    assert probabilities[0] == pytest.approx(pair.p_win([1, 2, 0, 1, 0, 0], [0, 1, 1, 0, 2, 0]), abs=1e-12)
    assert probabilities[1:].tolist() == [0.0, 0.0, 0.0, 0.0]


def test_evaluator_one_sided_race(tables: tuple[OneSidedTable, TwoSidedTable]) -> None:
    evaluator = BearoffEvaluator()
    boards = np.stack(
        [
            _board([0, 0, 0, 0, 0, 15], [0, 0, 0, 0, 0, 15]),
            _board([1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 15]),
            _board([0, 0, 0, 0, 0, 15], [1, 0, 0, 0, 0, 0]),
            _board([3, 3, 3, 2, 2, 1], [2, 2, 2, 2, 2, 2]),
        ]
    )
    out = evaluator.on_roll_batch(boards)
    for row, board in zip(out, boards):
        assert np.allclose(row, evaluator.on_roll(board))
        win, win_gammon, win_backgammon, lose_gammon, lose_backgammon = row
        assert 0 <= win_gammon <= win <= 1 and 0 <= lose_gammon <= 1 - win
        assert win_backgammon == lose_backgammon == 0
    assert 0.5 < out[0, 0] < 0.7  # the side on roll has the edge in an even race
    assert out[1].tolist() == [1.0, 1.0, 0.0, 0.0, 0.0]  # off at once; the other has all 15 on
    # Off next roll against 15 on the six-point: gammon unless the first roll bears one off:
    # any 6 (11/36), or one checker all the way with 5-1, 4-2, 3-3 or 2-2 (6/36).
    assert out[2, 0] == 0.0 and out[2, 3] == pytest.approx(19 / 36, abs=PROBABILITY)


def test_evaluator_refuses_uncovered_positions(tables: tuple[OneSidedTable, TwoSidedTable]) -> None:
    evaluator = BearoffEvaluator()
    opening = Position().array()
    assert not evaluator.covers(opening)
    with pytest.raises(BearoffCoverageError):
        evaluator.on_roll(opening)
    with pytest.raises(BearoffCoverageError):
        evaluator.best_play(Position(), 3, 1)


def test_best_play_maximises_win_chance(tables: tuple[OneSidedTable, TwoSidedTable]) -> None:
    _, pair = tables
    evaluator = BearoffEvaluator()
    mover, opponent = [1, 0, 2, 0, 0, 1], [0, 0, 1, 1, 0, 1]
    position = Position(_board(mover, opponent).tolist())
    for d1, d2 in ((6, 5), (2, 1), (4, 4), (3, 1)):
        play = evaluator.best_play(position, d1, d2)
        plays = list(position.legal_plays(d1, d2))
        assert play in plays
        chances = []
        for candidate in plays:
            after = position.apply(candidate)  # opponent to act
            board = after.array()
            chances.append(1 - pair.p_win(board[1:7].tolist(), [int(-board[25 - p]) for p in range(1, 7)]))
        assert chances[plays.index(play)] == max(chances)
    # Fewest expected rolls outside the two-sided table: 6-5 with checkers on 6 and 5 bears both off.
    big = Position(_board([2, 2, 2, 2, 3, 4], [0, 0, 0, 0, 5, 10]).tolist())
    assert sorted((m.source, m.target) for m in best_play(big, 6, 5)) == [(5, 0), (6, 0)]


# -- files -----------------------------------------------------------------------------------
@pytest.fixture()
def small_table(tmp_path: Path) -> Path:
    return onesided.build(tmp_path / "small.bearoff", 3, 5)


def test_damaged_file_is_an_error(small_table: Path) -> None:
    OneSidedTable(small_table)
    data = bytearray(small_table.read_bytes())
    data[-10] ^= 0xFF
    small_table.write_bytes(bytes(data))
    with pytest.raises(BearoffTableError, match="checksum"):
        OneSidedTable(small_table)


def test_truncated_and_foreign_files_are_errors(small_table: Path, tmp_path: Path) -> None:
    data = small_table.read_bytes()
    cut = tmp_path / "cut.bearoff"
    cut.write_bytes(data[:-64])
    with pytest.raises(BearoffTableError, match="truncated"):
        OneSidedTable(cut)
    foreign = tmp_path / "foreign.bearoff"
    foreign.write_bytes(b"gnubg-OS-06-15-1-1-0xxxxxxxxxxxxxxxxxxx\n" + bytes(100))
    with pytest.raises(BearoffTableError, match="not a gammon bear-off table"):
        OneSidedTable(foreign)
    with pytest.raises(BearoffTableError, match="kind"):
        TwoSidedTable(small_table)
    with pytest.raises(BearoffTableError, match="no such"):
        OneSidedTable(tmp_path / "missing.bearoff")
    header = bytearray(data)
    header[8] = 99  # format version
    newer = tmp_path / "newer.bearoff"
    newer.write_bytes(bytes(header))
    with pytest.raises(BearoffTableError, match="version"):
        OneSidedTable(newer)
    header = bytearray(data)
    header[11] = 4  # points: the size checks agree, the checksum does not
    wrong = tmp_path / "wrong.bearoff"
    wrong.write_bytes(bytes(header))
    with pytest.raises(BearoffTableError):
        OneSidedTable(wrong)


def test_damaged_cached_table_is_rebuilt(bearoff_cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = bearoff_cache / twosided.table_name(6)
    good = path.read_bytes()
    damaged = bytearray(good)
    damaged[4096] ^= 1
    path.write_bytes(bytes(damaged))
    defaults.clear_loaded()
    try:
        table = defaults.twosided()
        assert path.read_bytes() == good
        assert "checksum" in capsys.readouterr().err
        assert table.p_win([0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1]) == pytest.approx(13 / 16, abs=PROBABILITY)
    finally:
        defaults.clear_loaded()


class _Stop(Exception):
    pass


def _interrupt_after(calls: int):
    seen = {"n": 0}

    def progress(done: int, total: int) -> None:
        seen["n"] += 1
        if seen["n"] > calls:
            raise KeyboardInterrupt

    return progress


@pytest.mark.parametrize("kind", ["onesided", "twosided"])
def test_interrupted_build_resumes(tmp_path: Path, kind: str) -> None:
    def build(path: Path, **kw: object) -> object:
        if kind == "onesided":
            return onesided.build(path, 4, 15, checkpoint_seconds=0, **kw)
        return twosided.build(path, 4, checkpoint_seconds=0, **kw)
    whole = build(tmp_path / "whole.bearoff")
    target = tmp_path / "resumed.bearoff"
    with pytest.raises(KeyboardInterrupt):
        build(target, progress=_interrupt_after(5))
    partial = target.with_name(target.name + ".partial")
    assert partial.exists() and not target.exists()
    seen: list[int] = []
    build(target, progress=lambda done, total: seen.append(done))
    assert seen[0] > 0  # it started where the first build stopped
    assert not partial.exists()
    assert target.read_bytes() == whole.read_bytes()


def test_builds_of_other_sizes(tmp_path: Path) -> None:
    # Seven points: a checker on the 7-point must come home before anything bears off.
    table = OneSidedTable(onesided.build(tmp_path / "seven.bearoff", 7, 3))
    assert table.size == position_count(7, 3)
    # One roll takes it off with 7 pips or more: 18 non-doubles and the doubles from 2-2 up.
    assert table.distribution([0, 0, 0, 0, 0, 0, 1])[1] == pytest.approx(23 / 36, abs=PROBABILITY)
    assert table.distribution([0, 0, 0, 0, 0, 0, 2])[1] < table.distribution([0, 0, 0, 0, 0, 2, 0])[1]
    assert table.mean_rolls([0, 0, 0, 0, 0, 0, 1]) > table.mean_rolls([0, 0, 0, 0, 0, 1, 0])
    with pytest.raises(BearoffCoverageError):
        table.index([0, 0, 0, 0, 0, 0, 4])
    pair = TwoSidedTable(twosided.build(tmp_path / "two.bearoff", 2))
    assert pair.size == position_count(6, 2)
    assert pair.p_win([1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 2]) == 1.0


def test_small_twosided_agrees_with_the_default(tables: tuple[OneSidedTable, TwoSidedTable], tmp_path: Path) -> None:
    # Indices of up to c checkers are a prefix, so a 6x3 table is a corner of the 6x6 one.
    _, big = tables
    small = TwoSidedTable(twosided.build(tmp_path / "three.bearoff", 3))
    n = small.size
    corner = big.values.reshape(big.size, big.size, 4)[:n, :n]
    assert np.array_equal(corner, small.values.reshape(n, n, 4))


def test_perfect_hash_module_is_the_one_used() -> None:
    assert perfect_hash.rank([0, 0, 0, 0, 0, 1]) == 6

"""The one worker pool: in process, in threads and in processes, results in the tasks' order."""

from __future__ import annotations

import os

import pytest

from gammon.workers import Workers, available_cores

_SEEN: list[int] = []


def _setup(value: int) -> None:
    _SEEN.append(value)


def _square_and_pid(x: int) -> tuple[int, int]:
    return x * x, os.getpid()


def _span_sum(lo: int, hi: int) -> int:
    return sum(range(lo, hi))


@pytest.mark.parametrize("count, threads", [(1, False), (2, False), (2, True)])
def test_results_come_in_task_order(count: int, threads: bool) -> None:
    with Workers(count, threads=threads) as pool:
        assert [r[0] for r in pool.map(_square_and_pid, range(20))] == [x * x for x in range(20)]
        assert [r[0] for r in pool.imap(_square_and_pid, iter(range(5)))] == [0, 1, 4, 9, 16]
        parts = pool.run(_span_sum, 0, 1000)
        assert sum(parts) == sum(range(1000))


def test_one_worker_runs_here_and_sets_up_here() -> None:
    _SEEN.clear()
    with Workers(1, initializer=_setup, initargs=(7,)) as pool:
        assert {pid for _, pid in pool.map(_square_and_pid, range(3))} == {os.getpid()}
    assert _SEEN == [7]


def test_range_parts() -> None:
    pool = Workers(2, threads=True, smallest_part=100)
    try:
        assert len(pool.run(_span_sum, 0, 150)) == 1  # too small to split
        assert len(pool.run(_span_sum, 0, 10_000)) == 8  # four parts a worker
    finally:
        pool.close()
    assert available_cores() >= 1

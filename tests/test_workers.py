"""The one worker pool: in process, in threads and in processes, results in the tasks' order."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from gammon.record.fields import RecordError
from gammon.workers import JobMemoryError, Jobs, JobsBusy, JobTimeout, Workers, available_cores

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


# -- Jobs: a server's work, each job within a time and a memory budget ------------------------------------
def _nap(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def _take(size: int) -> int:
    return len(bytearray(size))


def _refuse(text: str) -> None:
    raise RecordError("line 1", text)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "State:\tZ" not in Path(f"/proc/{pid}/status").read_text()


def test_jobs_answer_in_other_processes_and_their_errors_come_back_as_themselves() -> None:
    with Jobs(2, seconds=60) as jobs:
        assert jobs.submit(abs, -3).result(60) == 3
        assert jobs.submit(_nap, 0).result(60) != os.getpid()
        with pytest.raises(RecordError, match="line 1: no score"):
            jobs.submit(_refuse, "no score").result(60)


def test_a_job_past_its_time_has_its_worker_killed_and_replaced() -> None:
    with Jobs(1, seconds=60) as jobs:
        before = jobs.submit(_nap, 0).result(60)
        late = jobs.submit(_nap, 600, seconds=0.5)
        with pytest.raises(JobTimeout, match=r"took longer than 0\.5 s"):
            late.result(120)
        assert not _alive(before)  # killed: nothing of the job goes on
        after = jobs.submit(_nap, 0).result(60)
        assert after != before and _alive(after)


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="the memory budget is RLIMIT_AS, read from /proc")
def test_a_job_over_its_memory_fails_and_its_worker_is_replaced() -> None:
    with Jobs(1, seconds=60, memory=256 * 2**20) as jobs:
        before = jobs.submit(_nap, 0).result(60)
        with pytest.raises(JobMemoryError, match="needed more than 256 MiB"):
            jobs.submit(_take, 1024 * 2**20).result(60)
        assert jobs.submit(_take, 64 * 2**20).result(60) == 64 * 2**20  # within the budget, in a new worker
        assert not _alive(before)


def _started_at(seconds: float) -> float:
    started = time.monotonic()  # one clock for every process (Linux: CLOCK_MONOTONIC)
    time.sleep(seconds)
    return started


def test_a_full_queue_refuses_at_once_and_an_urgent_job_goes_first() -> None:
    with Jobs(1, seconds=60, queue=2) as jobs:
        running = jobs.submit(_started_at, 1.0)
        deadline = time.monotonic() + 60
        while not running.running() and time.monotonic() < deadline:  # taken by the worker
            time.sleep(0.01)
        waiting = jobs.submit(_started_at, 0)
        urgent = jobs.submit(_started_at, 0, urgent=True)
        with pytest.raises(JobsBusy, match="busy"):
            jobs.submit(_started_at, 0)
        assert running.result(60) < urgent.result(60) < waiting.result(60)


def test_a_caller_that_stops_waiting_stops_the_job() -> None:
    async def main(jobs: Jobs) -> tuple[int, int]:
        worker = await jobs.run(_nap, 0)
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(jobs.run(_nap, 600), 0.5)
        return worker, await jobs.run(_nap, 0)

    with Jobs(1, seconds=600) as jobs:
        first, second = asyncio.run(main(jobs))
    assert first != second and not _alive(first)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().split()[2] != "Z"  # a zombie has died: only its parent's reaping is left
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux's /proc")
def test_jobs_workers_die_with_their_parent_and_not_of_a_servers_sigterm_handler() -> None:
    # A server forks its job workers after installing its own SIGTERM handler, and they hold its
    # listening socket: killed with -9, the server must not leave them running with the port taken.
    import signal
    import subprocess
    import sys

    program = (
        "import os, signal, sys, time\n"
        "signal.signal(signal.SIGTERM, lambda *_: None)\n"  # as uvicorn's handler: it returns
        "from gammon.workers import Jobs\n"
        "jobs = Jobs(2, seconds=60)\n"
        "print(*(jobs.submit(os.getpid).result() for _ in range(4)), flush=True)\n"
        "time.sleep(600)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", program], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    workers = {int(pid) for pid in parent.stdout.readline().split()}
    assert workers and parent.pid not in workers and all(_alive(pid) for pid in workers)
    os.kill(min(workers), signal.SIGTERM)  # the default action: a worker told to stop, stops
    deadline = time.monotonic() + 60
    while _alive(min(workers)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(min(workers))
    parent.kill()
    parent.wait()
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline + 60:
        time.sleep(0.05)
    assert not any(_alive(pid) for pid in workers), "a job worker outlived its killed parent"

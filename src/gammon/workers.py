"""Work on every core: one pool for duels, trainers and the bear-off tables' builders.

:class:`Workers` runs a function over tasks in forked processes (Python work: duels,
training rounds), in threads (compiled kernels that release the GIL: the tables' levels),
or, for one worker, in this process with nothing started. Results always come back in the
tasks' order, so what a job computes never depends on how many workers it had. Waiting
for the results sleeps rather than spins, so a busy machine's other work is not slowed by
us, nor we by an OpenMP spin-wait.

>>> with Workers(1) as pool:
...     pool.map(abs, [-1, 2, -3]), pool.run(lambda lo, hi: hi - lo, 0, 10)
([1, 2, 3], [10])
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from .errors import GammonError

__all__ = ["RAY_EXTRA", "RayError", "Workers", "available_cores", "ray_imap", "ray_module"]

#: How to get Ray, an optional extra.
RAY_EXTRA = "pip install gammon[ray]"


def available_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


class Workers:
    """``count`` workers (default: every core): processes, or threads with ``threads``.

    ``initializer(*initargs)`` runs once in each worker process (in this process for one
    worker), to set up what the tasks share, such as the players of a duel. :meth:`run`
    splits a range into parts: about ``parts_per_worker`` a worker (so one that finishes
    early takes another), none smaller than ``smallest_part`` items. Leaving the
    ``with`` block (or :meth:`close`) stops the workers: processes at once, threads after
    the parts already running, dropping those not started (after an interrupt).
    """

    def __init__(self, count: int | None = None, *, threads: bool = False,
                 initializer: Callable[..., object] | None = None, initargs: tuple[Any, ...] = (),
                 parts_per_worker: int = 4, smallest_part: int = 64) -> None:
        self.count = max(1, count or available_cores())
        self.threads = threads
        self.parts_per_worker, self.smallest_part = parts_per_worker, smallest_part
        self._threads: ThreadPoolExecutor | None = None
        self._processes: Any = None
        if self.count == 1:
            if initializer is not None:
                initializer(*initargs)
        elif threads:
            self._threads = ThreadPoolExecutor(self.count, initializer=initializer, initargs=initargs)
        else:
            methods = multiprocessing.get_all_start_methods()
            context = multiprocessing.get_context("fork" if "fork" in methods else None)
            self._processes = context.Pool(self.count, initializer=initializer, initargs=initargs)

    def imap(self, function: Callable[[Any], Any], tasks: Iterable[Any]) -> Iterator[Any]:
        """``function(task)`` for each task, yielded in the tasks' order as they finish."""
        if self._processes is not None:
            return iter(self._processes.imap(function, tasks))
        if self._threads is not None:
            return self._threads.map(function, tasks)
        return map(function, tasks)

    def map(self, function: Callable[[Any], Any], tasks: Iterable[Any]) -> list[Any]:
        """``function(task)`` for each task, in the tasks' order."""
        return list(self.imap(function, tasks))

    def run(self, kernel: Callable[[int, int], Any], lo: int, hi: int) -> list[Any]:
        """``kernel(a, b)`` over consecutive parts ``[a, b)`` of ``[lo, hi)``, their results in order."""
        parts = min(self.count * self.parts_per_worker, max(1, (hi - lo) // self.smallest_part))
        if self.count == 1 or parts == 1:
            return [kernel(lo, hi)]
        cuts = [lo + (hi - lo) * k // parts for k in range(parts + 1)]
        return self.map(_Span(kernel), itertools.pairwise(cuts))

    def submit(self, function: Callable[..., Any], *args: Any) -> Future[Any]:
        """``function(*args)`` on a worker, as a future that a server's event loop can await
        (``asyncio.wrap_future``) while it goes on serving; one worker runs it in a thread."""
        future: Future[Any] = Future()
        if self._processes is not None:
            self._processes.apply_async(function, args, callback=future.set_result, error_callback=future.set_exception)
            return future
        if self._threads is None:
            self._threads = ThreadPoolExecutor(1)
        return self._threads.submit(function, *args)

    def close(self) -> None:
        if self._processes is not None:
            self._processes.terminate()
            self._processes.join()
            self._processes = None
        if self._threads is not None:
            self._threads.shutdown(wait=True, cancel_futures=True)
            self._threads = None

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Span:
    """``kernel(a, b)`` for a part ``(a, b)``: a picklable adapter for :meth:`Workers.run`."""

    def __init__(self, kernel: Callable[[int, int], Any]) -> None:
        self.kernel = kernel

    def __call__(self, part: tuple[int, int]) -> Any:
        return self.kernel(*part)


class RayError(GammonError, RuntimeError):
    """Ray is not installed, or the cluster named cannot be reached; the message says what to do."""


def ray_module() -> Any:
    """Ray, or a :class:`RayError` saying how to install it."""
    try:
        import ray
    except ImportError:
        raise RayError(f"--ray needs Ray, which is not installed: {RAY_EXTRA}") from None
    return ray


def ray_imap(address: str, function: Callable[..., Any], shared: tuple[Any, ...], tasks: Iterable[Any]) -> Iterator[Any]:
    """``function(*shared, task)`` for each task as Ray tasks, yielded in the tasks' order.

    ``shared`` goes to the cluster once (``ray.put``); ``auto`` joins the running cluster (or
    the instance this process already started with ``ray.init``). Closing the iterator early
    cancels the tasks still queued. The tasks' order fixes the results, as with
    :class:`Workers`, so a seeded job gives the same answer on a cluster as on this machine.
    """
    ray = ray_module()
    if not ray.is_initialized():
        try:
            ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
        except (ConnectionError, ValueError, RuntimeError) as error:
            raise RayError(f"--ray {address}: cannot reach a Ray cluster ({error}); start one with "
                           "'ray start --head', or name its address") from None
    remote = ray.remote(function)
    refs = [ray.put(value) for value in shared]
    futures = [remote.remote(*refs, task) for task in tasks]
    try:
        for future in futures:
            yield ray.get(future)
    finally:
        for future in futures:
            ray.cancel(future)

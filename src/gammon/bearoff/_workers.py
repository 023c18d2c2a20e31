"""Running a level of a dynamic program on every core: threads calling ``nogil`` kernels.

Each level's positions are split into parts that idle threads pick up; waiting for the
level to finish is the only synchronisation. Sleeping, not spinning, at that barrier keeps
a busy machine's other work (and a loaded build server) from being slowed by us, and us
from being slowed by an OpenMP spin-wait.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor


def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


class Workers:
    """``run(kernel, lo, hi)`` calls ``kernel(a, b)`` over parts of ``[lo, hi)`` and returns their results."""

    def __init__(self, threads: int | None = None, parts_per_thread: int = 4, smallest_part: int = 64) -> None:
        self.threads = max(1, threads or available_cores())
        self.parts = self.threads * parts_per_thread
        self.smallest = smallest_part
        self._pool = ThreadPoolExecutor(self.threads) if self.threads > 1 else None

    def run(self, kernel: Callable[[int, int], int], lo: int, hi: int) -> list[int]:
        parts = min(self.parts, max(1, (hi - lo) // self.smallest))
        if self._pool is None or parts == 1:
            return [kernel(lo, hi)]
        cuts = [lo + (hi - lo) * k // parts for k in range(parts + 1)]
        futures = [self._pool.submit(kernel, a, b) for a, b in itertools.pairwise(cuts)]
        return [f.result() for f in futures]

    def close(self) -> None:
        """Wait for parts already running; drop those not started (after an interrupt)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

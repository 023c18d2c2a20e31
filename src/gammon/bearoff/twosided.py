"""The two-sided table: exact values of races where both sides have few checkers left.

For every pair of positions with at most C checkers each on the six home points it holds,
for the side on roll, the cubeless equity (2 P(win) - 1; with checkers already off there
are no gammons) and the money-game cubeful equities with the cube owned by the side on
roll, centred, and owned by the opponent, as GNU Backgammon stores them: the value of
*rolling now* (no double this turn); the doubling decision is applied one level up, where
the opponent of the side that just moved considers doubling before its roll.

Like GNU Backgammon's, the numbers are 16-bit fixed point (+1 = 32767), each position's
value the truncated 36th of its 21 rolls' best plays, so the tables agree with its files
to the last bit. Each cube state picks its own best play. The rounding drifts from exact
real arithmetic by at most 1.3e-4 in equity (6e-5 in P(win)) over the 6x6 table, about
-1.5e-5 on average.

The side on roll's plays do not depend on the opponent's checkers (there is no contact),
so they are generated once per one-sided position by :func:`gammon.movegen.generate_into`
and reused for every opponent position. A pair is solved after every pair it can reach,
level by level of the sides' summed play depth, each level on all cores. The compiled
part of the build lives in :mod:`gammon.bearoff._twosided_kernels`, loaded by :func:`build`:
reading a built table loads no numba.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from ..errors import BearoffCoverageError, BearoffTableError
from ..workers import Workers
from . import perfect_hash
from .perfect_hash import BINOMIAL, position_count, unrank_batch
from .storage import Contents, Kind, PartialBuild, TableHeader, read_table, write_table

POINTS = 6
MAX_CHECKERS = 12  # 18,564 positions a side: 2.8 GB; more would not fit a machine
CUBELESS, OWNED, CENTRED, OPPONENT_OWNS = 0, 1, 2, 3


def table_name(checkers: int, points: int = POINTS) -> str:
    return f"twosided-{points}x{checkers}.bearoff"


def build(
    path: Path,
    checkers: int = 6,
    points: int = POINTS,
    *,
    progress: Callable[[int, int], None] | None = None,
    checkpoint_seconds: float = 5.0,
    threads: int | None = None,
) -> Path:
    """Build the two-sided table into ``path``, resuming an interrupted build if one is there.

    ``progress(done, total)`` is called as positions are solved. A ``KeyboardInterrupt``
    (or any exception) saves the work done; the next call resumes. ``threads`` defaults
    to every core this process may use.
    """
    if not 1 <= checkers <= MAX_CHECKERS:
        raise BearoffTableError(f"two-sided tables hold 1 to {MAX_CHECKERS} checkers a side, not {checkers}")
    if not 1 <= points <= POINTS:
        raise BearoffTableError(f"two-sided tables span 1 to {POINTS} points, not {points}")
    from ._twosided_kernels import play_depth, solve_level, successors

    path = Path(path)
    size = position_count(points, checkers)
    counts = unrank_batch(BINOMIAL, np.arange(size, dtype=np.int64), points)
    offsets, targets = successors(BINOMIAL, points, counts)
    depth, status = play_depth(offsets, targets, size)
    if status:
        raise BearoffTableError("a play that does not lower the position index: the move generator disagrees")
    bucket_items = np.argsort(depth, kind="stable").astype(np.int64)
    bucket_start = np.searchsorted(depth[bucket_items], np.arange(int(depth.max()) + 2)).astype(np.int64)
    per_depth = np.diff(bucket_start)
    solved = np.cumsum(np.convolve(per_depth, per_depth))  # pairs solved after each level
    levels = len(solved)
    partial = PartialBuild(
        path.with_name(path.name + ".partial"), Kind.TWOSIDED, points, checkers, {"values": ((size * size, 4), "<i2")}
    )
    done = partial.steps if partial.steps <= levels else 0
    workers = Workers(threads, threads=True, smallest_part=16)
    try:
        values = partial.arrays["values"]
        last = time.monotonic()
        if progress:
            progress(int(solved[done - 1]) if done else 0, size * size)

        def solve(a: int, b: int, level: int) -> int:
            return solve_level(values, offsets, targets, size, depth, bucket_start, bucket_items, level, a, b)

        while done < levels:
            workers.run(functools.partial(solve, level=done), 0, size)
            done += 1
            if progress:
                progress(int(solved[done - 1]), size * size)
            if time.monotonic() - last > checkpoint_seconds:
                partial.checkpoint(done)
                last = time.monotonic()
        header = TableHeader(Kind.TWOSIDED, points, checkers, Contents.CUBELESS | Contents.CUBEFUL, size * size)
        write_table(path, header, {"values": values})
    except BaseException:
        workers.close()  # let running parts finish before the arrays' file is flushed
        partial.checkpoint(done)
        partial.close()
        raise
    finally:
        workers.close()
    partial.discard()
    return path


def to_equity(value: int | np.ndarray) -> float | np.ndarray:
    """A stored 16-bit value as an equity in [-1, 1] (GNU Backgammon's reading of it)."""
    return (np.asarray(value, np.float64) + 0.5) / 32767.5 if isinstance(value, np.ndarray) else (value + 0.5) / 32767.5


class TwoSidedTable:
    """A loaded two-sided table, indexed by the one-sided indices of both sides.

    >>> from gammon.bearoff.defaults import twosided
    >>> table = twosided()
    >>> table.p_win([1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1])  # on roll with a checker on the ace point
    1.0
    """

    def __init__(self, path: Path, *, verify: bool = True) -> None:
        self.file = read_table(path, Kind.TWOSIDED, contents=Contents.CUBELESS | Contents.CUBEFUL, verify=verify)
        header = self.file.header
        self.path = Path(path)
        self.points = header.points
        self.checkers = header.checkers
        self.size = position_count(self.points, self.checkers)
        if header.positions != self.size * self.size:
            raise BearoffTableError(f"{path}: {header.positions} positions, expected {self.size**2}")
        values = self.file["values"]
        if values.size != self.size * self.size * 4:
            raise BearoffTableError(f"{path}: values section has {values.size} entries, expected {self.size**2 * 4}")
        self.values = values.reshape(self.size * self.size, 4)

    def index(self, counts: Sequence[int]) -> int:
        return perfect_hash.table_index(counts, self.points, self.checkers)

    def covers(self, on_roll: Sequence[int], opponent: Sequence[int]) -> bool:
        return (
            all(len(c) <= self.points or not any(c[self.points :]) for c in (on_roll, opponent))
            and sum(on_roll) <= self.checkers
            and sum(opponent) <= self.checkers
        )

    def raw(self, on_roll: int | Sequence[int], opponent: int | Sequence[int]) -> np.ndarray:
        """The four stored 16-bit values: cubeless, owned, centred, opponent owns."""
        i = on_roll if isinstance(on_roll, (int, np.integer)) else self.index(on_roll)
        j = opponent if isinstance(opponent, (int, np.integer)) else self.index(opponent)
        if not (0 <= i < self.size and 0 <= j < self.size):
            raise BearoffCoverageError(f"indices ({i}, {j}) are outside [0, {self.size})")
        return self.values[int(i) * self.size + int(j)]

    def equities(
        self, on_roll: int | Sequence[int], opponent: int | Sequence[int]
    ) -> tuple[float, float, float, float]:
        """(cubeless, cube owned, centred, opponent owns) equities of the side on roll."""
        raw = self.raw(on_roll, opponent)
        cubeless, owned, centred, opponent_owns = (float(to_equity(int(v))) for v in raw)
        return cubeless, owned, centred, opponent_owns

    def p_win(self, on_roll: int | Sequence[int], opponent: int | Sequence[int]) -> float:
        """Cubeless probability that the side on roll wins."""
        return (1.0 + float(to_equity(int(self.raw(on_roll, opponent)[CUBELESS])))) / 2.0

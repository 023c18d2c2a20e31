"""The one-sided table: for each position of one side, how many rolls it needs to bear off.

For every position of up to 15 checkers on points 1..P it holds the distribution of the
number of rolls to bear off all checkers, with each roll played to minimise the expected
number of rolls (the paper's EPC is that mean times 49/6), and the distribution of rolls
to bear off the *first* checker, played to minimise its expectation (what saves or wins
gammons).

Numbers are GNU Backgammon's: probabilities are 16-bit fractions of 65535, a position's
distribution is the 36-weighted sum of its successors' rounded to nearest with the
rounding residue put on the most likely count, and a roll is played to the successor with
the smallest sum of ``n * p(n)`` on those fractions (the first such play in generation
order). Computing on the stored fractions rather than exact reals is what makes the tables
agree with GNU Backgammon's to the last bit; exact arithmetic picks a different play in
near ties (expected rolls within about 1e-4) and moves single probabilities by up to 5e-4.

The dynamic program walks positions by pip count (every play lowers it), so the
positions of one level are independent and run on all cores; the plays come from
:func:`gammon.movegen.generate_into`. The compiled part of the build lives in
:mod:`gammon.bearoff._onesided_kernels`, loaded by :func:`build`: reading a built table
loads no numba.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from ..errors import BearoffCoverageError, BearoffTableError
from ..workers import Workers
from . import perfect_hash
from .perfect_hash import BINOMIAL, position_count, unrank_batch
from .storage import (
    ALL_OFF, BAND, FIRST_OFF, ONE, ROLL_LIMIT, Contents, Kind, PartialBuild, TableHeader, read_table, write_table,
)

MAX_POINTS = 10


def table_name(points: int, checkers: int = 15) -> str:
    return f"onesided-{points}x{checkers}.bearoff"


def _levels(points: int, checkers: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Counts of every position, its level, positions ordered by level, where each level starts.

    A play moves two dice's worth of pips, at least two, unless it bears off the last
    checker; so with levels of two pips, ``(pips + 1) // 2``, every play lands on a lower
    level and a level's positions can be solved at once. The kernel checks this.
    """
    size = position_count(points, checkers)
    counts = unrank_batch(BINOMIAL, np.arange(size, dtype=np.int64), points)
    pips = counts.astype(np.int64) @ np.arange(1, points + 1, dtype=np.int64)
    level_of = (pips + 1) // 2
    order = np.argsort(level_of, kind="stable").astype(np.int64)
    bounds = np.searchsorted(level_of[order], np.arange(int(level_of.max()) + 2)).astype(np.int64)
    return counts, level_of, order, bounds


def build(
    path: Path,
    points: int = 6,
    checkers: int = 15,
    *,
    progress: Callable[[int, int], None] | None = None,
    checkpoint_seconds: float = 5.0,
    threads: int | None = None,
) -> Path:
    """Build the one-sided table into ``path``, resuming an interrupted build if one is there.

    ``progress(done, total)`` is called after each pip level (positions solved so far). A
    ``KeyboardInterrupt`` (or any exception) saves the work done; the next call resumes.
    ``threads`` defaults to every core this process may use.
    """
    if not 1 <= points <= MAX_POINTS:
        raise BearoffTableError(f"one-sided tables span 1 to {MAX_POINTS} points, not {points}")
    if not 1 <= checkers <= 15:
        raise BearoffTableError(f"one-sided tables hold 1 to 15 checkers, not {checkers}")
    path = Path(path)
    size = position_count(points, checkers)
    counts, level_of, order, bounds = _levels(points, checkers)
    partial = PartialBuild(
        path.with_name(path.name + ".partial"),
        Kind.ONESIDED,
        points,
        checkers,
        {
            "band": ((size, 2, BAND), "<u2"),
            "start": ((size, 2), "u1"),
            "length": ((size, 2), "u1"),
            "rsum": ((size, 2), "<i8"),
        },
    )
    levels = len(bounds) - 1
    done = partial.steps if partial.steps <= levels else 0
    from ._onesided_kernels import OVERFLOW, solve_positions

    workers = Workers(threads, threads=True)
    try:
        band, start, length, rsum = (partial.arrays[k] for k in ("band", "start", "length", "rsum"))

        def solve(a: int, b: int) -> int:
            return solve_positions(BINOMIAL, points, counts, level_of, order, a, b, band, start, length, rsum)

        last = time.monotonic()
        if progress:
            progress(int(bounds[done]), size)
        while done < levels:
            code = max(workers.run(solve, int(bounds[done]), int(bounds[done + 1])))
            if code == OVERFLOW:
                raise BearoffTableError(f"a distribution spans more than {BAND} rolls; raise BAND")
            if code:
                raise BearoffTableError("a play that does not lower the pip count by two: the move generator disagrees")
            done += 1
            if progress:
                progress(int(bounds[done]), size)
            if time.monotonic() - last > checkpoint_seconds:
                partial.checkpoint(done)
                last = time.monotonic()
        offsets = np.zeros((size, 2), np.int64)
        flat = length.reshape(-1).astype(np.int64)
        offsets.reshape(-1)[1:] = np.cumsum(flat)[:-1]
        keep = np.arange(BAND)[None, None, :] < length[:, :, None]
        data = band[keep]  # row-major: position, then which, then roll
        sections = {
            "start": start.copy(),
            "length": length.copy(),
            "offset": offsets.astype(np.uint32),
            "rolls_sum": rsum.astype(np.uint32),
            "data": data.astype(np.uint16),
        }
        header = TableHeader(Kind.ONESIDED, points, checkers, Contents.DISTRIBUTION | Contents.FIRST_OFF, size)
        write_table(path, header, sections)
    except BaseException:
        workers.close()  # let running parts finish before the arrays' file is flushed
        partial.checkpoint(done)
        partial.close()
        raise
    finally:
        workers.close()
    partial.discard()
    return path


class OneSidedTable:
    """A loaded one-sided table: distributions of rolls to bear off, by position index.

    >>> from gammon.bearoff.defaults import onesided
    >>> table = onesided()
    >>> table.mean_rolls([1, 0, 0, 0, 0, 0])
    1.0
    """

    def __init__(self, path: Path, *, verify: bool = True) -> None:
        self.file = read_table(path, Kind.ONESIDED, contents=Contents.DISTRIBUTION | Contents.FIRST_OFF, verify=verify)
        header = self.file.header
        self.path = Path(path)
        self.points = header.points
        self.checkers = header.checkers
        self.size = header.positions
        if self.size != position_count(self.points, self.checkers):
            raise BearoffTableError(
                f"{path}: {self.size} positions, expected {position_count(self.points, self.checkers)}"
            )
        self.start = self.file["start"].reshape(self.size, 2)
        self.length = self.file["length"].reshape(self.size, 2)
        self.offset = self.file["offset"].reshape(self.size, 2)
        self.rolls_sum = self.file["rolls_sum"].reshape(self.size, 2)
        self.data = self.file["data"]
        last = int(self.offset[-1, 1]) + int(self.length[-1, 1])
        if last != self.data.size or int(self.start.max(initial=0)) >= ROLL_LIMIT:
            raise BearoffTableError(f"{path}: index and data sections disagree")
        # Every entry's slice must lie inside the data and its rolls below the limit: the
        # compiled lookups index without bounds checks, so a damaged index is refused here.
        offset, length, start = (np.asarray(a, np.int64) for a in (self.offset, self.length, self.start))
        if ((offset < 0).any() or (length < 0).any() or (start < 0).any()
                or (offset + length > self.data.size).any() or (start + length > ROLL_LIMIT).any()):
            raise BearoffTableError(f"{path}: an index entry points outside the data section; rebuild the table")

    # -- lookups ------------------------------------------------------------------------
    def index(self, counts: Sequence[int]) -> int:
        """The position index of counts on points 1..P (ace point first)."""
        return perfect_hash.table_index(counts, self.points, self.checkers)

    def _resolve(self, position: int | Sequence[int]) -> int:
        if isinstance(position, (int, np.integer)):
            if not 0 <= int(position) < self.size:
                raise BearoffCoverageError(f"index {position} is outside [0, {self.size})")
            return int(position)
        return self.index(position)

    def distribution(self, position: int | Sequence[int], which: int = ALL_OFF) -> dict[int, float]:
        """P(n rolls) for each n with non-zero probability (``which``: ALL_OFF or FIRST_OFF)."""
        x = self._resolve(position)
        first = int(self.start[x, which])
        offset = int(self.offset[x, which])
        values = self.data[offset : offset + int(self.length[x, which])]
        return {first + i: int(v) / ONE for i, v in enumerate(values) if v}

    def mean_rolls(self, position: int | Sequence[int]) -> float:
        """Expected rolls to bear off every checker (EPC = this times 49/6)."""
        return int(self.rolls_sum[self._resolve(position), ALL_OFF]) / ONE

    def mean_rolls_first_off(self, position: int | Sequence[int]) -> float:
        """Expected rolls to bear off the first checker (0 once one is off)."""
        return int(self.rolls_sum[self._resolve(position), FIRST_OFF]) / ONE

    def epc(self, position: int | Sequence[int]) -> float:
        """Effective pip count: expected rolls times the average roll, 49/6 pips."""
        return self.mean_rolls(position) * 49 / 6

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(start, length, offset, rolls_sum, data) for compiled lookups."""
        return self.start, self.length, self.offset, self.rolls_sum, self.data

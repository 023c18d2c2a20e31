"""The default tables: found in the user's cache, built there on first use.

The folder is ``$GAMMON_CACHE_DIR/bearoff`` when that variable is set (tests point it at
a temporary folder), else ``platformdirs.user_cache_dir("gammon")/bearoff``. Building the
default pair takes a few seconds and shows a progress bar on stderr; a lock file keeps two
processes from building the same table at once (the second waits, then loads).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from ..errors import BearoffTableError
from . import onesided as _onesided
from . import twosided as _twosided

DEFAULT_POINTS = 6
DEFAULT_CHECKERS = 6
CACHE_ENV = "GAMMON_CACHE_DIR"

_loaded: dict[Path, object] = {}
_lock = threading.Lock()


def cache_dir() -> Path:
    """Where the default tables live (created on demand)."""
    root = os.environ.get(CACHE_ENV)
    if root:
        return Path(root) / "bearoff"
    import platformdirs

    return Path(platformdirs.user_cache_dir("gammon")) / "bearoff"


@contextlib.contextmanager
def build_lock(path: Path) -> Iterator[None]:
    """Hold ``<path>.lock`` exclusively while building ``path`` (no-op where flock is missing)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    with open(path.with_name(path.name + ".lock"), "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def progress_bar(
    description: str, *, disable: bool | None = None
) -> tuple[Callable[[int, int], None], Callable[[], None]]:
    """A ``progress(done, total)`` callback drawing a tqdm bar on stderr, and a closer."""
    from tqdm import tqdm

    bar: dict[str, tqdm] = {}

    def update(done: int, total: int) -> None:
        if "bar" not in bar:
            bar["bar"] = tqdm(
                total=total, desc=description, unit="pos", unit_scale=True, file=sys.stderr, disable=disable
            )
        bar["bar"].n = done
        bar["bar"].refresh()

    def close() -> None:
        if "bar" in bar:
            bar["bar"].close()

    return update, close


def ensure_onesided(points: int = DEFAULT_POINTS, folder: Path | None = None, *, quiet: bool = False) -> Path:
    """The path of the one-sided table, building it first if it is not there yet."""
    path = (folder or cache_dir()) / _onesided.table_name(points)
    if not path.exists():
        with build_lock(path):
            if not path.exists():
                update, close = progress_bar(f"bear-off {points}x15 one-sided", disable=True if quiet else None)
                try:
                    _onesided.build(path, points, progress=update)
                finally:
                    close()
    return path


def ensure_twosided(checkers: int = DEFAULT_CHECKERS, folder: Path | None = None, *, quiet: bool = False) -> Path:
    """The path of the two-sided table, building it first if it is not there yet."""
    path = (folder or cache_dir()) / _twosided.table_name(checkers)
    if not path.exists():
        with build_lock(path):
            if not path.exists():
                update, close = progress_bar(f"bear-off 6x{checkers} two-sided", disable=True if quiet else None)
                try:
                    _twosided.build(path, checkers, progress=update)
                finally:
                    close()
    return path


def _load(path: Path, loader: Callable[[Path], object], rebuild: Callable[[], Path]) -> object:
    with _lock:
        table = _loaded.get(path)
        if table is None:
            try:
                table = loader(rebuild())
            except BearoffTableError as error:
                # A damaged cached file is not the user's doing: say so, and rebuild it once.
                print(f"gammon: {error}; rebuilding it", file=sys.stderr)
                with build_lock(path):
                    path.unlink(missing_ok=True)
                table = loader(rebuild())
            _loaded[path] = table
        return table


def onesided(points: int = DEFAULT_POINTS) -> _onesided.OneSidedTable:
    """The cached one-sided table (built on first use), loaded once per process."""
    path = cache_dir() / _onesided.table_name(points)
    return _load(path, _onesided.OneSidedTable, lambda: ensure_onesided(points))  # type: ignore[return-value]


def twosided(checkers: int = DEFAULT_CHECKERS) -> _twosided.TwoSidedTable:
    """The cached two-sided table (built on first use), loaded once per process."""
    path = cache_dir() / _twosided.table_name(checkers)
    return _load(path, _twosided.TwoSidedTable, lambda: ensure_twosided(checkers))  # type: ignore[return-value]


def clear_loaded() -> None:
    """Forget the tables loaded so far (tests that swap cache folders need this)."""
    with _lock:
        _loaded.clear()

"""The default tables: found in the user's cache, built there on first use.

The folder is ``$GAMMON_CACHE_DIR/bearoff`` when that variable is set (tests point it at
a temporary folder), else ``platformdirs.user_cache_dir("gammon")/bearoff``. Building the
default pair takes a few seconds and shows a progress bar on stderr; a lock file keeps two
processes from building the same table at once (the second waits, then loads).

A cache folder that cannot be written (read-only, a file in its place) still answers: the
missing tables are built in a temporary folder for this process, and stderr says so once.
A folder or a named pipe where a table should be is refused, never opened nor deleted.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from typing import TypeVar, cast
from pathlib import Path

from ..compiled import CACHE_ENV, cache_root
from ..errors import BearoffTableError, TableFolderError
from . import onesided as _onesided
from . import twosided as _twosided
from .storage import special_file

DEFAULT_POINTS = 6
DEFAULT_CHECKERS = 6

_loaded: dict[Path, object] = {}
T = TypeVar("T")
_lock = threading.Lock()
_temporary: list[Path] = []  # the folder used instead of an unwritable cache, once made


def cache_dir() -> Path:
    """Where the default tables live (created on demand), beside the compiled code."""
    return cache_root() / "bearoff"


def _unwritable(folder: Path, error: OSError) -> TableFolderError:
    return TableFolderError(folder, error.strerror or str(error))


@contextlib.contextmanager
def build_lock(path: Path) -> Iterator[None]:
    """Hold ``<path>.lock`` exclusively while building ``path`` (no-op where flock is missing).

    A folder that cannot be made or written raises :class:`TableFolderError` naming it.
    """
    lock = path.with_name(path.name + ".lock")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise _unwritable(path.parent, error) from None
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    kind = special_file(lock)
    if kind is not None:
        raise BearoffTableError(f"{lock}: {kind}, not a lock file; move it out of the way")
    try:
        handle = open(lock, "a+b")
    except OSError as error:
        raise _unwritable(path.parent, error) from None
    with handle:
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


def _exists(path: Path) -> bool:
    """Whether ``path`` exists; a folder that cannot even be looked into is an unwritable one."""
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError as error:
        raise _unwritable(path.parent, error) from None
    return True


def ensure_onesided(points: int = DEFAULT_POINTS, folder: Path | None = None, *, quiet: bool = False) -> Path:
    """The path of the one-sided table, building it first if it is not there yet."""
    path = (folder or cache_dir()) / _onesided.table_name(points)
    if not _exists(path):
        with build_lock(path):
            if not _exists(path):
                update, close = progress_bar(f"bear-off {points}x15 one-sided", disable=True if quiet else None)
                try:
                    _onesided.build(path, points, progress=update)
                finally:
                    close()
    return path


def ensure_twosided(checkers: int = DEFAULT_CHECKERS, folder: Path | None = None, *, quiet: bool = False) -> Path:
    """The path of the two-sided table, building it first if it is not there yet."""
    path = (folder or cache_dir()) / _twosided.table_name(checkers)
    if not _exists(path):
        with build_lock(path):
            if not _exists(path):
                update, close = progress_bar(f"bear-off 6x{checkers} two-sided", disable=True if quiet else None)
                try:
                    _twosided.build(path, checkers, progress=update)
                finally:
                    close()
    return path


def import_builders() -> None:
    """Import the kernels that build the default tables when one of them is missing: a caller
    about to compile every kernel it imported (:func:`gammon.compiled.prepare`, a server's start)
    compiles the builders with the rest, on every core, instead of at the build."""
    folder = cache_dir()
    try:
        built = _exists(folder / _onesided.table_name(DEFAULT_POINTS)) and \
            _exists(folder / _twosided.table_name(DEFAULT_CHECKERS))
    except TableFolderError:  # the build says what is wrong with the folder
        return
    if not built:
        from . import _onesided_kernels, _twosided_kernels  # noqa: F401


def _temporary_folder(reason: TableFolderError) -> Path:
    """The folder standing in for an unwritable cache: made on first need, removed at exit."""
    if not _temporary:
        try:
            folder = Path(tempfile.mkdtemp(prefix="gammon-bearoff-"))
        except OSError as error:
            raise TableFolderError(
                reason.folder, reason.reason, f"and no temporary folder either ({error.strerror or error})"
            ) from None
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        _temporary.append(folder)
        print(
            f"gammon: {reason.folder}: cannot write bear-off tables there ({reason.reason}); building them in "
            f"{folder} for this run only (set {CACHE_ENV} to a writable folder to keep them)",
            file=sys.stderr,
        )
    return _temporary[0]


def _open_or_build(path: Path, loader: Callable[[Path], T], build: Callable[[Path], Path]) -> T:
    path = build(path.parent)
    try:
        return loader(path)
    except TableFolderError:
        raise
    except BearoffTableError as error:
        if special_file(path) is not None:
            raise  # a folder or a pipe is someone's: refused, never deleted
        # A damaged cached file is not the user's doing: say so, and rebuild it once.
        print(f"gammon: {error}; rebuilding it", file=sys.stderr)
        with build_lock(path):
            try:
                path.unlink(missing_ok=True)
            except OSError as unlink_error:
                raise _unwritable(path.parent, unlink_error) from None
        return loader(build(path.parent))


def _load(path: Path, loader: Callable[[Path], T], build: Callable[[Path], Path]) -> T:
    with _lock:
        loaded = _loaded.get(path)
        if loaded is not None:
            return cast(T, loaded)  # the one loader of this path made it
        try:
            table = _open_or_build(path, loader, build)
        except TableFolderError as error:
            table = _open_or_build(_temporary_folder(error) / path.name, loader, build)
        _loaded[path] = table
        return table


def onesided(points: int = DEFAULT_POINTS) -> _onesided.OneSidedTable:
    """The cached one-sided table (built on first use), loaded once per process."""
    path = cache_dir() / _onesided.table_name(points)
    return _load(
        path, _onesided.OneSidedTable, lambda folder: ensure_onesided(points, folder)
    )


def twosided(checkers: int = DEFAULT_CHECKERS) -> _twosided.TwoSidedTable:
    """The cached two-sided table (built on first use), loaded once per process."""
    path = cache_dir() / _twosided.table_name(checkers)
    return _load(
        path, _twosided.TwoSidedTable, lambda folder: ensure_twosided(checkers, folder)
    )


def clear_loaded() -> None:
    """Forget the tables loaded so far (tests that swap cache folders need this)."""
    with _lock:
        _loaded.clear()

"""numba in one place: where gammon's compiled code is kept, kernels of one signature, compiled ahead on every core.

numba compiles gammon's kernels (move generation, the nets, the bear-off and rollout loops) to
machine code the first time they run and keeps it on disk, so a later process loads it in
milliseconds. This module decides where and what:

* **Where**: :func:`cache_folder`, ``<gammon's cache>/numba/<numba>-<python>-<digest>``: the
  user's cache (``platformdirs``; ``$GAMMON_CACHE_DIR`` when set, as for the bear-off tables),
  in a folder named by numba's version, Python's and a digest of every source numba compiles
  (:data:`KERNEL_SOURCES`), so a new gammon, an edited kernel or another numba starts a folder of
  its own and never reads code compiled from other sources (numba itself only checks the file of
  each function, not those of the functions it calls). ``NUMBA_CACHE_DIR``, when the user sets
  it, wins. It is set before numba compiles anything, and passed on to child processes.
* **What**: :func:`kernel` declares a kernel's one signature (its argument types). It compiles for
  those types alone, when first called, from Python or from another kernel; numba converts
  other arguments to them (an ``int8`` die to ``int64``) instead of compiling the kernel again,
  and a call it cannot convert is a ``TypeError`` naming the types.
* **When**: the first call of a kernel whose code is not on disk yet compiles, with
  :func:`prepare`, every kernel imported so far that is not on disk (but those few commands
  call, ``ahead=False``, unless a kernel compiled then calls them): each kernel after the
  kernels it calls, in worker processes on every core, the count on the terminal (stderr). The
  workers write the cache; this process then loads from it. Kernels of modules not imported
  are not compiled: the commands import what they use (``gammon convert`` never loads numba).
  Processes that share the folder compile a kernel once: the others wait for it, then load it.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import multiprocessing
import os
import sys
import threading
import time
import types
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, wait
from pathlib import Path
from typing import Any, TextIO

from .workers import Workers, available_cores

#: gammon's cache folder, when set: the bear-off tables and the compiled code.
CACHE_ENV = "GAMMON_CACHE_DIR"
#: numba's own variable: a folder the user chose for numba's cache wins over gammon's.
NUMBA_ENV = "NUMBA_CACHE_DIR"
#: Every module numba compiles code or constants of: the kernels, the plain steps they compile and
#: the modules whose constants they read (relative to ``gammon``). The digest of their sources names
#: the cache folder (tests/test_compiled.py keeps the list whole).
KERNEL_SOURCES = (
    "board", "evaluation", "movegen", "notation._position_id_steps", "notation._position_id_kernel",
    "dice.streams", "bearoff.storage", "bearoff._perfect_hash_steps", "bearoff._perfect_hash_kernels",
    "bearoff._evaluator_steps", "bearoff._evaluator_kernels", "bearoff._onesided_kernels",
    "bearoff._twosided_kernels", "bots.evaluator", "bots.pubeval", "bots.simple", "bots.search", "bots.chooser", "cube.janowski",
    "nn.features", "nn.network", "rollout.kernel", "train.td", "train.selfplay", "train.rollouts",
)
#: A compile shorter than this is not told when stderr is not a terminal.
QUIET_SECONDS = 2.0

_setup_lock = threading.Lock()
_prepare_lock = threading.RLock()
_folder: list[Path] = []  # the folder, once numba was set up
_kernels: list[Any] = []  # every kernel defined in this process, in definition order
_ready: set[Any] = set()  # kernels known to be compiled in the cache folder
_state = {"worker": False}  # a compiling worker: it never starts workers of its own
_local = threading.local()  # ``compiling``: this thread is inside a kernel's compile


def cache_root() -> Path:
    """gammon's cache: ``$GAMMON_CACHE_DIR`` when set, else the user's cache folder (platformdirs)."""
    root = os.environ.get(CACHE_ENV)
    if root:
        return Path(root)
    import platformdirs

    return Path(platformdirs.user_cache_dir("gammon"))


def sources_digest() -> str:
    """A digest of the sources numba compiles (:data:`KERNEL_SOURCES`): 16 hex digits."""
    package = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for name in KERNEL_SOURCES:
        path = package.joinpath(*name.split(".")).with_suffix(".py")
        digest.update(name.encode() + b"\0")
        try:
            digest.update(path.read_bytes())
        except OSError:  # a module left out of an install: its absence is part of the key
            digest.update(b"(missing)")
    return digest.hexdigest()[:16]


def cache_folder() -> Path:
    """Where numba keeps gammon's compiled code: ``NUMBA_CACHE_DIR`` when the user set it, else
    ``<cache_root()>/numba/<numba version>-py<X.Y>-<sources_digest()>``."""
    chosen = os.environ.get(NUMBA_ENV)
    if chosen:
        return Path(chosen)
    import numba

    python = f"py{sys.version_info[0]}.{sys.version_info[1]}"
    return cache_root() / "numba" / f"{numba.__version__}-{python}-{sources_digest()}"


def _setup() -> Path:
    """Point numba at :func:`cache_folder` before it compiles anything (once a process)."""
    with _setup_lock:
        if not _folder:
            folder = cache_folder()
            config: Any = importlib.import_module("numba.core.config")
            os.environ.setdefault(NUMBA_ENV, str(folder))  # child processes, and numba's own reloads
            config.CACHE_DIR = str(folder)  # numba read its variables when imported: this one it reads at each kernel
            _folder.append(folder)
        return _folder[0]


# -- kernels ---------------------------------------------------------------------------------


def _kernel_class() -> type:
    """:class:`Kernel`, made on first use (numba is imported only by code that compiles)."""
    import numba
    from numba.core import sigutils
    from numba.core import types as numba_types
    from numba.core.compiler_lock import global_compiler_lock
    from numba.core.registry import CPUDispatcher

    typeof: Any = numba.typeof  # numba's own functions are untyped
    normalize: Any = sigutils.normalize_signature
    dispatcher: Any = CPUDispatcher

    tuple_type: Any = numba_types.Tuple

    def readonly(kind: Any) -> Any:
        """``kind`` read-only: an array, or every array of a tuple."""
        if isinstance(kind, numba_types.BaseTuple):
            items: Any = kind
            return tuple_type([readonly(item) for item in items])
        return kind.copy(readonly=True) if isinstance(kind, numba_types.Array) else kind

    class Kernel(dispatcher):  # type: ignore[misc]
        """A numba dispatcher with one declared signature, compiled (or loaded) on first use."""

        declared: tuple[Any, ...] = ()
        ahead = True

        def compile(self, sig: Any) -> Any:
            """Whatever signature is asked for, the declared one; numba converts the callers' arguments.

            Under numba's compiler lock (it is re-entrant), so threads that call a kernel at once
            compile (or load) it once, and the later ones find it (numba refuses even to look an
            overload up once compiling is off)."""
            with global_compiler_lock:
                existing = self.overloads.get(self.declared)
                if existing is not None:
                    return existing.entry_point
            nested = getattr(_local, "compiling", False)  # a callee typed inside its caller's compile
            with contextlib.nullcontext() if nested else _compile_lock(self):
                _local.compiling = True
                try:
                    with global_compiler_lock:
                        existing = self.overloads.get(self.declared)
                        entry = existing.entry_point if existing is not None else super().compile(self.declared)
                        self._can_compile = False
                finally:
                    _local.compiling = nested
            _mark(self)
            return entry

        def _compile_for_args(self, *args: Any, **kws: Any) -> Any:
            """A first call from Python: :func:`prepare` everything imported, then dispatch again (the
            declared signature now matches, after conversion, or the call is a ``TypeError``). A call
            made while its module is imported (a table computed at import) prepares only this kernel
            and the kernels it calls: the rest of what the command imports comes with its first call."""
            if not self.overloads and not _state["worker"]:
                prepare(calls(self) | {self} if _importing(sys._getframe(1)) else None)
            self.compile(None)
            return self

        def _reduce_states(self) -> dict[str, Any]:
            return {**super()._reduce_states(), "declared": self.declared}

        @classmethod
        def _rebuild(cls, uuid: str, py_func: Any, local_types: Any, targetoptions: Any, can_compile: bool,
                     sigs: Any, declared: tuple[Any, ...] = ()) -> Any:
            """A kernel sent to another process (numba pickles dispatchers by value): declared there too."""
            made = super()._rebuild(uuid, py_func, local_types, targetoptions, True, [])
            if not made.declared:
                made.declared = declared
                made.enable_caching()
            return made

        @staticmethod
        def parse(signature: str, like: dict[str, object]) -> tuple[Any, ...]:
            """The argument types of ``signature``, numba's notation with ``like``'s names for the
            types of their values."""
            names = {**vars(numba_types), "readonly": readonly, **{name: typeof(value) for name, value in like.items()}}
            args, _ = normalize(eval(signature, {"__builtins__": {}}, names))
            return tuple(args)

    Kernel.__module__ = __name__
    Kernel.__qualname__ = "Kernel"
    return Kernel


_classes: list[type] = []


def __getattr__(name: str) -> Any:
    """``Kernel``, made when first asked for (pickling a kernel names it)."""
    if name == "Kernel":
        _setup()
        with _setup_lock:
            if not _classes:
                _classes.append(_kernel_class())
        return _classes[0]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def kernel(signature: str | None = None, *, ahead: bool = True, like: dict[str, object] | None = None,
           **options: Any) -> Callable[[Callable[..., Any]], Any]:
    """Compile a function with numba (``nopython``, kept in :func:`cache_folder`).

    ``signature`` is its argument types as numba writes them (``"(int8[::1], int64, boolean)"``;
    ``int8[::1]`` a contiguous array, ``int8[:, ::1]`` a contiguous 2-d one; ``readonly(int8[::1])``
    one the kernel only reads, which takes a read-only array as well as a writable one (a table
    mapped from its file, an array Ray hands over); ``readonly(Tuple(...))`` a tuple of those): the
    kernel compiles for those alone (see the module's docstring). Without one, the function must be inlined
    into the kernels that call it (``inline="always"``): a helper that is never compiled alone.
    ``like`` names types in the signature by a value of each (``like={"PARAMS": params}``: the type
    numba gives ``params``). ``ahead=False`` leaves the kernel out of what a first call compiles
    ahead (:func:`prepare`) unless a kernel compiled then calls it: one few commands call from
    Python (a test's, a benchmark's), compiled when it is called. ``options`` are numba's
    (``nogil``, ``inline``).
    """
    if signature is None and options.get("inline") != "always":
        raise TypeError("a kernel needs its signature, or inline='always' for a helper compiled into its callers")

    def decorate(function: Callable[..., Any]) -> Any:
        _setup()
        if signature is None:
            from numba import njit

            return njit(cache=True, **options)(function)
        made = __getattr__("Kernel")(py_func=function, locals={}, targetoptions={"nopython": True, **options})
        made.declared = made.parse(signature, like or {})
        made.ahead = ahead
        made.enable_caching()
        _kernels.append(made)
        return made

    return decorate


# -- compiling ahead -----------------------------------------------------------------------------


def _marker(function: Any) -> Path:
    """The file that says ``function`` is compiled in the cache: named by the function, its
    signature and its source file's size and time, so an edited source is compiled again."""
    code = function.py_func.__code__
    try:
        info = os.stat(code.co_filename)
        stamp = f"{info.st_mtime_ns}-{info.st_size}"
    except OSError:
        stamp = "0"
    signature = hashlib.sha256(repr(function.declared).encode()).hexdigest()[:8]
    name = f"{function.py_func.__module__}.{function.py_func.__qualname__}-{code.co_firstlineno}-{signature}-{stamp}"
    return _setup() / "compiled" / name


@contextlib.contextmanager
def _compile_lock(function: Any) -> Iterator[None]:
    """Hold ``function``'s lock file while it compiles, so processes that share the cache (a
    rollout's or a duel's workers, a server and the tests around it) compile it once: the others
    wait, then load what the first wrote. Where no lock can be taken, each compiles alone."""
    marker = _marker(function)
    path = marker.parent.parent / "compiling" / f"{marker.name}.lock"
    try:
        import fcntl

        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path, "a+b")
    except (ImportError, OSError):  # no flock (Windows), or a cache that cannot be written
        yield
        return
    with handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _mark(function: Any) -> None:
    """Note that ``function`` is compiled in the cache (once a process)."""
    if function in _ready:
        return
    _ready.add(function)
    marker = _marker(function)
    try:
        if not marker.exists():
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.touch()
    except OSError:  # an unwritable cache: numba says so itself; the marker is only a shortcut
        pass


def _cached(function: Any) -> bool:
    if function in _ready or function.overloads:
        return True
    if _marker(function).exists():
        _ready.add(function)
        return True
    return False


_called: dict[Any, set[Any]] = {}  # each kernel's callees, read once


def _callees(function: Any) -> set[Any]:
    """The kernels ``function`` calls, by the names its code reads (inlined helpers looked into)."""
    if function not in _called:
        _called[function] = _read_callees(function)
    return _called[function]


def _read_callees(function: Any) -> set[Any]:
    kernel_class = __getattr__("Kernel")
    found: set[Any] = set()
    seen: set[int] = set()

    def visit(py_func: Any) -> None:
        if id(py_func) in seen:
            return
        seen.add(id(py_func))
        names: set[str] = set()
        codes = [py_func.__code__]
        while codes:
            code = codes.pop()
            names.update(code.co_names)
            codes.extend(const for const in code.co_consts if isinstance(const, types.CodeType))
        scope = py_func.__globals__
        values = [scope.get(name) for name in names]
        for module in [value for value in values if isinstance(value, types.ModuleType)]:
            values.extend(getattr(module, name, None) for name in names)
        for value in values:
            if isinstance(value, kernel_class):
                if value is not function:
                    found.add(value)
            elif hasattr(value, "py_func") and hasattr(value, "targetoptions"):  # an inlined helper
                visit(value.py_func)

    visit(function.py_func)
    return found


def _importing(frame: types.FrameType) -> bool:
    """Whether ``frame`` runs a module's top level while it is imported (importlib marks its spec)."""
    spec = frame.f_globals.get("__spec__")
    return frame.f_code.co_name == "<module>" and bool(getattr(spec, "_initializing", False))


def calls(function: Any) -> set[Any]:
    """Every kernel ``function`` calls, directly or through others."""
    found: set[Any] = set()
    todo = [function]
    while todo:
        for callee in _callees(todo.pop()):
            if callee not in found:
                found.add(callee)
                todo.append(callee)
    found.discard(function)
    return found


def _compile_one(index: int) -> None:
    """In a worker: compile kernel ``index`` into the cache."""
    _state["worker"] = True
    _kernels[index].compile(None)


class _Count:
    """The count of kernels compiled, as one line on ``out`` after ``prefix``: redrawn on a terminal;
    elsewhere written once it has taken :data:`QUIET_SECONDS`, then at the end."""

    def __init__(self, total: int, out: TextIO | None, prefix: str) -> None:
        self.total, self.out, self.prefix = total, out if out is not None else sys.stderr, prefix
        self.terminal = bool(getattr(self.out, "isatty", lambda: False)())
        self.started = time.monotonic()
        self.told = False

    def show(self, done: int) -> None:
        took = time.monotonic() - self.started
        if not self.terminal and (self.told or took < QUIET_SECONDS):
            return
        self._write(f"compiling the engine ({done}/{self.total} kernels, {took:.0f} s; once, kept for next time)...")

    def close(self, done: int) -> None:
        took = time.monotonic() - self.started
        if not self.told:
            return
        if took >= QUIET_SECONDS or not self.terminal:
            self._write(f"compiled the engine ({done} kernels) in {took:.0f} s, kept in {_setup()}", end=True)
        else:  # a short wait leaves nothing behind on the terminal
            self.out.write("\r\033[K")
            self.out.flush()

    def _write(self, text: str, end: bool = False) -> None:
        if self.terminal:  # one line, redrawn: blanked out first, for a shorter text
            self.out.write("\r\033[K" + self.prefix + text + ("\n" if end else ""))
        else:
            self.out.write(f"{self.prefix}{text}\n")
        self.out.flush()
        self.told = True


def imported() -> list[Any]:
    """Every kernel imported so far, those few commands call (``ahead=False``) included: what a
    server compiles before it answers."""
    return list(_kernels)


def pending(kernels: Iterable[Any] | None = None) -> list[Any]:
    """The kernels of ``kernels`` not compiled in the cache yet, in the order they were defined
    (default: every kernel imported so far to compile ahead, with the kernels those call)."""
    if kernels is not None:
        chosen = set(kernels)
    else:
        chosen = {k for k in _kernels if k.ahead and not _cached(k)}
        for function in list(chosen):
            chosen |= calls(function)
    return [k for k in _kernels if k in chosen and not _cached(k)]


_told: list[tuple[TextIO | None, str]] = [(None, "gammon: ")]  # where counts go: stderr, unless a caller says


@contextlib.contextmanager
def told(out: TextIO | None, prefix: str) -> Iterator[None]:
    """Count every compile in this block (those a first call starts included) on ``out`` after
    ``prefix``: a server's start-up line, say."""
    _told.append((out, prefix))
    try:
        yield
    finally:
        _told.pop()


def prepare(kernels: Iterable[Any] | None = None, *, workers: int | None = None) -> int:
    """Compile into the cache every kernel of ``kernels`` that is not there yet (default: those of
    :func:`pending`: every one imported so far); how many it compiled.

    Each kernel is compiled after the kernels it calls, in worker processes (``workers``, default
    every core) when there is more than one to do and this process may start them (:func:`_may_fork`;
    else here). The count is told on stderr (or where :func:`told` says): on a
    terminal as it goes, elsewhere only once it takes long (:class:`_Count`). A kernel that fails in
    a worker is compiled here, where its error is raised.
    """
    with _prepare_lock:
        todo = pending(kernels)
        if not todo:
            return 0
        count = _Count(len(todo), *_told[-1])
        count.show(0)
        processes = min(workers or available_cores(), len(todo))
        done = 0
        if processes > 1 and _may_fork():
            done = _in_workers(todo, processes, count.show)
        for function in todo:  # here: all of them, or what the workers left
            if function not in _ready:
                function.compile(None)
                done += 1
                count.show(done)
        count.close(done)
        return done


def _may_fork() -> bool:
    """Whether this process may fork compiling workers: its main thread, not a pool's worker (which
    may not start processes) nor one of ours, and not inside Ray, whose processes hold threads of
    their own (invisible to :mod:`threading`) that a fork would copy in the middle of their work."""
    return (threading.current_thread() is threading.main_thread() and not multiprocessing.current_process().daemon
            and not _state["worker"] and "ray" not in sys.modules)


def _in_workers(todo: list[Any], processes: int, report: Callable[[int], None]) -> int:
    """Compile ``todo`` in ``processes`` forked workers, each kernel once the kernels it calls are
    done; how many they compiled (the failed ones are left to the caller)."""
    waiting = {function: _callees(function) & set(todo) for function in todo}
    running: dict[Future[None], Any] = {}
    done = 0
    with Workers(processes, initializer=_state.__setitem__, initargs=("worker", True)) as pool:
        while waiting or running:
            for function in [f for f, needs in waiting.items() if not needs]:
                del waiting[function]
                running[pool.submit(_compile_one, _kernels.index(function))] = function
            if not running:  # a cycle of kernels calling each other: numba compiles them together
                break
            finished, _ = wait(list(running), timeout=0.5, return_when=FIRST_COMPLETED)
            for future in finished:
                function = running.pop(future)
                if future.exception() is None:
                    _mark(function)
                    done += 1
                for needs in waiting.values():
                    needs.discard(function)
            report(done)
    return done

"""What every fuzz target promises, and the three ways to run one: a seed corpus, Hypothesis, atheris.

A target is a module ``fuzz/NAME.py`` with ``fuzz_one_input(data: bytes) -> None``. Any
input may raise the target's ``ALLOWED`` errors (default: :class:`gammon.errors.GammonError`,
the errors gammon documents); anything else escaping it, a :class:`ContractViolation` it
raises itself (a state accepted that fails later, a refused action that changed the match,
a batch that lost a line), or running past its time budget (:func:`budget`: a fixed
allowance plus one per KiB) is a failure. :func:`shapes` makes the hostile inputs that
super-linear readers choke on, and :func:`growth` measures how a target's time grows with them.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import itertools
import os
import re
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

FUZZ = Path(__file__).resolve().parent
CORPUS = FUZZ / "corpus"
#: The time budget of one input (:func:`budget`): this much for any input ...
BUDGET_SECONDS = 5.0
#: ... and this much more per KiB of it. On a loaded 2-core machine every target's slowest seed
#: took under 0.4 s and its slowest hostile shape at 64 KiB under 22 ms per KiB (fuzz/README.md,
#: "Time"): the budget leaves more than ten times both, while issue 36's score line took 18 s at
#: 2.4 KB and a quadratic reader takes minutes at 64 KiB.
BUDGET_PER_KIB = 0.25

if (FUZZ.parent / "src" / "gammon").is_dir() and str(FUZZ.parent / "src") not in sys.path:
    sys.path.insert(0, str(FUZZ.parent / "src"))  # in a source tree: fuzz this tree's gammon

from gammon.errors import GammonError  # noqa: E402


class ContractViolation(AssertionError):
    """An input on which gammon broke a promise without raising (or raising the wrong thing)."""


class Hang(BaseException):
    """An input that ran past its :func:`budget` (a BaseException: targets cannot swallow it)."""


@dataclass
class Failure(Exception):
    """What a run found: the target, the input, and what went wrong."""

    target: str
    data: bytes
    error: BaseException
    trace: str

    def __str__(self) -> str:
        return f"{self.target}: {type(self.error).__name__}: {self.error} on input {shown(self.data)}\n{self.trace}"


def shown(data: bytes, limit: int = 600) -> str:
    """An input as a bytes literal, its middle left out when it is long (a hostile shape can be 16 KiB)."""
    if len(data) <= limit:
        return repr(data)
    return f"{data[: limit // 2]!r} ... ({len(data) - limit} bytes) ... {data[-limit // 2:]!r}"


# -- targets --------------------------------------------------------------------------------
def names() -> list[str]:
    """Every target: each ``fuzz/*.py`` but the harness, ``run.py`` and ``make_corpus.py``."""
    skip = {"run", "make_corpus"}
    return sorted(p.stem for p in FUZZ.glob("*.py") if not p.stem.startswith("_") and p.stem not in skip)


def load(name: str) -> ModuleType:
    if name not in names():
        raise KeyError(f"no fuzz target {name!r}: expected one of {', '.join(names())}")
    if str(FUZZ) not in sys.path:
        sys.path.insert(0, str(FUZZ))
    return importlib.import_module(name)


def allowed(module: ModuleType) -> tuple[type[BaseException], ...]:
    return getattr(module, "ALLOWED", (GammonError,))


def corpus(name: str) -> list[tuple[str, bytes]]:
    """The seed inputs of a target, by file name."""
    folder = CORPUS / name
    if not folder.is_dir():
        return []
    return [(p.name, p.read_bytes()) for p in sorted(folder.iterdir()) if p.is_file()]


# -- the contract -----------------------------------------------------------------------------
def budget(size: int) -> float:
    """Seconds an input of ``size`` bytes may take: a fixed allowance plus one per KiB, so a reader
    that is linear in its input always fits and a super-linear one runs out on long hostile input."""
    return BUDGET_SECONDS + BUDGET_PER_KIB * size / 1024


@contextlib.contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    """Raise :class:`Hang` in this thread after ``seconds`` (where the platform can)."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise Hang(f"still running after {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def check(name: str, module: ModuleType, data: bytes, seconds: float | None = None) -> None:
    """Run one input; raise :class:`Failure` when the target breaks its contract or runs past
    ``seconds`` (by default its :func:`budget`)."""
    try:
        with _deadline(budget(len(data)) if seconds is None else seconds):
            module.fuzz_one_input(data)
    except allowed(module):
        return
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as error:  # noqa: BLE001 - every other outcome is what we look for
        raise Failure(name, data, error, traceback.format_exc()) from None


def violation(message: str) -> ContractViolation:
    return ContractViolation(message)


# -- helpers the targets share ------------------------------------------------------------------
_scratch: list[Path] = []


@contextlib.contextmanager
def scratch_file(data: bytes, suffix: str) -> Iterator[Path]:
    """``data`` in a file of this process's scratch folder (removed at exit), deleted afterwards."""
    if not _scratch:
        import atexit
        import shutil
        import tempfile

        _scratch.append(Path(tempfile.mkdtemp(prefix="gammon-fuzz-")))
        atexit.register(shutil.rmtree, _scratch[0], ignore_errors=True)
    path = _scratch[0] / f"input{suffix}"
    path.write_bytes(data)
    try:
        yield path
    finally:
        path.unlink(missing_ok=True)


def text(data: bytes) -> str:
    """The input as text, decoded as gammon's readers decode lines (invalid bytes replaced)."""
    return data.decode("utf-8", "replace")


class Reader:
    """Draws small choices from the input bytes, then zeros once they run out."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def byte(self) -> int:
        if self.at >= len(self.data):
            return 0
        self.at += 1
        return self.data[self.at - 1]

    def below(self, n: int) -> int:
        return self.byte() % n if n > 0 else 0

    def choice(self, items: list | tuple):  # any element type
        return items[self.below(len(items))]

    def rest(self) -> bytes:
        rest, self.at = self.data[self.at :], len(self.data)
        return rest

    def chunk(self, limit: int = 40) -> bytes:
        size = self.below(limit + 1)
        piece = self.data[self.at : self.at + size]
        self.at += len(piece)
        return piece

    @property
    def done(self) -> bool:
        return self.at >= len(self.data)


@dataclass
class Captured:
    """What a run under :func:`captured_stdio` wrote, filled in when it ends."""

    stdout: bytes = b""
    stderr: str = ""


@contextlib.contextmanager
def captured_stdio(stdin: bytes) -> Iterator[Captured]:
    """Run with ``stdin`` as a strict UTF-8 stream (as under ``PYTHONIOENCODING=utf-8:strict``),
    stdout (bytes) and stderr captured."""
    captured = Captured()
    out = io.BytesIO()
    err = io.StringIO()
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8", errors="strict")
    sys.stdout = io.TextIOWrapper(out, encoding="utf-8", errors="strict", write_through=True)
    sys.stderr = err
    try:
        yield captured
    finally:
        fake_in, fake_out = sys.stdin, sys.stdout
        sys.stdin, sys.stdout, sys.stderr = saved
        with contextlib.suppress(Exception):
            fake_out.flush()
        captured.stdout, captured.stderr = out.getvalue(), err.getvalue()
        for stream in (fake_in, fake_out):
            with contextlib.suppress(Exception):
                stream.detach()  # closing the wrapper would close what it wraps


def unhandled_thread_errors() -> Callable[[], list[str]]:
    """Record exceptions that end threads (a timer's OverflowError); call the result to stop and read them."""
    seen: list[str] = []
    previous = threading.excepthook

    def hook(args: threading.ExceptHookArgs) -> None:
        seen.append(f"{args.exc_type.__name__}: {args.exc_value} in thread {args.thread.name if args.thread else '?'}")

    threading.excepthook = hook

    def stop() -> list[str]:
        threading.excepthook = previous
        return seen

    return stop


# -- runners ---------------------------------------------------------------------------------------
#: How long the first pass over a target's seeds may take per input: it compiles the kernels
#: the target reaches (numba, cold cache on a fresh machine), which is slow, not a hang.
WARM_UP_SECONDS = 600.0
_warm: set[str] = set()


def warm_up(name: str, module: ModuleType) -> None:
    """Run every seed once with a generous deadline, so compiling is never taken for a hang."""
    if name in _warm:
        return
    _warm.add(name)
    for _, data in corpus(name):
        try:
            check(name, module, data, WARM_UP_SECONDS)
        except Failure:
            pass  # reported by the run that follows, under its own deadline


def run_corpus(name: str, seconds: float | None = None) -> list[Failure]:
    module = load(name)
    warm_up(name, module)
    failures = []
    for _, data in corpus(name):
        try:
            check(name, module, data, seconds)
        except Failure as failure:
            failures.append(failure)
    return failures


def mutated(seed: bytes, edits: list[tuple[int, int, int]]) -> bytes:
    """``seed`` after edits (kind, where, value): flip a byte, insert one, delete one, or duplicate a slice."""
    data = bytearray(seed)
    for kind, where, value in edits:
        at = where % (len(data) + 1)
        if kind == 0 and data:
            data[at % len(data)] = value
        elif kind == 1:
            data.insert(at, value)
        elif kind == 2 and data:
            del data[at % len(data)]
        elif kind == 3 and data:
            data[at:at] = data[at : at + value % 16]
        elif kind == 4:
            data[at:at] = "²①٣\ufeff\u2028".encode()[value % 14 : value % 14 + 3]  # digits that are not ASCII
    return bytes(data)


# -- hostile shapes --------------------------------------------------------------------------------
#: Units whose long runs make a backtracking regex or a quadratic loop slow: whitespace, the
#: separators of every format, brackets and escapes, digits and letters, line ends, a few tokens.
UNITS: tuple[bytes, ...] = (
    b" ", b"\t", b"\n", b"\r", b"\r\n", b":", b"/", b",", b"(", b")", b";", b'"', b"[", b"]", b"*", b"-", b"#",
    b".", b"\\", b"=", b"|", b"+", b"0", b"9", b"a", b"\xff", b" :", b"13/10 ", b"(;", b"()", b"[]", b"2(",
)
#: Separators that two runs of spaces surround: ``" "*n + ":" + " "*n + "1"`` (issue 36's ``.mat``
#: score line, 51 s at n = 1200) and its kin in the other formats.
SEPARATORS: tuple[bytes, ...] = tuple(bytes([c]) for c in b':/,()*;"[]=#.-')
#: Brackets nested: ``((((x))))``.
NESTING: tuple[tuple[bytes, bytes], ...] = ((b"(", b")"), (b"[", b"]"), (b"{", b"}"), (b"(;", b")"), (b"2(", b")"))
#: Where inside a seed's first line a run goes, besides the starts of its lines: after an opening
#: bracket or a field's colon (at most :data:`_INSIDE` places, spread along the line).
_OPENERS = b"[(:"
_INSIDE = 8
_RUN = re.compile(rb"(.)\1{7,}", re.DOTALL)


@dataclass(frozen=True)
class Shape:
    """A hostile input of any size: ``head``, then each of ``units`` repeated as often (``joins``
    between the runs), then ``tail``. The same shape at n and 8n bytes shows how a reader's
    time grows (:func:`growth`)."""

    head: bytes
    units: tuple[bytes, ...]
    joins: tuple[bytes, ...] = ()
    tail: bytes = b""

    def __call__(self, size: int) -> bytes:
        """The shape with about ``size`` bytes of runs."""
        count = max(1, size // sum(map(len, self.units)))
        middle = [part for unit, join in zip(self.units, (*self.joins, b"")) for part in (unit * count, join)]
        return self.head + b"".join(middle) + self.tail

    def __str__(self) -> str:
        runs = " + ".join(f"{u!r}*n" + (f" + {j!r}" if j else "") for u, j in zip(self.units, (*self.joins, b"")))
        return f"{self.head[-40:]!r} + {runs} + {self.tail[:40]!r}"

    @classmethod
    def grown(cls, seed: bytes) -> Shape | None:
        """A seed whose runs of one byte (8 or more) grow: a ``found-*`` seed at any size."""
        runs = list(_RUN.finditer(seed))
        if not runs:
            return None
        joins = tuple(seed[a.end():b.start()] for a, b in itertools.pairwise(runs))
        return cls(seed[:runs[0].start()], tuple(run.group(1) for run in runs), joins, seed[runs[-1].end():])


def shapes(name: str, seeds: int = 4, lines: int = 6) -> list[Shape]:
    """The hostile shapes of a target, its ``found-*`` seeds grown first; then runs of every unit,
    nesting, and, at the start of each of the first ``lines`` lines of a few seeds (the ``found-*``
    ones and ``seeds`` others) and after the openers of their first line: a run, two runs of spaces
    around a separator, and (at a line's start) that line repeated."""
    found = [data for file, data in corpus(name) if file.startswith("found-")]
    others = [data for file, data in corpus(name) if not file.startswith("found-")]
    step = max(1, len(others) // seeds)
    out = [shape for shape in map(Shape.grown, found) if shape is not None]
    out += [Shape(b"", (unit,)) for unit in UNITS]
    out += [Shape(b"", (opening, closing), (b"x",)) for opening, closing in NESTING]
    heads: set[bytes] = set()
    for seed in found + others[::step][:seeds]:
        split = _lines(seed)
        starts = [len(b"".join(split[:at])) for at in range(min(lines, len(split)) + 1)]
        opened = [at + 1 for at, byte in enumerate(split[0] if split else b"") if byte in _OPENERS]
        inside = opened[:: max(1, -(-len(opened) // _INSIDE))]
        for cut in sorted({*starts, *inside}):
            head, rest = seed[:cut], seed[cut:]
            if head in heads:
                continue
            heads.add(head)
            end = b"x\n" if cut in starts else b""
            out += [Shape(head, (unit,), (), end + rest) for unit in UNITS]
            out += [Shape(head, (b" ", b" "), (separator,), b"1" + end + rest) for separator in SEPARATORS]
            line = _lines(rest)[:1]
            if cut in starts and line:
                out.append(Shape(head, (line[0],), (), rest[len(line[0]):]))
    return out


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


_shape_cache: dict[str, list[Shape]] = {}


def _shapes_of(name: str) -> list[Shape]:
    if name not in _shape_cache:
        _shape_cache[name] = shapes(name)
    return _shape_cache[name]


def sample(name: str, count: int) -> list[Shape]:
    """The grown ``found-*`` seeds and ``count`` more of the target's shapes, spread over them all."""
    every = _shapes_of(name)
    grown = sum(1 for file, data in corpus(name) if file.startswith("found-") and Shape.grown(data) is not None)
    rest = every[grown:]
    return every[:grown] + rest[:: max(1, len(rest) // count)][:count]


def hostile(name: str, choice: int, size: int) -> bytes:
    """One of the target's :func:`shapes` (``choice`` wraps around) at ``size`` bytes."""
    every = _shapes_of(name)
    return every[choice % len(every)](size)


def strategy(name: str):  # a Hypothesis strategy of bytes
    """Arbitrary bytes, arbitrary text, the seeds with a few mutations, and hostile shapes up to 4 KiB."""
    from hypothesis import strategies as st

    seeds = [data for _, data in corpus(name)]
    parts = [st.binary(max_size=512), st.text(max_size=200).map(lambda s: s.encode("utf-8", "surrogatepass"))]
    if seeds:
        edit = st.tuples(st.integers(0, 4), st.integers(0, 1 << 16), st.integers(0, 255))
        parts.append(st.builds(mutated, st.sampled_from(seeds), st.lists(edit, min_size=1, max_size=6)))
    parts.append(st.builds(hostile, st.just(name), st.integers(0, 1 << 16), st.integers(1, 4096)))
    return st.one_of(*parts)


# -- growth ---------------------------------------------------------------------------------------
#: A careful timing repeats a run until it has taken this long (process time): short runs are noise.
TIMED_SECONDS = 0.02
#: How many times longer an input 8 times as long may take: 8 for a linear reader, 64 for a
#: quadratic one. Measured on this repository's targets (fuzz/README.md, "Time"), linear shapes
#: grow at most about 12 times, most far less (a fixed cost per input dominates the short one).
GROWTH_LIMIT = 24.0


def _seconds(name: str, module: ModuleType, data: bytes, careful: bool) -> float:
    """Process seconds one run of ``data`` takes (another process's load barely moves it). Careful:
    the best of three rounds, each repeating the run until it has taken :data:`TIMED_SECONDS`."""
    best = float("inf")
    for _ in range(3 if careful else 1):
        runs, began = 0, time.process_time()
        while True:
            check(name, module, data)
            runs += 1
            spent = time.process_time() - began
            if not careful or spent >= TIMED_SECONDS:
                break
        best = min(best, spent / runs)
    return max(best, 1e-6)


def growth(name: str, module: ModuleType, shape: Shape, size: int, factor: int = 8, careful: bool = True) -> float:
    """How many times longer ``shape`` takes at ``factor`` times ``size`` bytes than at ``size``:
    about ``factor`` (or less) for a reader linear in its input, ``factor`` squared for a quadratic
    one. A run that breaks the contract, or its time budget, raises :class:`Failure`."""
    small, large = shape(size), shape(size * factor)
    return _seconds(name, module, large, careful) / _seconds(name, module, small, careful)


def superlinear(name: str, module: ModuleType, shapes: list[Shape], size: int,
                limit: float = GROWTH_LIMIT) -> list[tuple[Shape, float]]:
    """The shapes whose time grows more than ``limit`` times from ``size`` to 8 times ``size``
    bytes: each timed once, and one over the limit timed again carefully, to be sure."""
    found = []
    for shape in shapes:
        if growth(name, module, shape, size, careful=False) > limit:
            grew = growth(name, module, shape, size)
            if grew > limit:
                found.append((shape, grew))
    return found


def run_hypothesis(
    name: str,
    examples: int,
    *,
    derandomize: bool = True,
    seed: int | None = None,
    shrink: bool = True,
    seconds: float | None = None,
) -> None:
    """``examples`` inputs from :func:`strategy`; raises the first :class:`Failure`, shrunk unless not ``shrink``.

    ``derandomize`` gives the same inputs every run (CI); else ``seed`` picks a run, or none a fresh one.
    """
    import hypothesis
    from hypothesis import HealthCheck, Phase, given, settings

    module = load(name)
    warm_up(name, module)

    @settings(
        max_examples=examples,
        deadline=None,
        derandomize=derandomize,
        database=None,
        suppress_health_check=list(HealthCheck),
        print_blob=False,
        report_multiple_bugs=False,
        phases=[p for p in Phase if shrink or p not in (Phase.shrink, Phase.explain)],
    )
    @given(strategy(name))
    def one(data: bytes) -> None:
        check(name, module, data, seconds)

    if seed is not None and not derandomize:
        one = hypothesis.seed(seed)(one)
    one()


def main(module_file: str) -> None:
    """``python fuzz/NAME.py [atheris or libFuzzer options]``: atheris when installed, else Hypothesis."""
    name = Path(module_file).stem
    module = load(name)
    try:
        import atheris
    except ImportError:
        examples = int(os.environ.get("GAMMON_FUZZ_EXAMPLES", "10000"))
        print(f"atheris is not installed: {examples} Hypothesis examples of {name} (fuzz/run.py has options)")
        for failure in run_corpus(name):
            print(failure)
            sys.exit(1)
        run_hypothesis(name, examples, derandomize=False)
        return

    def one_input(data: bytes) -> None:
        check(name, module, data)  # a Failure escapes: atheris reports it and keeps the input

    # gammon imports most modules on first use: run the seeds once so that every module the
    # target reaches is loaded, then give atheris coverage of all of them.
    run_corpus(name)
    atheris.instrument_all()

    import tempfile

    args = list(sys.argv)
    scratch = tempfile.mkdtemp(prefix=f"gammon-fuzz-{name}-")
    if not any(a.startswith("-artifact_prefix") for a in args[1:]):
        args.append(f"-artifact_prefix={scratch}/")  # crash-* files there, not in the working folder
    if not any(not a.startswith("-") for a in args[1:]):
        args += [scratch, str(CORPUS / name)]  # libFuzzer adds what it finds to the first folder, not the seeds
    atheris.Setup(args, one_input)
    atheris.Fuzz()

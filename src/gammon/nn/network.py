"""The networks' weights, their file format and the compiled forward pass.

A :class:`Network` holds one sigmoid MLP per phase of the game, chosen by :func:`net_of`, the one
classifier (:data:`CONTACT_NET` while the checkers can still meet, :data:`RACE_NET` once contact
is broken, :data:`CRASHED_NET` for contact where a side has crashed: few checkers left in play),
each with one hidden layer and five sigmoid outputs: win, win gammon, win backgammon,
lose gammon, lose backgammon, cumulative as in :mod:`gammon.bots.probabilities`. The raw
outputs need not be consistent; :func:`consistent` clips them (a gammon never exceeds a
win, a backgammon never a gammon) before anyone sees them.

Files are ``.npz`` archives: the weight arrays plus ``meta``, a JSON header with the format
version, the feature encoding's version and the shapes, so a stale or foreign file is
refused with :class:`NetworkFileError` instead of being misread. Whatever is wrong with a
file (damaged bytes, a folder or a pipe in its place, a header of the wrong types) is that
error, naming the file.
"""

from __future__ import annotations

import io
import json
import os
import stat
import tokenize
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..bots.evaluator import CONTACT, board_class
from ..errors import NetworkFileError
from .features import FEATURES_VERSION, VERSION_INPUTS, encode_into
from ..compiled import kernel

FORMAT = "gammon-nn"
FORMAT_VERSION = 1
CONTACT_NET, RACE_NET, CRASHED_NET = 0, 1, 2
NETS = 3
#: Names of the nets (the phases), by index.
NET_NAMES = ("contact", "race", "crashed")
#: A side with this many checkers or fewer in play (those piled on its ace and deuce points
#: beyond the first two not counted) has crashed.
CRASHED_CHECKERS = 6
OUTPUTS = 5
_ARRAYS = ("w1", "b1", "w2", "b2")
_SHAPES = ("float64[:, :, ::1]", "float64[:, ::1]", "float64[:, :, ::1]", "float64[:, ::1]")
#: The weight arrays (w1, b1, w2, b2) as the kernels that read them declare them: read-only, so
#: weights shared read-only (as Ray hands them over) are taken as well as a net's own...
WEIGHTS = ", ".join(f"readonly({shape})" for shape in _SHAPES)
#: ... and as the trainers that change them declare them.
TRAINED = ", ".join(_SHAPES)
#: The widest hidden layer a file may declare (the shipped net has 128 units).
MAX_HIDDEN = 4096
#: What a damaged archive can raise while numpy and zipfile read it.
_READ_ERRORS = (
    OSError,
    ValueError,  # UnicodeDecodeError, json.JSONDecodeError, bad array headers
    TypeError,
    KeyError,
    EOFError,
    NotImplementedError,  # an unknown compression method
    RuntimeError,  # zipfile: a member marked as encrypted
    RecursionError,  # deeply nested JSON
    SyntaxError,
    tokenize.TokenError,  # numpy reads an array header with Python's tokenizer
    MemoryError,  # an array header declaring an absurd shape
    zipfile.BadZipFile,
    zlib.error,
)


@kernel(inline="always")
def _live(in_play, ace, deuce):
    """Checkers of a side still worth something: those in play less the ones piled on its ace and
    deuce points beyond the first two (five on the ace point: three of them are dead)."""
    return in_play - max(0, ace + deuce - 2)


@kernel("(readonly(int8[::1]),)")
def crashed(board):
    """Whether a side of ``board`` has crashed: at most :data:`CRASHED_CHECKERS` live checkers.

    A side that has borne most of its checkers off while the other still has one back (what
    a late hit leaves), or whose board has collapsed onto its lowest points, plays a game of
    its own: few checkers, forced moves, its timing gone. The contact net, trained on the
    positions of ordinary games, rarely sees one.
    """
    mover = 0
    opponent = 0
    for point in range(26):
        n = board[point]
        if n > 0:
            mover += n
        elif n < 0:
            opponent -= n
    return (_live(mover, max(board[1], 0), max(board[2], 0)) <= CRASHED_CHECKERS
            or _live(opponent, max(-board[24], 0), max(-board[23], 0)) <= CRASHED_CHECKERS)


@kernel("(readonly(int8[::1]),)", inline="always")
def net_of(board):
    """Which net scores ``board``, the one phase classifier: contact, race or crashed."""
    if board_class(board) != CONTACT:
        return RACE_NET
    return CRASHED_NET if crashed(board) else CONTACT_NET


@kernel(inline="always")
def _add_rows(hidden, v0, r0, v1, r1):
    """``hidden += v0 * r0``, then ``+= v1 * r1``: two inputs' weights in one pass over the units."""
    for j in range(hidden.shape[0]):
        hidden[j] = (hidden[j] + v0 * r0[j]) + v1 * r1[j]


@kernel(f"({WEIGHTS}, int64, readonly(float64[::1]), float64[::1], float64[::1])")
def forward(w1, b1, w2, b2, k, x, hidden, out):
    """Raw outputs of net ``k`` for inputs ``x``; skips zero inputs (most of the board units).

    The nonzero inputs are added two at a time (fewer passes over the hidden units), each
    unit still summing them in input order, so the outputs are the same to the last bit.
    A net made for an older encoding reads the prefix of ``x`` it knows.
    """
    h_count = hidden.shape[0]
    weights = w1[k]
    for j in range(h_count):
        hidden[j] = b1[k, j]
    pending = -1
    for i in range(weights.shape[0]):
        v = x[i]
        if v == 0.0:
            continue
        if pending < 0:
            pending = i
            continue
        _add_rows(hidden, x[pending], weights[pending], v, weights[i])
        pending = -1
    if pending >= 0:
        v = x[pending]
        row = weights[pending]
        for j in range(h_count):
            hidden[j] += v * row[j]
    # The outputs' sums run over the hidden units in order, all five at once: each reads a row of
    # five weights (w2[k, j] is contiguous) instead of one weight in five.
    z0, z1, z2, z3, z4 = b2[k, 0], b2[k, 1], b2[k, 2], b2[k, 3], b2[k, 4]
    top = w2[k]
    for j in range(h_count):
        h = 1.0 / (1.0 + np.exp(-hidden[j]))
        hidden[j] = h
        row = top[j]
        z0 += h * row[0]
        z1 += h * row[1]
        z2 += h * row[2]
        z3 += h * row[3]
        z4 += h * row[4]
    out[0] = 1.0 / (1.0 + np.exp(-z0))
    out[1] = 1.0 / (1.0 + np.exp(-z1))
    out[2] = 1.0 / (1.0 + np.exp(-z2))
    out[3] = 1.0 / (1.0 + np.exp(-z3))
    out[4] = 1.0 / (1.0 + np.exp(-z4))


@kernel(inline="always")
def consistent(raw, out):
    """Clip raw outputs to cumulative probabilities: bg <= gammon <= win (and likewise for losses)."""
    win = min(max(raw[0], 0.0), 1.0)
    out[0] = win
    out[1] = min(raw[1], win)
    out[2] = min(raw[2], out[1])
    out[3] = min(raw[3], 1.0 - win)
    out[4] = min(raw[4], out[3])


@kernel(f"({WEIGHTS}, readonly(int8[:, ::1]))")
def evaluate_boards(w1, b1, w2, b2, boards):
    """Consistent probabilities ``(N, 5)`` of boards still in play, each by its class's net."""
    count = boards.shape[0]
    out = np.empty((count, OUTPUTS))
    x = np.zeros(w1.shape[1])  # the net's own encoding version
    hidden = np.empty(w1.shape[2])
    raw = np.empty(OUTPUTS)
    flipped = np.empty(boards.shape[1], np.int8)
    for i in range(count):
        encode_into(boards[i], x, flipped)
        forward(w1, b1, w2, b2, net_of(boards[i]), x, hidden, raw)
        consistent(raw, out[i])
    return out


@kernel(f"(Tuple(({WEIGHTS})), readonly(int8[:, ::1]))")
def kernel_boards(params, boards):
    """:func:`evaluate_boards` with the weights as one tuple: the net's :class:`~gammon.bots.evaluator.EvaluatorKernel`."""
    return evaluate_boards(params[0], params[1], params[2], params[3], boards)


@kernel(f"(Tuple(({WEIGHTS})), readonly(int8[:, ::1]), readonly(int64[::1]), readonly(int8[:, ::1]))", ahead=False)
def kernel_children(params, parents, offsets, children):
    """The plays of rolls: the net values each board on its own, whatever came before."""
    return evaluate_boards(params[0], params[1], params[2], params[3], children)


@dataclass
class Network:
    """Weights of the contact and race nets, plus free-form metadata (how they were trained)."""

    w1: np.ndarray  # (NETS, inputs of its encoding version, hidden)
    b1: np.ndarray  # (NETS, hidden)
    w2: np.ndarray  # (NETS, hidden, 5)
    b2: np.ndarray  # (NETS, 5)
    meta: dict[str, object] = field(default_factory=dict)

    @property
    def hidden(self) -> int:
        return int(self.w1.shape[2])

    @property
    def features_version(self) -> int:
        for version, inputs in VERSION_INPUTS.items():
            if inputs == self.w1.shape[1]:
                return version
        raise NetworkFileError(f"no feature encoding has {self.w1.shape[1]} inputs")

    @classmethod
    def random(cls, hidden: int = 96, seed: int = 0, scale: float = 0.1, features: int = FEATURES_VERSION) -> Network:
        """Small uniform random weights: the start of TD training, reproducible from ``seed``."""
        rng = np.random.default_rng([seed, hidden])
        return cls(
            rng.uniform(-scale, scale, (NETS, VERSION_INPUTS[features], hidden)),
            rng.uniform(-scale, scale, (NETS, hidden)),
            rng.uniform(-scale, scale, (NETS, hidden, OUTPUTS)),
            rng.uniform(-scale, scale, (NETS, OUTPUTS)),
        )

    def widen(self, hidden: int, seed: int = 0, scale: float = 0.05) -> Network:
        """The same net with ``hidden`` units: the new units get small random input weights and
        zero output weights, so the wider net answers exactly as this one until it is trained."""
        extra = hidden - self.hidden
        if extra < 0:
            raise ValueError(f"a net of {self.hidden} hidden units cannot be widened to {hidden}")
        rng = np.random.default_rng([seed, hidden])
        nets, inputs, _ = self.w1.shape
        return Network(
            np.concatenate([self.w1, rng.uniform(-scale, scale, (nets, inputs, extra))], axis=2),
            np.concatenate([self.b1, rng.uniform(-scale, scale, (nets, extra))], axis=1),
            np.concatenate([self.w2, np.zeros((nets, extra, OUTPUTS))], axis=1),
            self.b2.copy(),
            dict(self.meta),
        )

    def copy(self) -> Network:
        return Network(self.w1.copy(), self.b1.copy(), self.w2.copy(), self.b2.copy(), dict(self.meta))

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return self.w1, self.b1, self.w2, self.b2

    def evaluate(self, boards: np.ndarray) -> np.ndarray:
        """Probabilities ``(N, 5)`` of boards after a play (games not over), for the side that moved."""
        return kernel_boards(self.arrays(), np.ascontiguousarray(boards, np.int8))

    def header(self) -> dict[str, object]:
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "features_version": self.features_version,
            "inputs": int(self.w1.shape[1]),
            "hidden": self.hidden,
            "nets": NETS,
            "meta": self.meta,
        }

    def save(self, path: str | Path, dtype: type = np.float32) -> None:
        """Write an ``.npz`` (float32 by default: half the size, no loss of play strength)."""
        path = Path(path)
        buffer = io.BytesIO()
        arrays = {name: getattr(self, name).astype(dtype) for name in _ARRAYS}
        np.savez_compressed(buffer, meta=np.array(json.dumps(self.header())), **arrays)
        temporary = path.with_name(path.name + ".tmp")
        temporary.write_bytes(buffer.getvalue())
        os.replace(temporary, path)

    @classmethod
    def load(cls, source: str | Path | io.BytesIO) -> Network:
        """Read a weights file; :class:`NetworkFileError` says what is wrong with a bad one."""
        if isinstance(source, io.BytesIO):
            return cls._read(source, "<bytes>")
        name = str(source)
        handle = _open_regular(Path(source))
        with handle:
            return cls._read(handle, name)

    @classmethod
    def _read(cls, handle: io.BufferedIOBase, name: str) -> Network:
        try:
            with np.load(handle, allow_pickle=False) as data:
                header = json.loads(str(data["meta"]))
                arrays = {key: np.asarray(data[key], np.float64) for key in _ARRAYS}
        except _READ_ERRORS as error:
            reason = str(error) or type(error).__name__
            raise NetworkFileError(f"{name}: not a gammon weights file, or a damaged one ({reason})") from None
        if not isinstance(header, dict):
            raise NetworkFileError(f"{name}: not a gammon weights file (its meta is a JSON {type(header).__name__})")
        if header.get("format") != FORMAT:
            raise NetworkFileError(f"{name}: not a gammon weights file (format {header.get('format')!r})")
        if header.get("version") != FORMAT_VERSION:
            raise NetworkFileError(f"{name}: file format version {header.get('version')!r}, expected {FORMAT_VERSION}")
        version = header.get("features_version")
        inputs = VERSION_INPUTS.get(version) if isinstance(version, int) else None
        if inputs is None or header.get("inputs") != inputs:
            raise NetworkFileError(
                f"{name}: made for feature encoding v{version!r} with {header.get('inputs')!r} inputs; this gammon "
                f"reads {', '.join(f'v{v} ({n} inputs)' for v, n in VERSION_INPUTS.items())}"
            )
        hidden = header.get("hidden")
        if isinstance(hidden, bool) or not isinstance(hidden, int) or not 1 <= hidden <= MAX_HIDDEN:
            raise NetworkFileError(f"{name}: bad hidden {hidden!r}: expected a whole number of units, 1 to {MAX_HIDDEN}")
        nets = header.get("nets", 2)
        if nets not in (2, NETS):
            raise NetworkFileError(f"{name}: {nets!r} nets, expected 2 (contact, race) or {NETS} ({', '.join(NET_NAMES)})")
        shapes = {"w1": (nets, inputs, hidden), "b1": (nets, hidden), "w2": (nets, hidden, OUTPUTS), "b2": (nets, OUTPUTS)}
        for key, shape in shapes.items():
            if arrays[key].shape != shape:
                raise NetworkFileError(f"{name}: {key} has shape {arrays[key].shape}, expected {shape}")
            if not np.isfinite(arrays[key]).all():
                raise NetworkFileError(f"{name}: {key} holds non-finite weights")
        if nets == 2:  # a file from before the crashed net: its contact net answers crashed positions too
            arrays = {key: np.concatenate([value, value[CONTACT_NET:CONTACT_NET + 1]]) for key, value in arrays.items()}
        meta = header.get("meta", {})
        return cls(arrays["w1"], arrays["b1"], arrays["w2"], arrays["b2"], meta if isinstance(meta, dict) else {})


def _open_regular(path: Path) -> io.BufferedReader:
    """``path`` opened for reading, refusing a folder, a pipe or a device without blocking on it."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise NetworkFileError(f"{path}: no such weights file") from None
    except OSError as error:
        raise NetworkFileError(f"{path}: cannot read the weights file ({error.strerror or error})") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = "a folder" if stat.S_ISDIR(mode) else "a named pipe" if stat.S_ISFIFO(mode) else "a special file"
        raise NetworkFileError(f"{path}: {kind}, not a weights file")
    return os.fdopen(fd, "rb")

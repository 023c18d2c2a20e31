"""The cubeless 0-ply choice, compiled: an evaluator's kernel, the bear-off tables and the move
generator in one call, for every player that chooses at 0 ply without noise or cube.

:func:`evaluate` scores boards as :class:`~gammon.bots.CompositeEvaluator` does (finished games
exactly, the rest by the evaluator's kernel, the tables where they cover a board, then the
outcomes a board rules out); :func:`best_play` generates a roll's plays and picks the best by
cubeless equity, the first of equals, as :meth:`gammon.bots.search.Analysis.best` does at 0 ply.
They are compiled once per evaluator (:func:`bound`): numba keeps a function on disk only when
no function is passed to it as a value, so each evaluator's kernels are bound by name.
:class:`Chooser` is what :class:`~gammon.bots.Bot` calls for such a choice (0.1 ms of Python glue
less than the analysis it replaces); the rollout's trial (:mod:`gammon.rollout.kernel`) and the
trainers' loops call the same functions inside their own kernels.
"""

from __future__ import annotations

import re
import threading
import types
from collections.abc import Callable
import numpy as np

from .. import movegen
from ..bearoff._evaluator_kernels import evaluate_boards as _tables_on_roll
from ..errors import GammonError
from ..position import Position
from ..compiled import kernel
from .evaluator import BEAROFF, EvaluatorKernel, finished_probabilities, impossible_outcomes

#: The types of the arrays a choice reads, for the kernels' signatures: the bear-off tables (their
#: points, then the arrays of :meth:`~gammon.bearoff.BearoffEvaluator.kernel_arrays`, read-only as
#: mapped from their files) and the move generator's buffers (:func:`gammon.movegen.play_buffers`).
TABLES = ("Tuple((int64, Array(uint8, 2, 'C', readonly=True), Array(uint8, 2, 'C', readonly=True), "
          "Array(uint32, 2, 'C', readonly=True), Array(uint16, 1, 'C', readonly=True), "
          "Array(int16, 2, 'C', readonly=True), int64, int64))")
BUFFERS = "Tuple((int8[:, ::1], int8[:, :, ::1], int8[::1], int64[::1]))"


@kernel(inline="always")
def copy_row(source, target):
    """``target[:] = source`` for boards and rows, element by element (a slice copy makes numba
    compile a shape check with its message: seconds of compiling, for nothing)."""
    for k in range(target.shape[0]):
        target[k] = source[k]


@kernel(inline="always")
def flip_row(p, out):
    """``p`` seen by the other side (:func:`gammon.evaluation.flip_probabilities` for one row)."""
    out[0] = 1.0 - p[0]
    out[1] = p[3]
    out[2] = p[4]
    out[3] = p[1]
    out[4] = p[2]


@kernel(inline="always")
def equity_of(p):
    return 2.0 * p[0] - 1.0 + p[1] + p[2] - p[3] - p[4]


# -- evaluations, as the Evaluator class makes them ---------------------------------------------
@kernel(f"({TABLES}, int8[::1], float64[::1])")
def on_roll(tables, board, out):
    """The bear-off tables' probabilities of the side on roll of ``board`` into ``out``; False where
    they do not cover it (or there are none: ``tables[0]``, their points, is 0)."""
    if tables[0] == 0 or movegen.board_class(board) != BEAROFF:
        return False
    values = np.zeros((1, 5))
    status = np.zeros(1, np.int8)
    _tables_on_roll(board.reshape(1, 26), tables[0], tables[1], tables[2], tables[3], tables[4], tables[5],
                    tables[6], tables[7], values, status)
    if status[0]:
        return False
    copy_row(values[0], out)
    return True


def evaluate(params, tables, parent, boards, n, plays, out):
    """Probabilities of ``boards[:n]`` after a play, for the side that moved, into ``out[:n]``.

    As :meth:`Evaluator.evaluate_children` (``plays``: the plays of one roll of ``parent``) or
    :meth:`Evaluator.evaluate_batch` (positions on their own) of a
    :class:`~gammon.bots.CompositeEvaluator` with ``tables``: finished games exactly, the rest by
    the evaluator's kernel, then the tables where they cover a board, then the outcomes a board
    rules out.
    """
    live = np.empty(n, np.int64)
    count = 0
    for i in range(n):
        if not finished_probabilities(boards[i], out[i]):
            live[count] = i
            count += 1
    if count == 0:
        return
    rows = np.empty((count, 26), np.int8)
    for k in range(count):
        copy_row(boards[live[k]], rows[k])
    if plays:
        offsets = np.zeros(2, np.int64)
        offsets[1] = count
        values = CHILDREN(params, parent.reshape(1, 26), offsets, rows)  # noqa: F821
    else:
        values = BOARDS(params, rows)  # noqa: F821
    if tables[0] != 0:
        flipped = np.empty(26, np.int8)
        exact = np.empty(5)
        for k in range(count):
            if movegen.board_class(rows[k]) == BEAROFF:
                movegen.flip_into(rows[k], flipped)
                if on_roll(tables, flipped, exact):
                    flip_row(exact, values[k])
    impossible_outcomes(rows, values)
    for k in range(count):
        copy_row(values[k], out[live[k]])


def on_roll_value(params, tables, board, out):
    """The side on roll's 0-ply probabilities of ``board`` (its opponent "just moved" into it)."""
    after = movegen.flip_board(board).reshape(1, 26)
    mover = np.empty((1, 5))
    evaluate(params, tables, board, after, 1, False, mover)
    flip_row(mover[0], out)


def best_play(params, tables, board, d1, d2, buffers, probabilities):
    """The index of the best play (cubeless equity at 0 ply, the first of equals) among the
    ``n`` plays of ``board`` with ``d1``-``d2``, left in ``buffers[0]``: ``(index, n)``."""
    kids, moves, counts, hashes = buffers
    n = movegen.generate_into(board, d1, d2, kids, moves, counts, hashes, False)
    evaluate(params, tables, board, kids, n, True, probabilities)
    best = 0
    top = -1e300
    for i in range(n):
        e = equity_of(probabilities[i])
        if e > top:
            top = e
            best = i
    return best, n


#: The signatures of the functions compiled for each evaluator; ``PARAMS`` is the type of its
#: kernel's parameters (:attr:`~gammon.bots.evaluator.EvaluatorKernel.params`).
SIGNATURES = {
    "evaluate": f"(readonly(PARAMS), {TABLES}, int8[::1], int8[:, ::1], int64, boolean, float64[:, ::1])",
    "on_roll_value": f"(readonly(PARAMS), {TABLES}, int8[::1], float64[::1])",
    "best_play": f"(readonly(PARAMS), {TABLES}, int8[::1], int64, int64, {BUFFERS}, float64[:, ::1])",
}


def bind(function: Callable, signature: str, suffix: str, calls: dict[str, object], params: tuple[object, ...]
         ) -> Callable:
    """``function`` compiled with ``signature`` and the names it calls bound to ``calls`` (as
    :mod:`gammon.bearoff._evaluator_kernels` binds its steps) for an evaluator's ``params``,
    cached on disk under its name and ``suffix``."""
    name = f"{function.__name__}_{suffix}"
    made = types.FunctionType(function.__code__, {**function.__globals__, **calls}, name,
                              function.__defaults__, function.__closure__)
    made.__qualname__ = name  # the on-disk cache is named after it
    return kernel(signature, like={"PARAMS": params})(made)


_bound: dict[tuple[object, object], dict[str, Callable]] = {}


def suffix_of(evaluator: EvaluatorKernel) -> str:
    """The name an evaluator's bound functions carry on disk: its kernel's module and name."""
    source = evaluator.children.py_func
    return re.sub(r"\W", "_", f"{source.__module__}.{source.__qualname__}")


def bound(evaluator: EvaluatorKernel) -> dict[str, Callable]:
    """:func:`evaluate`, :func:`on_roll_value` and :func:`best_play` compiled for one evaluator
    (by name, each calling the others bound alike), once per process."""
    key = (evaluator.children, evaluator.boards)
    if key not in _bound:
        suffix = suffix_of(evaluator)
        params = evaluator.params
        steps: dict[str, Callable] = {}
        steps["evaluate"] = bind(evaluate, SIGNATURES["evaluate"], suffix,
                                 {"CHILDREN": evaluator.children, "BOARDS": evaluator.boards}, params)
        steps["on_roll_value"] = bind(on_roll_value, SIGNATURES["on_roll_value"], suffix, steps, params)
        steps["best_play"] = bind(best_play, SIGNATURES["best_play"], suffix, steps, params)
        _bound[key] = steps
    return _bound[key]


def tables_of(source: object) -> tuple:
    """The bear-off tables' arrays for the kernels, or empty ones (points 0) without tables."""
    arrays = getattr(source, "kernel_arrays", None)
    if arrays is not None:
        try:
            return arrays()
        except (OSError, GammonError, ValueError):
            pass
    return (0, np.zeros((0, 2), np.uint8), np.zeros((0, 2), np.uint8), np.zeros((0, 2), np.uint32),
            np.zeros(0, np.uint16), np.zeros((0, 4), np.int16), 0, 0)


class Chooser:
    """A noise-free cubeless 0-ply choice for one evaluator's kernel and bear-off tables, compiled
    and loaded when it is made (not inside its first choice). One choice at a time (a lock):
    the move generator's buffers are its own."""

    def __init__(self, evaluator: EvaluatorKernel, bearoff: object) -> None:
        self._params = evaluator.params
        self._tables = tables_of(bearoff)
        self._best = bound(evaluator)["best_play"]
        self._buffers = movegen.play_buffers()
        self._probabilities = np.empty((movegen.MAX_PLAYS, 5))
        self._lock = threading.Lock()
        self.choose_board(Position().array(), 3, 1)  # its code loaded (or compiled) now: the first choice is as quick as any

    def choose_board(self, board: np.ndarray, d1: int, d2: int) -> np.ndarray:
        """The board after the best play of ``board`` (a writable contiguous int8 kernel board,
        side to move) with ``d1``-``d2``: a new array."""
        with self._lock:
            best, _ = self._best(self._params, self._tables, board, d1, d2, self._buffers, self._probabilities)
            return self._buffers[0][best].copy()

    def choose_moves(self, board: np.ndarray, d1: int, d2: int) -> tuple[np.ndarray, int]:
        """The checker moves of the best play of ``board`` with ``d1``-``d2`` (a new array) and how many they are."""
        with self._lock:
            best, _ = self._best(self._params, self._tables, board, d1, d2, self._buffers, self._probabilities)
            return self._buffers[1][best].copy(), int(self._buffers[2][best])



"""The rollout trial, compiled: one game played out inside numba, its luck measured as it goes.

:func:`advance` is the only implementation of a trial (:class:`~gammon.rollout.trial.Roller`
drives it). It plays the side on roll's turns -- the cube decision, the roll, the luck of
the roll, the play -- until the game ends, the bear-off tables cover a cubeless position,
or the truncation comes. A noise-free 0-ply bot's decisions are made in the kernel itself,
by the evaluator's compiled form (:class:`~gammon.bots.evaluator.EvaluatorKernel`) and
Janowski's cubeful values, exactly as :class:`~gammon.bots.Bot` makes them at 0 ply. For any
other bot (deeper, noisy) the kernel stops and asks: it returns :data:`ASK_DOUBLE`,
:data:`ASK_ANSWER` or :data:`ASK_PLAY`, its caller writes the bot's answer and calls again,
and the trial goes on where it stopped. The luck is always the evaluator's 0-ply, in the kernel.

A trial's state lives in arrays the caller owns (:func:`start`): the board of the side on
roll, the integers of :data:`PHASE` ... :data:`REPLY`, the luck so far, the dice stream.
The cube is an index into a graph of cube contexts the caller precomputes
(:class:`~gammon.rollout.trial.CubeGraph`): each node's outcome table, double flags and the
nodes a flip, a double and a beaver lead to, so no Python object is needed inside.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .. import movegen
from ..bots.chooser import (BUFFERS, TABLES, best_play, bind, bound, copy_row, equity_of, evaluate, flip_row, on_roll,
                            on_roll_value, suffix_of)
from ..bots.evaluator import EvaluatorKernel
from ..bots.search import ROLL_WEIGHTS, ROLLS
from ..cube.janowski import _efficiency, cubeful_kernel
from ..dice.streams import next_roll, stream_state
from ..evaluation import BEAVER, PASS
from ..evaluation import cube_verdict as _cube_verdict
from ..compiled import kernel

#: What :func:`advance` returns: the trial is over, or it needs the bot's answer to go on.
DONE, ASK_DOUBLE, ASK_ANSWER, ASK_PLAY = 0, 1, 2, 3
#: The integers of a trial's state: where it stands, the turn, whether the side on roll is the
#: root's, the cube (a node in the root's view; -1: cubeless), the dice, the cube node of the
#: side on roll, the answer to the question asked (1/0 to double; take, pass or beaver), and
#: the 0-ply answer to a double decided with the double itself.
PHASE, TURN, MINE, CUBE, D1, D2, ROLLER, REPLY, TAKER = range(9)
INTS = 9
#: Phases: a turn starts, a double was decided, an answer was given, the dice roll, a play was made.
_START, _DOUBLED, _ANSWERED, _ROLL, _PLAYED = range(5)
#: Turns after which an untruncated trial stops anyway (no real game comes near).
MAX_TURNS = 5000
#: The index in :data:`~gammon.bots.search.ROLLS` of each ordered roll ``(d1 - 1, d2 - 1)``.
ROLL_INDEX = np.zeros((6, 6), np.int64)
for _i, (_a, _b) in enumerate(ROLLS):
    ROLL_INDEX[_a - 1, _b - 1] = ROLL_INDEX[_b - 1, _a - 1] = _i
#: Step between second rolls of consecutive trials (see :func:`gammon.rollout.trial.quasi_random_rolls`).
SECOND_STEP = 7

#: The types of the arrays a trial reads, for the kernels' signatures: the cube graph
#: (:class:`~gammon.rollout.trial.CubeGraph`), the bear-off tables (their points, then the arrays
#: of :meth:`~gammon.bearoff.BearoffEvaluator.kernel_arrays`, read-only as mapped from their
#: files) and the move generator's buffers (:func:`gammon.movegen.play_buffers`).
CUBES = ("readonly(Tuple((float64[:, :, ::1], boolean[:, :, ::1], int64[::1], int64[::1], boolean[::1], boolean[::1], "
         "boolean[::1], float64[::1], int64[::1], int64[::1], int64[::1], boolean[::1], boolean[::1], float64[::1], "
         "float64[::1])))")
cube_verdict = kernel("(float64, float64, float64, boolean, boolean, float64)")(_cube_verdict)


# -- the cube ------------------------------------------------------------------------------------
@kernel(f"({CUBES}, int64, float64[:, ::1], float64[::1], float64[::1])")
def cubeful(cubes, node, probabilities, efficiency, out):
    """Janowski's cubeful values (:func:`gammon.cube.janowski.cubeful_values`) in cube ``node``."""
    table, flags, levels, owner, dead = cubes[0], cubes[1], cubes[2], cubes[3], cubes[4]
    used = levels[node]
    if dead[node]:
        efficiency = np.zeros(efficiency.shape[0])
    cubeful_kernel(probabilities, efficiency, table[node, :used], flags[node, :used], owner[node], out)


@kernel(f"({CUBES}, int64, float64)")
def normalise(cubes, node, value):
    """A value in ``node``'s units as equity per cube (:meth:`CubeContext.normalise`)."""
    win, lose = cubes[13][node], cubes[14][node]
    return (2.0 * value - (win + lose)) / (win - lose)


@kernel(f"({CUBES}, int64, float64)")
def opponent_value(cubes, node, value):
    """The same outcome valued by the other side: minus the points, or one minus the MWC."""
    return -value if cubes[11][node] else 1.0 - value


@kernel(f"({CUBES}, int64, float64[:, ::1], int8[:, ::1], int64, float64[::1])")
def mover_values(cubes, node, probabilities, boards, n, out):
    """Cubeful values, for the side that played into ``boards[:n]`` (``probabilities`` its own), in
    ``node`` (its view): the side now on roll doubles when it is right to, the other answers with
    what is worse for it (:meth:`gammon.bots.CubefulSearch.mover_values` at 0 ply)."""
    flip_of, doubled, beavered, can_double, can_beaver, cash = cubes[8], cubes[9], cubes[10], cubes[5], cubes[6], cubes[7]
    other = flip_of[node]
    theirs = np.empty((n, 5))
    efficiency = np.empty(n)
    flipped = np.empty(26, np.int8)
    for i in range(n):
        flip_row(probabilities[i], theirs[i])
        movegen.flip_into(boards[i], flipped)
        efficiency[i] = _efficiency(flipped)
    best = np.empty(n)
    cubeful(cubes, other, theirs, efficiency, best)
    if can_double[other]:
        take = np.empty(n)
        cubeful(cubes, doubled[other], theirs, efficiency, take)
        beaver = can_beaver[node]
        beavers = np.empty(n)
        if beaver:
            cubeful(cubes, beavered[other], theirs, efficiency, beavers)
        for i in range(n):
            answer = min(take[i], cash[other])
            if beaver:
                answer = min(answer, beavers[i])
            best[i] = max(best[i], answer)
    for i in range(n):
        out[i] = opponent_value(cubes, node, best[i])


@kernel(f"({CUBES}, int64, float64[::1], int8[::1])")
def decision(cubes, node, probabilities, board):
    """``(double, answer)`` of the side on roll of ``board`` in cube ``node`` at 0 ply, from its
    probabilities (:meth:`gammon.bots.Bot.should_double` and ``answer_double``)."""
    can_double, can_beaver, flip_of, doubled, beavered = cubes[5], cubes[6], cubes[8], cubes[9], cubes[10]
    if not can_double[node]:
        return False, 0
    if cubes[12][node] and equity_of(probabilities) <= 0.0:
        return False, 0  # money without Jacoby: a side that is not ahead never gains by doubling
    rows = probabilities.reshape(1, 5)
    efficiency = np.empty(1)
    efficiency[0] = _efficiency(board)
    value = np.empty(1)
    cubeful(cubes, node, rows, efficiency, value)
    no_double = normalise(cubes, node, value[0])
    cubeful(cubes, doubled[node], rows, efficiency, value)
    double_take = normalise(cubes, node, value[0])
    beaver = can_beaver[flip_of[node]]
    beaver_value = 0.0
    if beaver:
        cubeful(cubes, beavered[node], rows, efficiency, value)
        beaver_value = normalise(cubes, node, value[0])
    double, answer, _ = cube_verdict(no_double, double_take, 1.0, True, beaver, beaver_value)
    return double, answer


@kernel(f"({CUBES}, int64, float64[::1], int8[::1])")
def cubeful_value(cubes, node, probabilities, board):
    """The side on roll's cubeful value in ``node``, its cube action included
    (:meth:`gammon.bots.CubefulSearch.value` at 0 ply)."""
    can_double, can_beaver, flip_of, doubled, beavered, cash = cubes[5], cubes[6], cubes[8], cubes[9], cubes[10], cubes[7]
    rows = probabilities.reshape(1, 5)
    efficiency = np.empty(1)
    efficiency[0] = _efficiency(board)
    value = np.empty(1)
    cubeful(cubes, node, rows, efficiency, value)
    best = value[0]
    if can_double[node]:
        cubeful(cubes, doubled[node], rows, efficiency, value)
        answer = min(value[0], cash[node])
        if can_beaver[flip_of[node]]:
            cubeful(cubes, beavered[node], rows, efficiency, value)
            answer = min(answer, value[0])
        best = max(best, answer)
    return best


# -- a trial -----------------------------------------------------------------------------------------
@kernel("(readonly(int8[::1]), int64, int64, int64, int8[::1], int64[::1], float64[::1], uint64[::1])")
def start(board, root, seed, number, state, ints, luck, stream):
    """Set up trial ``number`` of ``seed`` from ``board`` (the side on roll's, before its roll) in
    the caller's arrays: ``state`` (the board as it goes), ``ints``, ``luck`` (five probabilities
    and the cubeful luck) and ``stream`` (the dice after the first two rolls)."""
    copy_row(board, state)
    ints[:] = 0
    ints[PHASE] = _START
    ints[MINE] = 1
    ints[CUBE] = root
    ints[ROLLER] = root
    luck[:] = 0.0
    copy_row(stream_state(seed, number), stream)


@kernel(f"({CUBES}, int64, int64[::1], float64[::1], float64[::1], float64, float64[::1])")
def _finish(cubes, root, ints, luck, probabilities, value, out):
    """The trial's samples for the root's side: the outcome less the luck."""
    if not ints[MINE]:
        seen = np.empty(5)
        flip_row(probabilities, seen)
        probabilities = seen
        if root >= 0:
            value = opponent_value(cubes, root, value)
    for k in range(5):
        out[k] = probabilities[k] - luck[k]
    out[5] = equity_of(out)
    out[6] = np.nan if root < 0 else normalise(cubes, root, value - luck[5])
    return DONE


def advance(params, same, tables, exact, cubes, root, number, truncate, reduce, ask,
            state, ints, luck, stream, after, chosen, chosen_p, buffers, probabilities, values, out):
    """Play the trial on from where ``ints[PHASE]`` says until it ends (:data:`DONE`, samples in
    ``out``) or, with ``ask``, until the bot must answer (:data:`ASK_DOUBLE`: 1 or 0 in
    ``ints[REPLY]``; :data:`ASK_ANSWER`: take, pass or beaver there; :data:`ASK_PLAY`: the board
    after its play in ``after``). Without ``ask`` the 0-ply bot answers here.

    ``same`` says the evaluator's two kernels agree (:class:`~gammon.bots.evaluator.EvaluatorKernel`);
    ``tables`` are the bear-off tables the bot's evaluator uses (its play and the luck),
    ``exact`` those that end a cubeless trial and value a truncated one; ``reduce`` turns the
    luck adjustment on; ``truncate`` > 0 ends a trial after that many turns.
    """
    can_double, flip_of, doubled, beavered, cash, table = cubes[5], cubes[8], cubes[9], cubes[10], cubes[7], cubes[0]
    mine_p = np.empty(5)
    while True:
        phase = ints[PHASE]
        mine = ints[MINE] == 1
        cube = ints[CUBE]
        if phase == _START:
            roller = -1 if cube < 0 else (cube if mine else flip_of[cube])
            ints[ROLLER] = roller
            if cube < 0 and on_roll(exact, state, mine_p):
                return _finish(cubes, root, ints, luck, mine_p, np.nan, out)
            if (truncate > 0 and ints[TURN] >= truncate) or ints[TURN] >= MAX_TURNS:
                on_roll_value(params, exact, state, mine_p)
                value = np.nan if roller < 0 else cubeful_value(cubes, roller, mine_p, state)
                return _finish(cubes, root, ints, luck, mine_p, value, out)
            ints[PHASE] = _ROLL
            if roller >= 0 and can_double[roller]:
                ints[PHASE] = _DOUBLED
                if ask:
                    return ASK_DOUBLE
                on_roll_value(params, tables, state, mine_p)
                double, answer = decision(cubes, roller, mine_p, state)
                ints[REPLY] = 1 if double else 0
                ints[TAKER] = answer
            continue
        if phase == _DOUBLED:
            ints[PHASE] = _ANSWERED
            if ints[REPLY] == 0:
                ints[PHASE] = _ROLL
                continue
            if ask:
                return ASK_ANSWER
            ints[REPLY] = ints[TAKER]
            continue
        if phase == _ANSWERED:
            roller = ints[ROLLER]
            if ints[REPLY] == PASS:
                on_roll_value(params, exact, state, mine_p)
                return _finish(cubes, root, ints, luck, mine_p, cash[roller], out)
            roller = beavered[roller] if ints[REPLY] == BEAVER else doubled[roller]
            ints[ROLLER] = roller
            ints[CUBE] = roller if mine else flip_of[roller]
            ints[PHASE] = _ROLL
            continue
        if phase == _ROLL:
            roller = ints[ROLLER]
            turn = ints[TURN]
            if turn == 0:
                first = number % 36
                d1, d2 = first // 6 + 1, first % 6 + 1
            elif turn == 1:
                first = number % 36
                second = (number // 36 + SECOND_STEP * first) % 36
                d1, d2 = second // 6 + 1, second % 6 + 1
            else:
                d1, d2 = next_roll(stream)
            ints[D1] = d1
            ints[D2] = d2
            r = ROLL_INDEX[d1 - 1, d2 - 1]
            if reduce:
                for k in range(21):
                    a, b = ROLLS[k]
                    best, _ = best_play(params, tables, state, a, b, buffers, probabilities)
                    copy_row(buffers[0][best], chosen[k])
                    copy_row(probabilities[best], chosen_p[k])
                outcomes = chosen_p
                if not same:  # the plays were scored with their parent: value them on their own
                    outcomes = np.empty((21, 5))
                    evaluate(params, tables, state, chosen, 21, False, outcomes)
                if roller >= 0:
                    mover = np.empty(21)
                    mover_values(cubes, roller, outcomes, chosen, 21, mover)
                    swing = mover[r]
                    for k in range(21):
                        swing -= ROLL_WEIGHTS[k] * mover[k]
                    luck[5] += swing if mine else -swing
                seen = np.empty((21, 5))
                for j in range(21):
                    if mine:
                        copy_row(outcomes[j], seen[j])
                    else:
                        flip_row(outcomes[j], seen[j])
                for k in range(5):
                    average = 0.0
                    for j in range(21):
                        average += ROLL_WEIGHTS[j] * seen[j, k]
                    luck[k] += seen[r, k] - average
            ints[PHASE] = _PLAYED
            if ask:
                return ASK_PLAY
            if roller < 0 and reduce:
                copy_row(chosen[r], after)
            elif roller < 0:
                best, _ = best_play(params, tables, state, d1, d2, buffers, probabilities)
                copy_row(buffers[0][best], after)
            else:
                kids, moves, counts, hashes = buffers
                n = movegen.generate_into(state, d1, d2, kids, moves, counts, hashes, False)
                evaluate(params, tables, state, kids, n, False, probabilities)
                mover_values(cubes, roller, probabilities, kids, n, values)
                best = 0
                top = -1e300
                for i in range(n):
                    if values[i] > top:
                        top = values[i]
                        best = i
                copy_row(kids[best], after)
            continue
        # _PLAYED: the board after the side on roll's play is in ``after``.
        roller = ints[ROLLER]
        kind = movegen.win_kind(after)
        if kind:
            mine_p[:] = 0.0
            mine_p[0] = 1.0
            mine_p[1] = 1.0 if kind >= 2 else 0.0
            mine_p[2] = 1.0 if kind == 3 else 0.0
            value = np.nan if roller < 0 else table[roller, 0, kind - 1]
            return _finish(cubes, root, ints, luck, mine_p, value, out)
        movegen.flip_into(after, state)
        ints[MINE] = 0 if mine else 1
        ints[TURN] += 1
        ints[PHASE] = _START


def play_trials(params, same, tables, exact, cubes, root, board, seed, first, truncate, reduce, out):
    """Trials ``first``, ``first + 1``, ... of a noise-free 0-ply bot, one row of ``out`` each: a
    block in one call, so the arguments are read once (from Python each call costs more than
    a short trial)."""
    state = np.empty(26, np.int8)
    after = np.empty(26, np.int8)
    ints = np.zeros(INTS, np.int64)
    luck = np.zeros(6)
    stream = np.zeros(1, np.uint64)
    chosen = np.empty((21, 26), np.int8)
    chosen_p = np.empty((21, 5))
    buffers = movegen.play_buffers()
    probabilities = np.empty((movegen.MAX_PLAYS, 5))
    values = np.empty(movegen.MAX_PLAYS)
    for row in range(out.shape[0]):
        number = first + row
        start(board, root, seed, number, state, ints, luck, stream)
        advance(params, same, tables, exact, cubes, root, number, truncate, reduce, False, state, ints, luck, stream,
                after, chosen, chosen_p, buffers, probabilities, values, out[row])


# -- one compiled trial per evaluator ------------------------------------------------------------------
_trials: dict[tuple[object, object], tuple[Callable, Callable]] = {}


#: The signatures of the trial's functions compiled for each evaluator (beside the chooser's,
#: :data:`gammon.bots.chooser.SIGNATURES`); ``PARAMS`` is the type of its kernel's parameters.
_BOUND = {
    "advance": f"(readonly(PARAMS), boolean, {TABLES}, {TABLES}, {CUBES}, int64, int64, int64, boolean, boolean, int8[::1], "
               f"int64[::1], float64[::1], uint64[::1], int8[::1], int8[:, ::1], float64[:, ::1], {BUFFERS}, "
               "float64[:, ::1], float64[::1], float64[::1])",
    "play_trials": f"(readonly(PARAMS), boolean, {TABLES}, {TABLES}, {CUBES}, int64, readonly(int8[::1]), int64, int64, "
                   "int64, boolean, float64[:, ::1])",
}


def trial_functions(evaluator: EvaluatorKernel) -> tuple[Callable, Callable]:
    """:func:`advance` and :func:`play_trials` compiled for one evaluator.

    They call the chooser's :func:`~gammon.bots.chooser.evaluate`, ``on_roll_value`` and
    ``best_play`` compiled for the same evaluator (:func:`gammon.bots.chooser.bound`), bound by
    name (numba keeps a function on disk only when no function is passed to it as a value), so
    the trial compiles once per evaluator and machine, not once per process.
    """
    key = (evaluator.children, evaluator.boards)
    if key not in _trials:
        suffix = suffix_of(evaluator)
        steps = dict(bound(evaluator))
        steps["advance"] = bind(advance, _BOUND["advance"], suffix, steps, evaluator.params)
        _trials[key] = (steps["advance"], bind(play_trials, _BOUND["play_trials"], suffix, steps, evaluator.params))
    return _trials[key]

"""The rules of moving checkers, as one compiled kernel.

This module is the single implementation of backgammon's movement rules in gammon; every
other layer (the :class:`~gammon.Position` API, the game, bearoff tables, engines) calls it.

The kernel works on one board representation, always from the side to move:

* ``board`` is an ``int8`` array of 26 entries;
* ``board[1..24]`` are the points in the mover's numbering (1 = its ace point): positive
  counts are the mover's checkers, negative counts the opponent's;
* ``board[25]`` is the mover's bar (>= 0) and ``board[0]`` the opponent's bar (<= 0);
* borne-off checkers are whatever is missing from 15.

A checker move is ``(from, to, hit)`` with ``from`` 25 for the bar and ``to`` 0 for off.
"""

from __future__ import annotations

import numpy as np
from numba import njit

BOARD_SIZE = 26
OWN_BAR = 25
OPPONENT_BAR = 0
OFF = 0
#: Room for the distinct results of one roll; the worst known positions have a few thousand.
MAX_PLAYS = 4096


@njit(cache=True, inline="always")
def _destination(board, source, die):
    """Where a checker from ``source`` lands with ``die``, or -1 when that move is illegal.

    Bearing off is allowed only with every checker home (points 1-6); a die larger than
    needed bears off only from the highest occupied point (6-3 with the last checkers on
    the 4- and 2-points: the 6 bears off from the 4-point, not from the 2-point).
    """
    if board[source] <= 0:
        return -1
    if source != OWN_BAR and board[OWN_BAR] > 0:
        return -1  # checkers on the bar enter first
    target = source - die
    if target >= 1:
        return target if board[target] >= -1 else -1
    for point in range(7, 26):
        if board[point] > 0:
            return -1
    if target == 0:
        return 0
    for point in range(source + 1, 7):
        if board[point] > 0:
            return -1
    return 0


@njit(cache=True, inline="always")
def _apply_move(board, source, target):
    """Move one checker in place; returns 1 when it hits a blot (sent to the opponent's bar)."""
    board[source] -= 1
    if target == OFF:
        return 0
    hit = 0
    if board[target] == -1:
        board[target] = 0
        board[OPPONENT_BAR] -= 1
        hit = 1
    board[target] += 1
    return hit


@njit(cache=True, inline="always")
def _board_hash(board):
    value = np.int64(0)
    for i in range(BOARD_SIZE):
        value = value * np.int64(31) + np.int64(board[i] + 16)
    return value


@njit(cache=True)
def _record(board, moves, move_count, depth, out_boards, out_moves, out_counts, hashes, state):
    """Keep a result of ``depth`` checker moves unless a deeper play exists or it is a repeat.

    ``state`` holds (number of results, their depth). A deeper result discards the
    shallower ones: a play must use as many dice as any play can.
    """
    n = state[0]
    if depth < state[1]:
        return
    if depth > state[1]:
        n = 0
        state[1] = depth
    value = _board_hash(board)
    for i in range(n):
        if hashes[i] == value:
            same = True
            for j in range(BOARD_SIZE):
                if out_boards[i, j] != board[j]:
                    same = False
                    break
            if same:
                return
    if n >= out_boards.shape[0]:
        raise ValueError("more distinct plays than MAX_PLAYS")
    hashes[n] = value
    out_boards[n, :] = board
    out_moves[n, :, :] = 0
    for k in range(move_count):
        out_moves[n, k, 0] = moves[k, 0]
        out_moves[n, k, 1] = moves[k, 1]
        out_moves[n, k, 2] = moves[k, 2]
    out_counts[n] = move_count
    state[0] = n + 1


@njit(cache=True)
def _generate_doubles(board, die, out_boards, out_moves, out_counts, hashes, state):
    # Checker moves of one die commute, so each play is generated once with its sources in
    # non-increasing order (25 = bar first); the hash table removes the remaining repeats.
    moves = np.zeros((4, 3), np.int8)
    b1 = np.empty(BOARD_SIZE, np.int8)
    b2 = np.empty(BOARD_SIZE, np.int8)
    b3 = np.empty(BOARD_SIZE, np.int8)
    b4 = np.empty(BOARD_SIZE, np.int8)
    any1 = False
    for s1 in range(25, 0, -1):
        t1 = _destination(board, s1, die)
        if t1 < 0:
            continue
        any1 = True
        b1[:] = board
        moves[0, 0] = s1
        moves[0, 1] = t1
        moves[0, 2] = _apply_move(b1, s1, t1)
        any2 = False
        for s2 in range(s1, 0, -1):
            t2 = _destination(b1, s2, die)
            if t2 < 0:
                continue
            any2 = True
            b2[:] = b1
            moves[1, 0] = s2
            moves[1, 1] = t2
            moves[1, 2] = _apply_move(b2, s2, t2)
            any3 = False
            for s3 in range(s2, 0, -1):
                t3 = _destination(b2, s3, die)
                if t3 < 0:
                    continue
                any3 = True
                b3[:] = b2
                moves[2, 0] = s3
                moves[2, 1] = t3
                moves[2, 2] = _apply_move(b3, s3, t3)
                any4 = False
                for s4 in range(s3, 0, -1):
                    t4 = _destination(b3, s4, die)
                    if t4 < 0:
                        continue
                    any4 = True
                    b4[:] = b3
                    moves[3, 0] = s4
                    moves[3, 1] = t4
                    moves[3, 2] = _apply_move(b4, s4, t4)
                    _record(b4, moves, 4, 4, out_boards, out_moves, out_counts, hashes, state)
                if not any4:
                    _record(b3, moves, 3, 3, out_boards, out_moves, out_counts, hashes, state)
            if not any3:
                _record(b2, moves, 2, 2, out_boards, out_moves, out_counts, hashes, state)
        if not any2:
            _record(b1, moves, 1, 1, out_boards, out_moves, out_counts, hashes, state)
    if not any1:
        _record(board, moves, 0, 0, out_boards, out_moves, out_counts, hashes, state)


@njit(cache=True)
def _generate_mixed(board, d1, d2, out_boards, out_moves, out_counts, hashes, state):
    moves = np.zeros((4, 3), np.int8)
    b1 = np.empty(BOARD_SIZE, np.int8)
    b2 = np.empty(BOARD_SIZE, np.int8)
    for order in range(2):
        first = d1 if order == 0 else d2
        second = d2 if order == 0 else d1
        for s1 in range(25, 0, -1):
            t1 = _destination(board, s1, first)
            if t1 < 0:
                continue
            b1[:] = board
            moves[0, 0] = s1
            moves[0, 1] = t1
            moves[0, 2] = _apply_move(b1, s1, t1)
            for s2 in range(25, 0, -1):
                t2 = _destination(b1, s2, second)
                if t2 < 0:
                    continue
                b2[:] = b1
                moves[1, 0] = s2
                moves[1, 1] = t2
                moves[1, 2] = _apply_move(b2, s2, t2)
                _record(b2, moves, 2, 2, out_boards, out_moves, out_counts, hashes, state)
    if state[0] > 0:
        return
    # Only one die can be played: the larger one if it can be (larger-die rule), else the
    # smaller. 6-1 with only the 6 or only the 1 playable plays that die; with both
    # playable but never together, the 6 must be played.
    for die in (max(d1, d2), min(d1, d2)):
        for s1 in range(25, 0, -1):
            t1 = _destination(board, s1, die)
            if t1 < 0:
                continue
            b1[:] = board
            moves[0, 0] = s1
            moves[0, 1] = t1
            moves[0, 2] = _apply_move(b1, s1, t1)
            _record(b1, moves, 1, 1, out_boards, out_moves, out_counts, hashes, state)
        if state[0] > 0:
            return
    _record(board, moves, 0, 0, out_boards, out_moves, out_counts, hashes, state)


@njit(cache=True)
def generate_into(board, d1, d2, out_boards, out_moves, out_counts, hashes):
    """Fill the output buffers with the legal plays of ``board`` for the roll ``d1``-``d2``.

    Returns the number of distinct resulting positions. A roll with no legal play gives
    one result: the unchanged board with zero checker moves.
    """
    state = np.zeros(2, np.int64)
    if d1 == d2:
        _generate_doubles(board, d1, out_boards, out_moves, out_counts, hashes, state)
    else:
        _generate_mixed(board, d1, d2, out_boards, out_moves, out_counts, hashes, state)
    return state[0]


@njit(cache=True)
def generate(board, d1, d2):
    """Legal plays of one board: (result boards (n, 26), moves (n, 4, 3), move counts (n,))."""
    out_boards = np.empty((MAX_PLAYS, BOARD_SIZE), np.int8)
    out_moves = np.empty((MAX_PLAYS, 4, 3), np.int8)
    out_counts = np.empty(MAX_PLAYS, np.int8)
    hashes = np.empty(MAX_PLAYS, np.int64)
    n = generate_into(board, d1, d2, out_boards, out_moves, out_counts, hashes)
    return out_boards[:n].copy(), out_moves[:n].copy(), out_counts[:n].copy()


@njit(cache=True)
def generate_batch(boards, dice):
    """Legal plays of many boards at once, for search, training and table builds.

    ``boards`` is (N, 26) int8 and ``dice`` (N, 2). Returns ``offsets`` (N + 1,) and the
    concatenated results: the plays of board ``i`` are rows ``offsets[i]:offsets[i + 1]``.
    """
    count = boards.shape[0]
    scratch_boards = np.empty((MAX_PLAYS, BOARD_SIZE), np.int8)
    scratch_moves = np.empty((MAX_PLAYS, 4, 3), np.int8)
    scratch_counts = np.empty(MAX_PLAYS, np.int8)
    hashes = np.empty(MAX_PLAYS, np.int64)
    capacity = max(16, count * 24)
    all_boards = np.empty((capacity, BOARD_SIZE), np.int8)
    all_moves = np.empty((capacity, 4, 3), np.int8)
    all_counts = np.empty(capacity, np.int8)
    offsets = np.zeros(count + 1, np.int64)
    total = 0
    for i in range(count):
        n = generate_into(boards[i], dice[i, 0], dice[i, 1], scratch_boards, scratch_moves, scratch_counts, hashes)
        if total + n > capacity:
            capacity = max(capacity * 2, total + n)
            grown_boards = np.empty((capacity, BOARD_SIZE), np.int8)
            grown_moves = np.empty((capacity, 4, 3), np.int8)
            grown_counts = np.empty(capacity, np.int8)
            grown_boards[:total] = all_boards[:total]
            grown_moves[:total] = all_moves[:total]
            grown_counts[:total] = all_counts[:total]
            all_boards, all_moves, all_counts = grown_boards, grown_moves, grown_counts
        all_boards[total : total + n] = scratch_boards[:n]
        all_moves[total : total + n] = scratch_moves[:n]
        all_counts[total : total + n] = scratch_counts[:n]
        total += n
        offsets[i + 1] = total
    return offsets, all_boards[:total], all_moves[:total], all_counts[:total]


@njit(cache=True)
def flip_board(board):
    """The same board seen from the other side: the one place where perspective flips."""
    flipped = np.empty(BOARD_SIZE, np.int8)
    for i in range(BOARD_SIZE):
        flipped[i] = -board[25 - i]
    return flipped

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

import threading

import numpy as np

from .board import flip_into as _flip
from .compiled import kernel

BOARD_SIZE = 26
OWN_BAR = 25
OPPONENT_BAR = 0
OFF = 0
#: Room for the distinct results of one roll; the worst known positions have a few thousand.
MAX_PLAYS = 4096
#: Slots of the index that finds a double's repeated plays in constant time (a power of two, at
#: least twice MAX_PLAYS so the open addressing never fills beyond half). It lives in the
#: ``hashes`` buffer after the MAX_PLAYS kept hashes and one generation stamp: a slot whose stamp is
#: not the current one is empty, so nothing is cleared between generations.
INDEX_SLOTS = 8192
_INDEX = MAX_PLAYS + 1  # where the index starts in ``hashes``; hashes[MAX_PLAYS] is the stamp
HASHES_SIZE = _INDEX + INDEX_SLOTS


@kernel(inline="always")
def occupied_points(board):
    """Bitmask of the points (and bar, bit 25) holding the mover's checkers."""
    mask = 0
    for point in range(1, 26):
        if board[point] > 0:
            mask |= 1 << point
    return mask


_HOME_MASK = (1 << 7) - 1  # bits 0-6: off and the home points


@kernel(inline="always")
def destination_in(board, occupied, source, die):
    """Where a checker from ``source`` lands with ``die``, or -1 when that move is illegal.

    ``occupied`` is the bitmask of the mover's occupied points (:func:`occupied_points`).
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
    if occupied >> 7:
        return -1  # a checker outside the home board
    if target == 0:
        return 0
    if (occupied & _HOME_MASK) >> (source + 1):
        return -1  # a larger die bears off only from the highest point
    return 0


@kernel("(readonly(int8[::1]), int64, int64)", ahead=False, inline="always")
def destination(board, source, die):
    """:func:`destination_in` for callers that have no occupied-points mask at hand."""
    return destination_in(board, occupied_points(board), source, die)


@kernel("(int8[::1], int64, int64)", ahead=False, inline="always")
def apply_move(board, source, target):
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


# Zobrist keys: one random 64-bit word per (board entry, value); a board's hash is the XOR
# of its entries' words, so a checker move updates it in O(1). Equal hashes are confirmed by
# comparing the boards, so a collision can never merge two distinct plays.
_ZOBRIST = np.random.default_rng(0x6A6D6D6F6E).integers(-(2**62), 2**62, size=(BOARD_SIZE, 33), dtype=np.int64)


# Highest set bit of a 13-bit number: source points are walked as a bitmask of the mover's
# occupied points, highest first, instead of scanning all 25 entries for every checker move.
_HIGHEST_BIT = np.zeros(1 << 13, np.int8)
for _value in range(1, 1 << 13):
    _HIGHEST_BIT[_value] = _value.bit_length() - 1


@kernel(inline="always")
def _highest(mask):
    upper = mask >> 13
    if upper:
        return 13 + _HIGHEST_BIT[upper]
    return _HIGHEST_BIT[mask]


@kernel(inline="always")
def _after(mask, board, source, target):
    """The occupied mask after a move from ``source`` to ``target`` made on ``board``."""
    if board[source] == 0:
        mask &= ~(1 << source)
    if target != OFF:
        mask |= 1 << target
    return mask


@kernel("(readonly(int8[::1]),)")
def board_hash(board):
    """The Zobrist hash of a board (what the incremental updates below maintain)."""
    value = np.int64(0)
    for i in range(BOARD_SIZE):
        value ^= _ZOBRIST[i, board[i] + 16]
    return value


@kernel(inline="always")
def _make(board, source, target, value):
    """Move one checker in place, updating the hash; returns (hit, new hash)."""
    old = board[source]
    board[source] = old - 1
    value ^= _ZOBRIST[source, old + 16] ^ _ZOBRIST[source, old + 15]
    if target == OFF:
        return 0, value
    hit = 0
    here = board[target]
    if here == -1:
        bar = board[OPPONENT_BAR]
        board[OPPONENT_BAR] = bar - 1
        value ^= _ZOBRIST[OPPONENT_BAR, bar + 16] ^ _ZOBRIST[OPPONENT_BAR, bar + 15]
        hit = 1
    board[target] = 1 if hit else here + 1
    value ^= _ZOBRIST[target, here + 16] ^ _ZOBRIST[target, board[target] + 16]
    return hit, value


@kernel(inline="always")
def _unmake(board, source, target, hit):
    """Take back a :func:`_make` (the caller restores the hash it saved)."""
    board[source] += 1
    if target == OFF:
        return
    board[target] -= 1
    if hit:
        board[target] = -1
        board[OPPONENT_BAR] += 1


@kernel(inline="always")
def _same_board(out_boards, i, board):
    for j in range(BOARD_SIZE):  # noqa: SIM110 - a loop numba compiles without a generator
        if out_boards[i, j] != board[j]:
            return False
    return True


@kernel(inline="always")
def _record(board, value, moves, move_count, depth, n, deepest, out_boards, out_moves, out_counts, hashes, indexed):
    """Keep a result of ``depth`` checker moves unless a deeper play exists or it is a repeat.

    ``n`` results of ``deepest`` moves are kept so far; returns the new (n, deepest). A
    deeper result discards the shallower ones: a play must use as many dice as any play can.
    A repeat is found by its hash, confirmed board against board: ``indexed``, through the index
    in ``hashes`` (a double's hundreds of plays: constant time each), else by looking through the
    kept ones (a mixed roll's few plays: quicker than any index).
    """
    if depth < deepest:
        return n, deepest
    if depth > deepest:
        n = 0
        deepest = depth
        if indexed:
            hashes[MAX_PLAYS] += 1  # a new stamp: every slot of the index is empty again
    slot = 0
    if indexed:
        stamp = hashes[MAX_PLAYS]
        slot = value & (INDEX_SLOTS - 1)
        while True:
            entry = hashes[_INDEX + slot]
            if entry // INDEX_SLOTS != stamp:
                break
            i = entry % INDEX_SLOTS
            if hashes[i] == value and _same_board(out_boards, i, board):
                return n, deepest
            slot = (slot + 1) & (INDEX_SLOTS - 1)
    else:
        for i in range(n):
            if hashes[i] == value and _same_board(out_boards, i, board):
                return n, deepest
    if n >= out_boards.shape[0] or n >= MAX_PLAYS:
        raise ValueError("more distinct plays than MAX_PLAYS")
    hashes[n] = value
    if indexed:
        hashes[_INDEX + slot] = hashes[MAX_PLAYS] * INDEX_SLOTS + n
    for j in range(BOARD_SIZE):
        out_boards[n, j] = board[j]
    for k in range(4):
        if k < move_count:
            out_moves[n, k, 0] = moves[k, 0]
            out_moves[n, k, 1] = moves[k, 1]
            out_moves[n, k, 2] = moves[k, 2]
        else:
            out_moves[n, k, 0] = 0
            out_moves[n, k, 1] = 0
            out_moves[n, k, 2] = 0
    out_counts[n] = move_count
    return n + 1, deepest


@kernel("(readonly(int8[::1]), int64, int8[:, ::1], int8[:, :, ::1], int8[::1], int64[::1])")
def _generate_doubles(board, die, out_boards, out_moves, out_counts, hashes):
    # Checker moves of one die commute, so each play is generated once with its sources in
    # non-increasing order (25 = bar first); the hash check removes the remaining repeats.
    moves = np.zeros((4, 3), np.int8)
    n = 0
    deepest = 0
    indexed = hashes.shape[0] >= HASHES_SIZE  # else a caller's own buffer of MAX_PLAYS: looked through
    if indexed:
        hashes[MAX_PLAYS] += 1  # this generation's stamp
    work = board.copy()
    h0 = board_hash(work)
    m0 = occupied_points(work)
    any1 = False
    left1 = m0
    while left1:
        s1 = _highest(left1)
        left1 &= ~(1 << s1)
        t1 = destination_in(work, m0, s1, die)
        if t1 < 0:
            continue
        any1 = True
        hit1, h1 = _make(work, s1, t1, h0)
        m1 = _after(m0, work, s1, t1)
        moves[0, 0] = s1
        moves[0, 1] = t1
        moves[0, 2] = hit1
        any2 = False
        left2 = m1 & ((2 << s1) - 1)
        while left2:
            s2 = _highest(left2)
            left2 &= ~(1 << s2)
            t2 = destination_in(work, m1, s2, die)
            if t2 < 0:
                continue
            any2 = True
            hit2, h2 = _make(work, s2, t2, h1)
            m2 = _after(m1, work, s2, t2)
            moves[1, 0] = s2
            moves[1, 1] = t2
            moves[1, 2] = hit2
            any3 = False
            left3 = m2 & ((2 << s2) - 1)
            while left3:
                s3 = _highest(left3)
                left3 &= ~(1 << s3)
                t3 = destination_in(work, m2, s3, die)
                if t3 < 0:
                    continue
                any3 = True
                hit3, h3 = _make(work, s3, t3, h2)
                m3 = _after(m2, work, s3, t3)
                moves[2, 0] = s3
                moves[2, 1] = t3
                moves[2, 2] = hit3
                any4 = False
                left4 = m3 & ((2 << s3) - 1)
                while left4:
                    s4 = _highest(left4)
                    left4 &= ~(1 << s4)
                    t4 = destination_in(work, m3, s4, die)
                    if t4 < 0:
                        continue
                    any4 = True
                    hit4, h4 = _make(work, s4, t4, h3)
                    moves[3, 0] = s4
                    moves[3, 1] = t4
                    moves[3, 2] = hit4
                    n, deepest = _record(work, h4, moves, 4, 4, n, deepest, out_boards, out_moves, out_counts, hashes, indexed)
                    _unmake(work, s4, t4, hit4)
                if not any4:
                    n, deepest = _record(work, h3, moves, 3, 3, n, deepest, out_boards, out_moves, out_counts, hashes, indexed)
                _unmake(work, s3, t3, hit3)
            if not any3:
                n, deepest = _record(work, h2, moves, 2, 2, n, deepest, out_boards, out_moves, out_counts, hashes, indexed)
            _unmake(work, s2, t2, hit2)
        if not any2:
            n, deepest = _record(work, h1, moves, 1, 1, n, deepest, out_boards, out_moves, out_counts, hashes, indexed)
        _unmake(work, s1, t1, hit1)
    if not any1:
        n, deepest = _record(work, h0, moves, 0, 0, n, deepest, out_boards, out_moves, out_counts, hashes, indexed)
    return n


@kernel("(readonly(int8[::1]), int64, int64, int8[:, ::1], int8[:, :, ::1], int8[::1], int64[::1])")
def _generate_mixed(board, d1, d2, out_boards, out_moves, out_counts, hashes):
    moves = np.zeros((4, 3), np.int8)
    n = 0
    deepest = 0
    work = board.copy()
    h0 = board_hash(work)
    m0 = occupied_points(work)
    for order in range(2):
        first = d1 if order == 0 else d2
        second = d2 if order == 0 else d1
        left1 = m0
        while left1:
            s1 = _highest(left1)
            left1 &= ~(1 << s1)
            t1 = destination_in(work, m0, s1, first)
            if t1 < 0:
                continue
            hit1, h1 = _make(work, s1, t1, h0)
            moves[0, 0] = s1
            moves[0, 1] = t1
            moves[0, 2] = hit1
            m1 = _after(m0, work, s1, t1)
            left2 = m1
            while left2:
                s2 = _highest(left2)
                left2 &= ~(1 << s2)
                t2 = destination_in(work, m1, s2, second)
                if t2 < 0:
                    continue
                hit2, h2 = _make(work, s2, t2, h1)
                moves[1, 0] = s2
                moves[1, 1] = t2
                moves[1, 2] = hit2
                n, deepest = _record(work, h2, moves, 2, 2, n, deepest, out_boards, out_moves, out_counts, hashes, False)
                _unmake(work, s2, t2, hit2)
            _unmake(work, s1, t1, hit1)
    if n > 0:
        return n
    # Only one die can be played: the larger one if it can be (larger-die rule), else the
    # smaller. 6-1 with only the 6 or only the 1 playable plays that die; with both
    # playable but never together, the 6 must be played.
    for die in (max(d1, d2), min(d1, d2)):
        left1 = m0
        while left1:
            s1 = _highest(left1)
            left1 &= ~(1 << s1)
            t1 = destination_in(work, m0, s1, die)
            if t1 < 0:
                continue
            hit1, h1 = _make(work, s1, t1, h0)
            moves[0, 0] = s1
            moves[0, 1] = t1
            moves[0, 2] = hit1
            n, deepest = _record(work, h1, moves, 1, 1, n, deepest, out_boards, out_moves, out_counts, hashes, False)
            _unmake(work, s1, t1, hit1)
        if n > 0:
            return n
    n, deepest = _record(work, h0, moves, 0, 0, n, deepest, out_boards, out_moves, out_counts, hashes, False)
    return n


@kernel("(readonly(int8[::1]), int64, int64, int8[:, ::1], int8[:, :, ::1], int8[::1], int64[::1], boolean)")
def generate_into(board, d1, d2, out_boards, out_moves, out_counts, hashes, two_move_doubles):
    """Fill the output buffers with the legal plays of ``board`` for the roll ``d1``-``d2``.

    Returns the number of distinct resulting positions. A roll with no legal play gives
    one result: the unchanged board with zero checker moves. ``two_move_doubles`` is the
    variant where a double is played as two moves of its number, like any other roll.
    """
    if d1 == d2 and not two_move_doubles:
        return _generate_doubles(board, d1, out_boards, out_moves, out_counts, hashes)
    return _generate_mixed(board, d1, d2, out_boards, out_moves, out_counts, hashes)


@kernel("()")
def play_buffers():
    """Fresh output buffers for :func:`generate_into`: boards, moves, move counts, hashes."""
    return (
        np.empty((MAX_PLAYS, BOARD_SIZE), np.int8),
        np.empty((MAX_PLAYS, 4, 3), np.int8),
        np.empty(MAX_PLAYS, np.int8),
        np.zeros(HASHES_SIZE, np.int64),  # the kept hashes, the stamp and the index (all empty)
    )


class _Scratch(threading.local):
    """Per-thread output buffers, so a single generation allocates only its results (made on the
    thread's first generation: importing the kernel compiles nothing)."""

    buffers: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None


_scratch = _Scratch()


def generate(board: np.ndarray, d1: int, d2: int, two_move_doubles: bool = False
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Legal plays of one board: (result boards (n, 26), moves (n, 4, 3), move counts (n,))."""
    if _scratch.buffers is None:
        _scratch.buffers = play_buffers()
    boards, moves, counts, hashes = _scratch.buffers
    n = generate_into(board, d1, d2, boards, moves, counts, hashes, two_move_doubles)
    return boards[:n].copy(), moves[:n].copy(), counts[:n].copy()


@kernel(inline="always")
def _grown(rows, total, capacity):
    """``rows`` in a new array of ``capacity`` rows, its first ``total`` copied one by one (a slice
    copy makes numba compile a shape check with its message: seconds of compiling, for nothing)."""
    grown = np.empty((capacity,) + rows.shape[1:], rows.dtype)
    source = rows.ravel()
    target = grown.ravel()
    for k in range(total * (source.shape[0] // rows.shape[0])):
        target[k] = source[k]
    return grown


def generate_batch(boards: np.ndarray, dice: np.ndarray, two_move_doubles: bool = False
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Legal plays of many boards at once, for search, training and table builds.

    ``boards`` is (N, 26) int8 and ``dice`` (N, 2) int8 (``two_move_doubles``: see
    :func:`generate_into`). Returns ``offsets`` (N + 1,) and the
    concatenated results: the plays of board ``i`` are rows ``offsets[i]:offsets[i + 1]``.
    """
    offsets, results, moves, counts = _generate_batch(boards, dice, two_move_doubles)
    return offsets, results, moves, counts


@kernel("(readonly(int8[:, ::1]), readonly(int8[:, ::1]), boolean)")
def _generate_batch(boards, dice, two_move_doubles):
    """:func:`generate_batch`, compiled (a kernel has no default arguments)."""
    count = boards.shape[0]
    hashes = np.zeros(HASHES_SIZE, np.int64)
    capacity = count * 24 + MAX_PLAYS
    all_boards = np.empty((capacity, BOARD_SIZE), np.int8)
    all_moves = np.empty((capacity, 4, 3), np.int8)
    all_counts = np.empty(capacity, np.int8)
    offsets = np.zeros(count + 1, np.int64)
    total = 0
    for i in range(count):
        if capacity - total < MAX_PLAYS:
            capacity = capacity * 2
            all_boards = _grown(all_boards, total, capacity)
            all_moves = _grown(all_moves, total, capacity)
            all_counts = _grown(all_counts, total, capacity)
        n = generate_into(
            boards[i], dice[i, 0], dice[i, 1], all_boards[total:], all_moves[total:], all_counts[total:], hashes,
            two_move_doubles,
        )
        total += n
        offsets[i + 1] = total
    return offsets, all_boards[:total], all_moves[:total], all_counts[:total]


#: Position classes of :func:`board_class` (``PositionClass`` for kernel boards).
OVER, BEAROFF, RACE, CONTACT = 0, 1, 2, 3


@kernel("(readonly(int8[::1]),)")
def board_class(board):
    """OVER, BEAROFF (no contact, every checker home), RACE or CONTACT, for one board.

    Contact lasts while some opponent checker is still behind one of the mover's: the
    mover's rearmost checker (25 = bar) against the opponent's (0 = its bar), both in the
    mover's numbering.
    """
    mover = 0
    opponent = 0
    mover_back = 0
    opponent_back = 25
    for point in range(26):
        n = board[point]
        if n > 0:
            mover += n
            if point > mover_back:
                mover_back = point
        elif n < 0:
            opponent -= n
            if point < opponent_back:
                opponent_back = point
    if mover == 0 or opponent == 0:
        return OVER
    if opponent_back < mover_back:
        return CONTACT
    if mover_back <= 6 and opponent_back >= 19:
        return BEAROFF
    return RACE


@kernel("(readonly(int8[::1]),)")
def win_kind(board):
    """How the mover has won: 0 not (yet), 1 single, 2 gammon, 3 backgammon.

    The loser with no checker off loses a gammon; with one still on the bar or in the
    winner's home board, a backgammon.
    """
    opponent = 0
    for point in range(26):
        if board[point] > 0:
            return 0
        opponent -= board[point]
    if opponent < 15:
        return 1
    if board[OPPONENT_BAR] < 0:
        return 3
    for point in range(1, 7):
        if board[point] < 0:
            return 3
    return 2


#: ``board`` seen from the other side, written into ``out``: :func:`gammon.position.flip_into`
#: (the one implementation of the flip) compiled for kernel boards.
flip_into = kernel("(readonly(int8[::1]), int8[::1])")(_flip)


@kernel("(readonly(int8[::1]),)")
def flip_board(board):
    """The same board seen from the other side (:func:`flip_into` on a new board)."""
    flipped = np.empty(BOARD_SIZE, np.int8)
    flip_into(board, flipped)
    return flipped

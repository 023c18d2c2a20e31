"""The input encoding is fast and still the same: every input equals the straightforward encoding's.

The reference below is the encoding as first written (every roll scanned over every
checker, a flipped copy of the board for the other side); it lives here only, to check the
kernel in :mod:`gammon.nn.features` on many positions: random play with its hits, the bar
and the bear-off, and random deals with several checkers on the bar and blots everywhere.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gammon import Position, movegen
from gammon.bots.evaluator import finished_batch
from gammon.movegen import flip_board
from gammon.nn import features
from gammon.nn.evaluator import load_network
from gammon.nn.features import (
    ANCHORS,
    BACK,
    BAR,
    BLOTS,
    BREAK_CONTACT,
    DOUBLE_SHOTS,
    ENTER,
    ESCAPES,
    HOME_POINTS,
    OFF,
    PIP_LOSS,
    PIPS,
    PRIME,
    SHOTS,
    SIDE_EXTRAS,
    SIDE_INPUTS,
)
from gammon.nn.network import Network, consistent, forward, net_of

# The reference encoding, as first written.

@njit(inline="always")
def _blocked(view, point):
    return view[point] <= -2


@njit(inline="always")
def _hit(view, point, mask):
    """``mask`` with ``point`` added when an opposing blot stands there."""
    if 1 <= point <= 24 and view[point] == -1:
        return mask | (np.int64(1) << point)
    return mask


@njit
def _hit_mask(view, d1, d2):
    """The opposing blots (bitmask of points) the side of ``view`` (positive) can hit with d1-d2.

    An approximation of the rules good enough for a feature: checkers on the bar must
    enter first (with one on the bar, 6-3 can enter with the 3 and hit with the 6 from
    anywhere); combination shots need an open intermediate point.
    """
    mask = np.int64(0)
    bar = view[25]
    if bar > 0:
        if d1 == d2:
            t = 25 - d1
            if _blocked(view, t):
                return mask
            mask = _hit(view, t, mask)
            steps = 4 - bar
            if steps <= 0:
                return mask
            p = t
            for _ in range(steps):
                p -= d1
                if p < 1 or _blocked(view, p):
                    break
                mask = _hit(view, p, mask)
            for s in range(1, 25):
                if view[s] > 0:
                    p = s
                    for _ in range(steps):
                        p -= d1
                        if p < 1 or _blocked(view, p):
                            break
                        mask = _hit(view, p, mask)
            return mask
        for order in range(2):
            e = d1 if order == 0 else d2
            o = d2 if order == 0 else d1
            t = 25 - e
            if _blocked(view, t):
                continue
            mask = _hit(view, t, mask)
            if bar >= 2:
                continue
            mask = _hit(view, t - o, mask)
            for s in range(o + 1, 25):
                if view[s] > 0:
                    mask = _hit(view, s - o, mask)
        return mask
    for s in range(1, 25):
        if view[s] <= 0:
            continue
        if d1 == d2:
            p = s
            for _ in range(4):
                p -= d1
                if p < 1 or _blocked(view, p):
                    break
                mask = _hit(view, p, mask)
        else:
            a = s - d1
            b = s - d2
            mask = _hit(view, a, mask)
            mask = _hit(view, b, mask)
            c = s - d1 - d2
            if c >= 1 and (not _blocked(view, a) or not _blocked(view, b)):
                mask = _hit(view, c, mask)
    return mask


@njit
def attack(view):
    """(shots, double shots, pip loss x 36) of the side of ``view`` against the opposing blots.

    Shots are the rolls (of 36) that hit at least one blot, double shots those that can
    reach two (an approximation: any two blots within reach), and the pip loss sums, over
    the rolls, what the hit blot farthest from home loses (one on our 20-point: 20 pips).
    """
    count = 0
    double = 0
    loss = 0
    any_blot = False
    for p in range(1, 25):
        if view[p] == -1:
            any_blot = True
            break
    if not any_blot:
        return 0, 0, 0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            mask = _hit_mask(view, d1, d2)
            if mask == 0:
                continue
            weight = 1 if d1 == d2 else 2
            count += weight
            if mask & (mask - 1):  # more than one bit: two blots within reach
                double += weight
            top = 24
            while not mask & (np.int64(1) << top):
                top -= 1
            loss += weight * top
    return count, double, loss


@njit
def shots(view):
    """Rolls out of 36 with which the side of ``view`` hits at least one opposing blot."""
    return attack(view)[0]


@njit
def _reaches_past(view, s, limit, d1, d2):
    """Whether a checker on ``s`` can land below ``limit`` with d1-d2 (open landing points only)."""
    if d1 == d2:
        p = s
        for _ in range(4):
            p -= d1
            if p < 1:
                return True
            if _blocked(view, p):
                return False
            if p < limit:
                return True
        return False
    for order in range(2):
        first = d1 if order == 0 else d2
        second = d2 if order == 0 else d1
        a = s - first
        if a < 1:
            return True
        if _blocked(view, a):
            continue
        if a < limit:
            return True
        b = a - second
        if b < 1 or (b < limit and not _blocked(view, b)):
            return True
    return False


@njit
def escapes(view):
    """Rolls out of 36 that carry the rearmost checker past the opponent's points in front of it.

    The points that count are the opponent's made points up to 12 pips ahead; with none,
    the checker is free (36). A checker behind a 5-point prime escapes with few rolls.
    """
    rear = 0
    for p in range(25, 0, -1):
        if view[p] > 0:
            rear = p
            break
    if rear == 0:
        return 36
    limit = 0
    for p in range(max(1, rear - 12), rear):
        if _blocked(view, p):
            limit = p
            break
    if limit == 0:
        return 36
    count = 0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            if _reaches_past(view, rear, limit, d1, d2):
                count += 1 if d1 == d2 else 2
    return count


@njit
def _encode_side(view, out, base, extras):
    """The inputs of the side that is positive in ``view``, into ``out[base:base + SIDE_INPUTS]``."""
    pips = 0
    on_board = 0
    back = 0
    home = 0
    anchors = 0
    blots = 0
    run = 0
    prime = 0
    for p in range(1, 25):
        n = view[p]
        k = base + 4 * (p - 1)
        if n > 0:
            on_board += n
            pips += n * p
            out[k] = 1.0
            if n >= 2:
                out[k + 1] = 1.0
                run += 1
                if run > prime:
                    prime = run
                if p <= 6:
                    home += 1
                elif p >= 19:
                    anchors += 1
            else:
                out[k + 1] = 0.0
                run = 0
                blots += 1
            out[k + 2] = 1.0 if n >= 3 else 0.0
            out[k + 3] = (n - 3) / 2.0 if n > 3 else 0.0
            if p >= 19:
                back += n
        else:
            run = 0
            out[k] = 0.0
            out[k + 1] = 0.0
            out[k + 2] = 0.0
            out[k + 3] = 0.0
    bar = view[25]
    pips += 25 * bar
    back += bar
    off = 15 - on_board - bar
    out[base + BAR] = bar / 2.0
    out[base + OFF] = off / 15.0
    out[base + PIPS] = pips / 167.0
    out[base + BACK] = back / 5.0
    out[base + HOME_POINTS] = home / 6.0
    out[base + PRIME] = prime / 6.0
    out[base + ANCHORS] = anchors / 2.0
    out[base + BLOTS] = blots / 5.0
    out[base + ESCAPES] = escapes(view) / 36.0
    count, double, loss = attack(view)
    out[base + SHOTS] = count / 36.0
    out[extras + DOUBLE_SHOTS] = double / 36.0
    out[extras + PIP_LOSS] = loss / (36.0 * 12.0)
    closed = 0
    for p in range(19, 25):
        if view[p] <= -2:
            closed += 1
    out[extras + ENTER] = closed * closed / 36.0
    # The opponent's rearmost checker, in this side's numbering (its bar is point 0).
    rearmost = 25
    for p in range(25):
        if view[p] < 0:
            rearmost = p
            break
    behind = 0
    for p in range(rearmost + 1, 26):
        if view[p] > 0:
            behind += view[p] * (p - rearmost)
    out[extras + BREAK_CONTACT] = behind / 100.0


@njit
def reference_encode(board, out):
    """Fill ``out`` (:data:`INPUTS` floats) with the inputs of one board after a play."""
    _encode_side(board, out, 0, 2 * SIDE_INPUTS)
    _encode_side(flip_board(board), out, SIDE_INPUTS, 2 * SIDE_INPUTS + SIDE_EXTRAS)


V2_INPUTS = features.VERSION_INPUTS[2]


@njit
def reference_encode_batch(boards):
    """The version-2 inputs of many boards, ``(N, 220)``."""
    out = np.empty((boards.shape[0], V2_INPUTS))
    for i in range(boards.shape[0]):
        reference_encode(boards[i], out[i])
    return out


def _random_play(games: int, seed: int) -> np.ndarray:
    """Boards after a play, from both sides, over ``games`` games of random legal plays."""
    rng = np.random.default_rng(seed)
    boards = []
    for _ in range(games):
        board = Position().array()
        for _ in range(400):
            d1, d2 = (int(d) for d in rng.integers(1, 7, 2))
            children = movegen.generate(board, d1, d2)[0]
            child = children[rng.integers(children.shape[0])]
            if (child[1:26] > 0).sum() == 0:  # borne off: the game is over
                break
            boards.append(child)
            board = flip_board(child)
    return np.array(boards, np.int8)


def _random_deals(count: int, seed: int) -> np.ndarray:
    """Boards with each side's 15 checkers thrown anywhere: bars of 0-4, blots and crowds."""
    rng = np.random.default_rng(seed)
    boards = np.zeros((count, 26), np.int8)
    for board in boards:
        for sign in (1, -1):
            kept = int(rng.integers(1, 16))
            for _ in range(kept):
                while True:
                    # The bar comes up often; points are free only if the other side is absent.
                    spot = 25 if rng.random() < 0.06 else int(rng.integers(1, 25))
                    if sign < 0:
                        spot = 0 if spot == 25 else spot
                    if spot in (0, 25) or board[spot] * sign >= 0:
                        board[spot] += sign
                        break
    return boards


def _assert_same(boards: np.ndarray) -> None:
    """The version-2 inputs (the reference's) are a prefix of what the encoder writes."""
    np.testing.assert_array_equal(features.encode_batch(boards)[:, : features.VERSION_INPUTS[2]],
                                  reference_encode_batch(boards))


def _reference_containment(view: np.ndarray) -> int:
    """The containment feature by another route: each start point's escapes rolled out by
    :func:`features._reaches_past` (the rear-checker escapes' own step rule)."""
    fewest = 36
    for s in range(13, 25):
        ahead = [p for p in range(max(1, s - 12), s) if view[p] <= -2]
        if not ahead:
            continue
        limit = min(ahead)
        windowed = view.copy()  # the feature looks 12 pips ahead: points farther on are open
        windowed[1 : s - 12] = np.maximum(windowed[1 : s - 12], 0)
        count = sum((1 if a == b else 2) for a in range(1, 7) for b in range(a, 7)
                    if features._reaches_past(windowed, s, limit, a, b))
        fewest = min(fewest, count)
    return fewest


def test_containment_agrees_with_stepping_the_checker() -> None:
    boards = np.concatenate([_random_play(10, seed=31), _random_deals(300, seed=32)])
    for board in boards:
        for view in (board, flip_board(board)):
            assert features.containment(view) == _reference_containment(view), view


def test_random_play_encodes_as_the_reference() -> None:
    boards = _random_play(40, seed=20)
    assert boards.shape[0] > 3000
    assert (boards[:, 25] > 0).any() and (boards[:, 0] < 0).any()  # hits happened
    _assert_same(boards)


def test_random_deals_encode_as_the_reference() -> None:
    boards = _random_deals(4000, seed=21)
    assert (boards[:, 25] >= 2).sum() > 100 and (boards[:, 0] <= -3).sum() > 10
    _assert_same(boards)
    # Each side's view of the same boards, too.
    _assert_same(np.array([flip_board(b) for b in boards]))


def test_edge_cases_encode_as_the_reference() -> None:
    rows = [Position().array()]
    view = np.zeros(26, np.int8)
    view[25], view[22], view[3] = 1, -1, 14  # one on the bar, a blot to enter on
    rows.append(view.copy())
    view[25], view[3] = 4, 11  # four on the bar: doubles enter and stop
    rows.append(view.copy())
    view = np.zeros(26, np.int8)
    view[1], view[2], view[24], view[23], view[0] = 2, 1, -1, -2, -12  # bear-off against the bar
    rows.append(view)
    _assert_same(np.array(rows, np.int8))


@njit
def reference_forward(w1, b1, w2, b2, k, x, hidden, out):
    """The forward pass as first written: one pass over the hidden units per nonzero input."""
    h_count = hidden.shape[0]
    for j in range(h_count):
        hidden[j] = b1[k, j]
    for i in range(w1.shape[1]):
        v = x[i]
        if v != 0.0:
            for j in range(h_count):
                hidden[j] += v * w1[k, i, j]
    for j in range(h_count):
        hidden[j] = 1.0 / (1.0 + np.exp(-hidden[j]))
    for o in range(5):
        z = b2[k, o]
        for j in range(h_count):
            z += hidden[j] * w2[k, j, o]
        out[o] = 1.0 / (1.0 + np.exp(-z))


def _reference_evaluate(network: Network, boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Probabilities and hidden units of ``boards`` by the reference encoding and forward pass
    (a version-3 net's last inputs come from the encoder: the reference predates them, and
    the containment test checks them by another route)."""
    newer = features.encode_batch(boards)[:, V2_INPUTS:]
    x = np.ascontiguousarray(np.concatenate([reference_encode_batch(boards), newer], axis=1)[:, : network.w1.shape[1]])
    expected = np.empty((boards.shape[0], 5))
    units = np.empty((boards.shape[0], network.hidden))
    raw = np.empty(5)
    for i, board in enumerate(boards):
        reference_forward(*network.arrays(), net_of(board), x[i], units[i], raw)
        consistent(raw, expected[i])
    return expected, units


def test_the_nets_evaluate_as_with_the_reference() -> None:
    boards = np.concatenate([_random_play(8, seed=22), _random_deals(300, seed=23)])
    boards = boards[finished_batch(boards, np.zeros((boards.shape[0], 5)))]  # games still in play
    for network in (load_network(), Network.random(7, seed=3), Network.random(16, seed=4, features=1),
                    Network.random(9, seed=5, features=2)):
        expected, units = _reference_evaluate(network, boards)
        np.testing.assert_array_equal(network.evaluate(boards), expected)
        # The hidden units too (TD training reads them after the forward pass).
        x = features.encode_batch(boards)
        hidden = np.empty(network.hidden)
        raw = np.empty(5)
        for i in range(0, boards.shape[0], 97):
            forward(*network.arrays(), net_of(boards[i]), x[i], hidden, raw)
            np.testing.assert_array_equal(hidden, units[i])

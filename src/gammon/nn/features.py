"""The network's inputs: TD-Gammon's raw board encoding plus the expert features that matter.

A board is encoded as it is evaluated: a kernel board *after a play*, seen from the side
that just moved (positive checkers), with the opponent (negative checkers) now on roll.
Both sides get the same :data:`SIDE_INPUTS` inputs, each read from its own side's view
(:func:`gammon.movegen.flip_board`), first the side that just moved, then the side on roll:

* per point 1-24, four units: 1 checker or more, 2 or more, 3 or more, (n - 3) / 2 beyond
  three (Tesauro's encoding: a blot, a made point, a spare, the rest);
* the bar (n / 2) and the checkers borne off (n / 15);
* expert features, scaled to about [0, 1]: pip count, checkers back (in the opponent's
  home board or on the bar), home-board points, the longest prime, advanced anchors,
  blots, the escapes of the rearmost checker past the opponent's points, and the number
  of rolls (out of 36) with which this side hits an opposing blot. The side on roll's
  shots are the classic "hitting shots" feature; the other side's measure its threats;
* (version 2, after both sides' inputs above) double shots, the pips a hit costs on
  average, how hard it is to enter against the opponent's home board, and the pips this
  side must still move to get past the opponent's rearmost checker (break contact);
* (version 3, after those) containment: how few rolls (of 36) would carry a lone checker
  of this side past the opponent's points, at the worst place in the 13-24 points (a
  prime's strength even with no checker behind it yet, from a table of every 12-point
  pattern); backgame (two or more anchors in the opponent's home board); timing (the pips
  outside this side's home board, what it can still move before its board crunches); and
  the checkers buried on the 1- to 3-points.

Everything is compiled; :func:`encode_into` writes into a caller's row so a batch or a
game loop allocates nothing. Shots are counted with bitmasks of points, every checker at
once per roll (:func:`attack`).
"""

from __future__ import annotations

import numpy as np

from ..movegen import flip_into
from ..compiled import kernel

#: Inputs per side: 24 x 4 point units, bar, off, then the expert features below.
POINT_UNITS = 96
BAR, OFF, PIPS, BACK, HOME_POINTS, PRIME, ANCHORS, BLOTS, ESCAPES, SHOTS = range(96, 106)
SIDE_INPUTS = 106
#: Version 2 appends, for each side, four more features after both sides' first 106:
#: double shots, pip loss, the opponent's home-board strength and the pips to break contact.
DOUBLE_SHOTS, PIP_LOSS, ENTER, BREAK_CONTACT = range(4)
SIDE_EXTRAS = 4
#: Version 3 appends, for each side, four more after all of version 2's.
CONTAIN, BACKGAME, TIMING, BURIED = range(4)
SIDE_EXTRAS_3 = 4
#: Inputs of each encoding version; each is a prefix of the next (a version-1 net reads the
#: first 212 inputs, a version-2 net the first 220).
VERSION_INPUTS = {
    1: 2 * SIDE_INPUTS,
    2: 2 * SIDE_INPUTS + 2 * SIDE_EXTRAS,
    3: 2 * SIDE_INPUTS + 2 * SIDE_EXTRAS + 2 * SIDE_EXTRAS_3,
}
#: The encoding new nets use unless told otherwise (the shipped net's).
FEATURES_VERSION = 3
#: What :func:`encode` writes: the newest encoding, of which every older one is a prefix.
INPUTS = VERSION_INPUTS[max(VERSION_INPUTS)]


@kernel(inline="always")
def _blocked(view, point):
    return view[point] <= -2


#: Bits 1-24 of a board bitmask: the points (bit ``p`` is point ``p``).
_POINTS = np.int64(((1 << 25) - 1) ^ 1)


@kernel(inline="always")
def _hit_mask(own, blots, open_points, bar, d1, d2):
    """The opposing blots (bitmask of points) the side of ``own`` (its checkers' points) hits with d1-d2.

    Every checker moves at once as a bitmask: ``own >> d`` are the points ``d`` pips ahead of
    them. An approximation of the rules good enough for a feature: checkers on the bar must
    enter first (with one on the bar, 6-3 can enter with the 3 and hit with the 6 from
    anywhere); combination shots need an open intermediate point.
    """
    one = np.int64(1)
    if bar > 0:
        if d1 == d2:
            t = 25 - d1
            if not open_points & (one << t):
                return np.int64(0)
            mask = (one << t) & blots
            # Whatever is left after entering walks on from the entry point or any checker:
            # with one on the bar, 2-2 enters on the 23-point and walks on to the 21-point.
            reach = own | (one << t)
            for _ in range(4 - bar):
                reach = (reach >> d1) & open_points
                mask |= reach & blots
            return mask
        mask = np.int64(0)
        for order in range(2):
            e = d1 if order == 0 else d2
            o = d2 if order == 0 else d1
            t = 25 - e
            if not open_points & (one << t):
                continue
            mask |= (one << t) & blots
            if bar >= 2:
                continue
            mask |= ((one << (t - o)) | (own >> o)) & blots
        return mask
    if d1 == d2:
        # Up to four steps of d1, each landing on an open point.
        mask = np.int64(0)
        reach = own
        for _ in range(4):
            reach = (reach >> d1) & open_points
            mask |= reach & blots
        return mask
    # Direct shots, then combinations through an open intermediate point (either order).
    via = own & ((open_points << d1) | (open_points << d2))
    return ((own >> d1) | (own >> d2) | (via >> (d1 + d2))) & blots


@kernel("(readonly(int8[::1]),)")
def attack(view):
    """(shots, double shots, pip loss x 36) of the side of ``view`` against the opposing blots.

    Shots are the rolls (of 36) that hit at least one blot, double shots those that can
    reach two (an approximation: any two blots within reach), and the pip loss sums, over
    the rolls, what the hit blot farthest from home loses (one on our 20-point: 20 pips).
    """
    own = np.int64(0)
    blots = np.int64(0)
    blocked = np.int64(0)
    for p in range(1, 25):
        n = view[p]
        if n > 0:
            own |= np.int64(1) << p
        elif n == -1:
            blots |= np.int64(1) << p
        elif n <= -2:
            blocked |= np.int64(1) << p
    if blots == 0:
        return 0, 0, 0
    open_points = _POINTS & ~blocked
    bar = view[25]
    count = 0
    double = 0
    loss = 0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            mask = _hit_mask(own, blots, open_points, bar, d1, d2)
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


@kernel("(readonly(int8[::1]),)", ahead=False)
def shots(view):
    """Rolls out of 36 with which the side of ``view`` hits at least one opposing blot."""
    return attack(view)[0]


@kernel("(readonly(int8[::1]), int64, int64, int64, int64)")
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


@kernel("(readonly(int8[::1]),)")
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


@kernel("()")
def _escape_table():
    """Rolls (of 36) that carry a lone checker past every blocked point of a 12-point pattern.

    Bit ``j`` of the index is the point ``12 - j`` pips ahead; a roll escapes when the
    checker's steps land only on open points until it is beyond the farthest blocked one
    (a double moves up to four times). No blocked point: 36.
    """
    table = np.empty(1 << 12, np.int64)
    for mask in range(1 << 12):
        far = 0
        for distance in range(1, 13):
            if mask & (1 << (12 - distance)):
                far = distance
        if far == 0:
            table[mask] = 36
            continue
        count = 0
        for d1 in range(1, 7):
            for d2 in range(d1, 7):
                escaped = False
                if d1 == d2:
                    at = 0
                    for _ in range(4):
                        at += d1
                        if at <= 12 and mask & (1 << (12 - at)):
                            break
                        if at > far:
                            escaped = True
                            break
                else:
                    for order in range(2):
                        a = d1 if order == 0 else d2
                        b = d2 if order == 0 else d1
                        if a <= 12 and mask & (1 << (12 - a)):
                            continue
                        if a > far:
                            escaped = True
                            break
                        c = a + b
                        if c > far and not (c <= 12 and mask & (1 << (12 - c))):
                            escaped = True
                            break
                if escaped:
                    count += 1 if d1 == d2 else 2
        table[mask] = count
    return table


_ESCAPES = _escape_table()


@kernel("(readonly(int8[::1]),)")
def containment(view):
    """The fewest rolls (of 36) with which a lone checker of this side on one of the 13- to
    24-points gets past the opponent's made points ahead of it: the opponent's blockade."""
    blocked = np.int64(0)
    for p in range(1, 25):
        if view[p] <= -2:
            blocked |= np.int64(1) << p
    fewest = 36
    for s in range(13, 25):
        escapes = _ESCAPES[(blocked >> (s - 12)) & 0xFFF]
        if escapes < fewest:
            fewest = escapes
    return fewest


@kernel("(readonly(int8[::1]), float64[::1], int64, int64, int64)")
def _encode_side(view, out, base, extras, extras3):
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
    if extras < 0:  # a version-1 row
        return
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
    if extras3 < 0:  # a version-2 row
        return
    out[extras3 + CONTAIN] = (36 - containment(view)) / 36.0
    out[extras3 + BACKGAME] = 1.0 if anchors >= 2 else 0.0
    outfield = 0
    buried = 0
    for p in range(1, 25):
        n = view[p]
        if n > 0:
            if p > 6:
                outfield += n * (p - 6)
            elif p <= 3:
                buried += n
    out[extras3 + TIMING] = outfield / 100.0
    out[extras3 + BURIED] = buried / 10.0


@kernel("(readonly(int8[::1]), float64[::1], int8[::1])")
def encode_into(board, out, flipped):
    """:func:`encode`, with ``flipped`` (26 ``int8``) as room for the other side's view: no allocation.

    ``out`` says the version by its length (:data:`VERSION_INPUTS`): a net's row gets its own
    encoding's inputs and no more, so an older net pays for none of the newer features.
    """
    second = 2 * SIDE_INPUTS
    third = second + 2 * SIDE_EXTRAS
    size = out.shape[0]
    has2 = size >= third
    has3 = size >= third + 2 * SIDE_EXTRAS_3
    _encode_side(board, out, 0, second if has2 else -1, third if has3 else -1)
    flip_into(board, flipped)
    _encode_side(flipped, out, SIDE_INPUTS, second + SIDE_EXTRAS if has2 else -1,
                 third + SIDE_EXTRAS_3 if has3 else -1)


@kernel("(readonly(int8[::1]), float64[::1])", ahead=False)
def encode(board, out):
    """Fill ``out`` (a version's :data:`VERSION_INPUTS` floats; :data:`INPUTS` for all) with
    the inputs of one board after a play."""
    encode_into(board, out, np.empty(26, np.int8))


@kernel("(readonly(int8[:, ::1]),)", ahead=False)
def encode_batch(boards):
    """The inputs of many boards, ``(N, INPUTS)``."""
    out = np.empty((boards.shape[0], INPUTS))
    flipped = np.empty(26, np.int8)
    for i in range(boards.shape[0]):
        encode_into(boards[i], out[i], flipped)
    return out

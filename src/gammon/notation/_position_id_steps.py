"""The four steps of a Position ID (board <-> key <-> text), as plain Python that numba can compile.

Each step fills a buffer it is given and returns a status code where it can fail. One ID runs
them as Python on lists and bytearrays (:mod:`gammon.notation.position_id`, so reading or
writing one ID loads neither numba nor numpy); batches run them compiled
(:mod:`gammon.notation._position_id_kernel`). The types are those of the Python calls; numba
compiles the same functions for numpy arrays.
"""

from __future__ import annotations

from collections.abc import MutableSequence, Sequence
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    import numpy as np

    #: What a step reads (a list, bytes, a numpy array) and what it fills (a list, a bytearray, an array).
    Counts: TypeAlias = Sequence[int] | np.ndarray
    Buffer: TypeAlias = MutableSequence[int] | np.ndarray

ID_LENGTH = 14

# Status codes of the decoding steps, turned into messages by ``position_id.STATUS_TEXT``.
OK = 0
BAD_CHARACTER = 1
TOO_MANY_BITS = 2
TOO_MANY_CHECKERS = 3
BOTH_COLOURS = 4
PADDING_NOT_ZERO = 5


def board_to_key(board: Counts, key: Buffer) -> None:
    """Fill the 10-byte ``key`` of a mover-relative board (see :mod:`gammon.movegen`)."""
    for i in range(10):
        key[i] = 0
    bit = 0
    for side in range(2):
        for slot in range(25):
            if side == 0:
                count = -board[25 - slot - 1] if slot < 24 else -board[0]
            else:
                count = board[slot + 1]
            for _ in range(count):
                key[bit >> 3] |= 1 << (bit & 7)
                bit += 1
            bit += 1


def key_to_board(key: Counts, board: Buffer) -> int:
    """Fill ``board`` from a 10-byte key; returns a status code (``OK`` when valid)."""
    for i in range(26):
        board[i] = 0
    bit = 0
    for side in range(2):
        total = 0
        for slot in range(25):
            count = 0
            while True:
                if bit >= 80:
                    return TOO_MANY_BITS
                if (key[bit >> 3] >> (bit & 7)) & 1:
                    count += 1
                    bit += 1
                else:
                    bit += 1
                    break
            total += count
            if total > 15:
                return TOO_MANY_CHECKERS
            if side == 0:
                if slot < 24:
                    board[24 - slot] = -count
                else:
                    board[0] = -count
            else:
                index = slot + 1
                if count > 0 and index <= 24 and board[index] != 0:
                    return BOTH_COLOURS
                if index <= 24 and board[index] < 0:
                    continue
                board[index] = count
    while bit < 80:
        if (key[bit >> 3] >> (bit & 7)) & 1:
            return PADDING_NOT_ZERO
        bit += 1
    return OK


def key_to_text(key: Counts, out: Buffer) -> None:
    """Base64 of the 10-byte key into ``out`` (14 ASCII codes, no padding)."""
    for group in range(4):
        b0 = int(key[3 * group])
        b1 = int(key[3 * group + 1]) if 3 * group + 1 < 10 else 0
        b2 = int(key[3 * group + 2]) if 3 * group + 2 < 10 else 0
        triple = (b0 << 16) | (b1 << 8) | b2
        for k in range(4):
            index = 4 * group + k
            if index < ID_LENGTH:
                value = (triple >> (18 - 6 * k)) & 63
                if value < 26:
                    out[index] = value + 65  # A-Z
                elif value < 52:
                    out[index] = value + 71  # a-z
                elif value < 62:
                    out[index] = value - 4  # 0-9
                elif value == 62:
                    out[index] = 43  # +
                else:
                    out[index] = 47  # /


def text_to_key(text: Counts, key: Buffer) -> int:
    """Decode 14 base64 ASCII codes into ``key``; returns a status code."""
    triple = 0
    for group in range(4):
        triple = 0
        for k in range(4):
            index = 4 * group + k
            value = 0  # the two characters after the 14th are zeros
            if index < ID_LENGTH:
                char = int(text[index])
                if 65 <= char <= 90:
                    value = char - 65  # A-Z
                elif 97 <= char <= 122:
                    value = char - 71  # a-z
                elif 48 <= char <= 57:
                    value = char + 4  # 0-9
                elif char == 43:
                    value = 62  # +
                elif char == 47:
                    value = 63  # /
                else:
                    return BAD_CHARACTER
            triple = (triple << 6) | value
        for k in range(3):
            index = 3 * group + k
            if index < 10:
                key[index] = (triple >> (16 - 8 * k)) & 255
    # 14 characters carry 84 bits: the last character's low 4 bits are padding.
    if (triple >> 12) & 15:
        return PADDING_NOT_ZERO
    return OK

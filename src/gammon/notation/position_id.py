"""GNU Backgammon Position ID: 14 base64 characters for the checkers, seen from the side on roll.

The ID is an 80-bit key: first the player *not* on roll, then the player on roll; for each,
its points 1..24 in its own numbering and then its bar, one ``1`` bit per checker followed
by a ``0``. Bits are packed least-significant first into 10 bytes, then base64 without the
``==``. The kernels here work on whole arrays so batch tools decode and encode in bulk.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..errors import NotationError

_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_ALPHABET_ARRAY = np.frombuffer(_ALPHABET, dtype=np.uint8).copy()
_VALUES = np.full(256, -1, dtype=np.int8)
for _i, _c in enumerate(_ALPHABET):
    _VALUES[_c] = _i

ID_LENGTH = 14

# Status codes of the decoding kernel, turned into messages by ``_STATUS_TEXT``.
OK = 0
BAD_CHARACTER = 1
TOO_MANY_BITS = 2
TOO_MANY_CHECKERS = 3
BOTH_COLOURS = 4
PADDING_NOT_ZERO = 5

_STATUS_TEXT = {
    BAD_CHARACTER: "14 characters of the base64 alphabet A-Z a-z 0-9 + /",
    TOO_MANY_BITS: "an 80-bit key with 50 point/bar separators",
    TOO_MANY_CHECKERS: "at most 15 checkers a side",
    BOTH_COLOURS: "a key where no point holds checkers of both sides",
    PADDING_NOT_ZERO: "zero padding after the last separator",
}


@njit(cache=True)
def board_to_key(board):
    """The 10-byte key of a mover-relative board (see :mod:`gammon.movegen`)."""
    key = np.zeros(10, np.uint8)
    bit = 0
    for side in range(2):
        for slot in range(25):
            if side == 0:
                count = -board[25 - slot - 1] if slot < 24 else -board[0]
            else:
                count = board[slot + 1]
            for _ in range(count):
                key[bit >> 3] |= np.uint8(1 << (bit & 7))
                bit += 1
            bit += 1
    return key


@njit(cache=True)
def key_to_board(key, board):
    """Fill ``board`` from a 10-byte key; returns a status code (``OK`` when valid)."""
    board[:] = 0
    bit = 0
    totals = np.zeros(2, np.int64)
    for side in range(2):
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
            totals[side] += count
            if totals[side] > 15:
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


@njit(cache=True)
def key_to_text(key, out):
    """Base64 of the 10-byte key into ``out`` (14 uint8 characters, no padding)."""
    for group in range(4):
        b0 = np.int64(key[3 * group])
        b1 = np.int64(key[3 * group + 1]) if 3 * group + 1 < 10 else 0
        b2 = np.int64(key[3 * group + 2]) if 3 * group + 2 < 10 else 0
        triple = (b0 << 16) | (b1 << 8) | b2
        for k in range(4):
            index = 4 * group + k
            if index < ID_LENGTH:
                out[index] = _ALPHABET_ARRAY[(triple >> (18 - 6 * k)) & 63]


@njit(cache=True)
def text_to_key(text, key):
    """Decode 14 base64 characters into ``key``; returns a status code."""
    values = np.empty(16, np.int64)
    for i in range(ID_LENGTH):
        v = _VALUES[text[i]]
        if v < 0:
            return BAD_CHARACTER
        values[i] = v
    values[14] = 0
    values[15] = 0
    if values[13] & 15:
        return PADDING_NOT_ZERO
    for group in range(4):
        triple = (values[4 * group] << 18) | (values[4 * group + 1] << 12) | (values[4 * group + 2] << 6) | values[4 * group + 3]
        for k in range(3):
            index = 3 * group + k
            if index < 10:
                key[index] = (triple >> (16 - 8 * k)) & 255
    return OK


@njit(cache=True)
def encode_batch(boards):
    """Position IDs of many boards, as an (N, 14) uint8 array of ASCII characters."""
    out = np.empty((boards.shape[0], ID_LENGTH), np.uint8)
    for i in range(boards.shape[0]):
        key_to_text(board_to_key(boards[i]), out[i])
    return out


@njit(cache=True)
def decode_batch(texts):
    """Boards of many Position IDs given as (N, 14) uint8; returns (boards, status codes)."""
    count = texts.shape[0]
    boards = np.zeros((count, 26), np.int8)
    status = np.zeros(count, np.int8)
    key = np.empty(10, np.uint8)
    for i in range(count):
        code = text_to_key(texts[i], key)
        if code == OK:
            code = key_to_board(key, boards[i])
        status[i] = code
    return boards, status


def encode(board: np.ndarray) -> str:
    """The Position ID of one mover-relative board."""
    out = np.empty(ID_LENGTH, np.uint8)
    key_to_text(board_to_key(np.asarray(board, dtype=np.int8)), out)
    return out.tobytes().decode("ascii")


def decode(text: str) -> np.ndarray:
    """The mover-relative board of a Position ID; :class:`NotationError` names what is wrong."""
    stripped = text.strip()
    if len(stripped) != ID_LENGTH or not stripped.isascii():
        raise NotationError("Position ID", "length", text, "14 base64 characters, e.g. 4HPwATDgc/ABMA")
    key = np.empty(10, np.uint8)
    chars = np.frombuffer(stripped.encode("ascii"), dtype=np.uint8)
    code = text_to_key(chars, key)
    board = np.zeros(26, np.int8)
    if code == OK:
        code = key_to_board(key, board)
    if code != OK:
        raise NotationError("Position ID", "key", text, _STATUS_TEXT[code])
    return board

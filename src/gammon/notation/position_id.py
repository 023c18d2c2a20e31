"""GNU Backgammon Position ID: 14 base64 characters for the checkers, seen from the side on roll.

The ID is an 80-bit key: first the player *not* on roll, then the player on roll; for each,
its points 1..24 in its own numbering and then its bar, one ``1`` bit per checker followed
by a ``0``. Bits are packed least-significant first into 10 bytes, then base64 without the
``==``. The ID is only checkers: a key with none at all (``AAAAAAAAAAAAAA``) reads as a
Position, which no :class:`~gammon.state.GameState` accepts (both sides cannot have won).

The four steps below (board <-> key <-> text) are plain Python that numba can compile, and
each fills a buffer it is given. One position runs them as Python on lists and bytearrays,
so reading or writing one ID loads neither numba nor numpy; batch tools
(:func:`encode_batch`, :func:`decode_batch`) run them compiled, from
:mod:`gammon.notation._position_id_kernel`, loaded on first use.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..errors import NotationError

if TYPE_CHECKING:
    import numpy as np

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


def board_to_key(board, key):
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


def key_to_board(key, board):
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


def key_to_text(key, out):
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


def text_to_key(text, key):
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


def encode_batch(boards: np.ndarray) -> np.ndarray:
    """Position IDs of many boards, as an (N, 14) uint8 array of ASCII characters."""
    from . import _position_id_kernel

    return _position_id_kernel.encode_batch(boards)


def decode_batch(texts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Boards of many Position IDs given as (N, 14) uint8; returns (boards, status codes)."""
    from . import _position_id_kernel

    return _position_id_kernel.decode_batch(texts)


def encode(board: Sequence[int]) -> str:
    """The Position ID of one mover-relative board (26 counts, any sequence of integers)."""
    key = bytearray(10)
    out = bytearray(ID_LENGTH)
    board_to_key(board, key)
    key_to_text(key, out)
    return out.decode("ascii")


def decode(text: str) -> list[int]:
    """The mover-relative board (26 counts) of a Position ID; :class:`NotationError` names what is wrong."""
    if not isinstance(text, str):
        raise NotationError("Position ID", "text", repr(text), "a string")
    stripped = text.strip()
    if len(stripped) != ID_LENGTH or not stripped.isascii():
        raise NotationError("Position ID", "length", text, "14 base64 characters, e.g. 4HPwATDgc/ABMA")
    key = bytearray(10)
    code = text_to_key(stripped.encode("ascii"), key)
    board = [0] * 26
    if code == OK:
        code = key_to_board(key, board)
    if code != OK:
        raise NotationError("Position ID", "key", text, _STATUS_TEXT[code])
    return board

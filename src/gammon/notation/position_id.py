"""GNU Backgammon Position ID: 14 base64 characters for the checkers, seen from the side on roll.

The ID is an 80-bit key: first the player *not* on roll, then the player on roll; for each,
its points 1..24 in its own numbering and then its bar, one ``1`` bit per checker followed
by a ``0``. Bits are packed least-significant first into 10 bytes, then base64 without the
``==``. The ID is only checkers: a key with none at all (``AAAAAAAAAAAAAA``) reads as a
Position, which no :class:`~gammon.state.GameState` accepts (both sides cannot have won).

The four steps (board <-> key <-> text, :mod:`gammon.notation._position_id_steps`) are plain
Python that numba can compile. One position runs them as Python on lists and bytearrays, so
reading or writing one ID loads neither numba nor numpy; batch tools (:func:`encode_batch`,
:func:`decode_batch`) run them compiled, from :mod:`gammon.notation._position_id_kernel`,
loaded on first use.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..errors import NotationError
from ._position_id_steps import (
    BAD_CHARACTER, BOTH_COLOURS, ID_LENGTH, OK, PADDING_NOT_ZERO, TOO_MANY_BITS, TOO_MANY_CHECKERS,
    board_to_key, key_to_board, key_to_text, text_to_key,
)

if TYPE_CHECKING:
    import numpy as np

__all__ = ["BAD_CHARACTER", "BOTH_COLOURS", "ID_LENGTH", "OK", "PADDING_NOT_ZERO", "STATUS_TEXT", "TOO_MANY_BITS",
           "TOO_MANY_CHECKERS", "board_to_key", "decode", "decode_batch", "encode", "encode_batch", "key_to_board",
           "key_to_text", "text_to_key"]

#: What each status code of the decoding steps says was expected.
STATUS_TEXT = {
    BAD_CHARACTER: "14 characters of the base64 alphabet A-Z a-z 0-9 + /",
    TOO_MANY_BITS: "an 80-bit key with 50 point/bar separators",
    TOO_MANY_CHECKERS: "at most 15 checkers a side",
    BOTH_COLOURS: "a key where no point holds checkers of both sides",
    PADDING_NOT_ZERO: "zero padding after the last separator",
}


def encode_batch(boards: np.ndarray) -> np.ndarray:
    """Position IDs of many boards, as an (N, 14) uint8 array of ASCII characters."""
    from . import _position_id_kernel

    texts: np.ndarray = _position_id_kernel.encode_batch(boards)
    return texts


def decode_batch(texts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Boards of many Position IDs given as (N, 14) uint8; returns (boards, status codes)."""
    from . import _position_id_kernel

    boards, status = _position_id_kernel.decode_batch(texts)
    return boards, status


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
        raise NotationError("Position ID", "key", text, STATUS_TEXT[code])
    return board

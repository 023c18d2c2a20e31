"""The Position ID steps (:mod:`gammon.notation._position_id_steps`), compiled by numba for batches.

The same functions, not copies: each is a plain-Python step given to :func:`gammon.compiled.kernel`
(numba keeps the machine code in its on-disk cache, so later runs load it).
"""

from __future__ import annotations

import numpy as np

from . import _position_id_steps as _steps
from ..compiled import kernel

board_to_key = kernel("(readonly(int8[::1]), uint8[::1])")(_steps.board_to_key)
key_to_board = kernel("(readonly(uint8[::1]), int8[::1])")(_steps.key_to_board)
key_to_text = kernel("(readonly(uint8[::1]), uint8[::1])")(_steps.key_to_text)
text_to_key = kernel("(readonly(uint8[::1]), uint8[::1])")(_steps.text_to_key)
ID_LENGTH = _steps.ID_LENGTH
OK = _steps.OK


@kernel("(readonly(int8[:, ::1]),)")
def encode_batch(boards):
    """Position IDs of many boards, as an (N, 14) uint8 array of ASCII characters."""
    out = np.empty((boards.shape[0], ID_LENGTH), np.uint8)
    key = np.empty(10, np.uint8)
    for i in range(boards.shape[0]):
        board_to_key(boards[i], key)
        key_to_text(key, out[i])
    return out


@kernel("(readonly(uint8[:, ::1]),)")
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

"""The Position ID steps (:mod:`gammon.notation._position_id_steps`), compiled by numba for batches.

The same functions, not copies: each is a plain-Python step given to ``njit``
(numba keeps the machine code in its on-disk cache, so later runs load it).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import _position_id_steps as _steps

board_to_key = njit(cache=True)(_steps.board_to_key)
key_to_board = njit(cache=True)(_steps.key_to_board)
key_to_text = njit(cache=True)(_steps.key_to_text)
text_to_key = njit(cache=True)(_steps.text_to_key)
ID_LENGTH = _steps.ID_LENGTH
OK = _steps.OK


@njit(cache=True)
def encode_batch(boards):
    """Position IDs of many boards, as an (N, 14) uint8 array of ASCII characters."""
    out = np.empty((boards.shape[0], ID_LENGTH), np.uint8)
    key = np.empty(10, np.uint8)
    for i in range(boards.shape[0]):
        board_to_key(boards[i], key)
        key_to_text(key, out[i])
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

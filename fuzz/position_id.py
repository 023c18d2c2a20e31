"""Fuzz target: a Position ID (``Position.from_position_id``, ``gammon.notation.position_id.decode``)."""

from __future__ import annotations

import _harness
from _checks import check_position

from gammon import BLACK, WHITE, Position
from gammon.notation import position_id


def fuzz_one_input(data: bytes) -> None:
    text = _harness.text(data)
    board = position_id.decode(text)
    for turn in (WHITE, BLACK):
        position = Position.from_position_id(text, turn)
        check_position(position, f"Position ID {text!r}")
    if position_id.encode(board) != Position.from_position_id(text).position_id():
        raise _harness.violation(f"Position ID {text!r}: decode/encode and Position disagree")


if __name__ == "__main__":
    _harness.main(__file__)

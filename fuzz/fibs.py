"""Fuzz target: a FIBS board string (``FibsBoard.parse``, ``GameState.from_fibs``)."""

from __future__ import annotations

import _harness
from _checks import check_state

from gammon import FibsBoard


def fuzz_one_input(data: bytes) -> None:
    text = _harness.text(data)
    board = FibsBoard.parse(text)
    check_state(board.state, f"FIBS board {text!r}")
    written = board.text()
    try:
        again = FibsBoard.parse(written)
    except Exception as error:  # noqa: BLE001
        raise _harness.violation(f"FIBS board {text!r}: its text {written!r} is refused: {error!r}") from None
    if again.text() != written:
        raise _harness.violation(f"FIBS board {text!r}: {written!r} reads back as {again.text()!r}")


if __name__ == "__main__":
    _harness.main(__file__)

"""Fuzz target: an eXtreme Gammon XGID (``GameState.from_xgid``)."""

from __future__ import annotations

import _harness
from _checks import check_state

from gammon import GameState


def fuzz_one_input(data: bytes) -> None:
    text = _harness.text(data)
    check_state(GameState.from_xgid(text), f"XGID {text!r}")


if __name__ == "__main__":
    _harness.main(__file__)

"""Fuzz target: BPN, Backgammon Position Notation (``GameState.from_bpn``, ``Position.from_bpn``)."""

from __future__ import annotations

import _harness
from _checks import check_state

from gammon import GameState, Position


def fuzz_one_input(data: bytes) -> None:
    text = _harness.text(data)
    state = GameState.from_bpn(text)
    check_state(state, f"BPN {text!r}")
    if Position.from_bpn(text) != state.position:
        raise _harness.violation(f"BPN {text!r}: Position.from_bpn and GameState.from_bpn disagree")


if __name__ == "__main__":
    _harness.main(__file__)

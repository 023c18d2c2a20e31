"""Fuzz target: a Match ID (``GameState.from_match_id``), alone or followed by a space and a Position ID."""

from __future__ import annotations

import _harness
from _checks import check_state

from gammon import GameState


def fuzz_one_input(data: bytes) -> None:
    text = _harness.text(data)
    match_id, _, position = text.partition(" ")
    state = GameState.from_match_id(match_id, position or None)
    check_state(state, f"Match ID {text!r}")
    written = state.match_id()
    if GameState.from_match_id(written, state.position).match_id() != written:
        raise _harness.violation(f"Match ID {text!r}: {written!r} does not read back")


if __name__ == "__main__":
    _harness.main(__file__)

"""Fuzz target: GNU Backgammon's ``POSID:MATCHID`` (``GameState.from_gnubg_id``)."""

from __future__ import annotations

import _harness
from _checks import check_state

from gammon import GameState


def fuzz_one_input(data: bytes) -> None:
    text = _harness.text(data)
    check_state(GameState.from_gnubg_id(text), f"GNUbg ID {text!r}")


if __name__ == "__main__":
    _harness.main(__file__)

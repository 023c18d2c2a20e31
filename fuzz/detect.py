"""Fuzz target: any notation, told apart by ``gammon.notation.detect`` and read by ``GameState.parse``."""

from __future__ import annotations

import _harness
from _checks import check_state

from gammon import GameState
from gammon.notation import NOTATIONS, detect


def fuzz_one_input(data: bytes) -> None:
    text = _harness.text(data)
    kind = detect(text)
    if kind not in NOTATIONS:
        raise _harness.violation(f"detect({text!r}) answered {kind!r}, not one of {NOTATIONS}")
    check_state(GameState.parse(text), f"{kind} {text!r}")


if __name__ == "__main__":
    _harness.main(__file__)

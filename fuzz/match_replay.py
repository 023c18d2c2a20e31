"""Fuzz target: a match as text, ``Action.from_text`` line by line (``white roll 3-1``, ``white play 8/5 6/5``).

An optional first line in any notation (``GameState.parse``) is where the match starts
(``Match.from_state``); a state whose game is already won must not be played on. Each
later line is one action: refused ones must change nothing.
"""

from __future__ import annotations

import _harness
from _match import check_replay, snapshot, unchanged

from _checks import pick

from gammon import Action, GameState, Match
from gammon.errors import GammonError

#: Where a match starts when the input gives no position.
STARTS = ({"length": 1}, {"length": 3}, {"length": 7, "crawford": False}, {"length": 0, "jacoby": True, "beavers": True})


def start(first: str) -> tuple[GameState | None, bool]:
    """The state a first line describes (None: it is an action, not a position)."""
    try:
        return GameState.parse(first), True
    except GammonError:
        return None, False


def fuzz_one_input(data: bytes) -> None:
    lines = _harness.text(data).splitlines()
    state, used = start(lines[0]) if lines else (None, False)
    if state is not None:
        match = Match.from_state(state)
        if state.position.winner() is not None and match.to_act is not None:
            raise _harness.violation(f"Match.from_state({state!r}): a won game is played on by {match.to_act}")
    else:
        options = pick(data, STARTS)
        match = Match(options["length"], **{k: v for k, v in options.items() if k != "length"})
    for line in lines[used:][:100]:
        before = snapshot(match)
        try:
            match.apply(Action.from_text(line))
        except GammonError as error:
            unchanged(match, before, f"{line!r} ({error})")
    check_replay(match)


if __name__ == "__main__":
    _harness.main(__file__)

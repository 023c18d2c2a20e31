"""What the match targets share: a snapshot of a match, to see that a refused action changed nothing."""

from __future__ import annotations

import _harness

from gammon.errors import GammonError


def snapshot(match) -> tuple:
    """Everything an action may change; reading it must not fail."""
    try:
        state = repr(match.state)
    except GammonError as error:
        state = f"no state: {error}"
    return (
        state,
        tuple(str(action) for action in match.history),
        match.pending_moves,
        match.score,
        match.to_act,
        match.game_over,
        match.is_over,
        match.remaining_dice,
    )


def unchanged(match, before: tuple, what: str) -> None:
    after = snapshot(match)
    if after != before:
        changes = [f"{b!r} -> {a!r}" for b, a in zip(before, after) if a != b]
        raise _harness.violation(f"{what} was refused but changed the match: {'; '.join(changes)}")


def check_history(match) -> None:
    """Every recorded roll is two dice 1-6; an opening roll's first die (the winner's) is the higher."""
    for action in match.history:
        dice = action.dice
        if dice is None:
            continue
        if len(dice) != 2 or not all(type(d) is int and 1 <= d <= 6 for d in dice):
            raise _harness.violation(f"the history holds {str(action)!r}")
        if action.kind.value == "opening" and not dice[0] > dice[1]:
            raise _harness.violation(f"an opening roll that no one can win was taken: {str(action)!r}")


def check_replay(match) -> None:
    """The history is possible, and its text lines, replayed from the start, give the same match."""
    from gammon import Match

    check_history(match)
    lines = [str(action) for action in match.history]
    try:
        again = Match.replay(lines, match.start, crawford=match.crawford_rule)
    except Exception as error:  # noqa: BLE001 - its own history must replay
        raise _harness.violation(f"the match's history {lines} does not replay: {error!r}") from None
    if snapshot(again)[:2] != snapshot(match)[:2] and not match.pending_moves:
        raise _harness.violation(f"the history {lines} replays to {snapshot(again)[0]}, not {snapshot(match)[0]}")

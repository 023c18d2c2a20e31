"""Clocks: a delay per move and a reserve per match, as backgammon sites keep time.

A player's turn starts when they become the side to act and lasts until someone else is
(a roll and its play are one turn). Its first ``delay`` seconds are free; after them the
player's ``reserve`` runs, and what was used is taken off when the turn passes. A player
whose reserve is spent loses the match. A bot's time is not counted: it cannot dawdle, and
a busy server must not make it lose.

The clock is stored with the match row as JSON, ``{"white": s, "black": s, "running": side
or null, "since": ISO time}``: each side's reserve as of the start of the running turn.

>>> rule = {"delay": 12, "reserve": 60}
>>> start = dt.datetime(2026, 1, 1, 12, 0, 0)
>>> clock = started(rule, "white", start)
>>> later = passed(clock, rule, "black", start + dt.timedelta(seconds=20), counted=("white", "black"))
>>> later["white"], later["running"]
(52.0, 'black')
>>> out_of_time(later, rule, start + dt.timedelta(seconds=20 + 12 + 61), counted=("white", "black"))
'black'
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection
from typing import Any

Clock = dict[str, Any]
Rule = dict[str, int]
LOW = 30.0  #: seconds of reserve under which a player is warned


def started(rule: Rule, running: str | None, now: dt.datetime) -> Clock:
    """A full reserve for both sides, ``running``'s turn under way from ``now``."""
    return {"white": float(rule["reserve"]), "black": float(rule["reserve"]), "running": running,
            "since": now.isoformat()}


def _since(clock: Clock) -> dt.datetime:
    return dt.datetime.fromisoformat(clock["since"])


def used(clock: Clock, rule: Rule, now: dt.datetime) -> float:
    """Reserve seconds the running turn has used by ``now`` (its delay first)."""
    return max(0.0, (now - _since(clock)).total_seconds() - rule["delay"])


def passed(clock: Clock, rule: Rule, to_act: str | None, now: dt.datetime, counted: Collection[str]) -> Clock:
    """The clock after a change that leaves ``to_act`` to act (None: nobody, the match is over).

    The same side still to act keeps its turn running; otherwise the running turn's reserve
    used is taken off (for a side whose time is ``counted``) and ``to_act``'s turn begins."""
    running: str | None = clock.get("running")
    if to_act is not None and to_act == running:
        return clock
    out = dict(clock)
    if running is not None and running in counted:
        out[running] = max(0.0, round(clock[running] - used(clock, rule, now), 3))
    out["running"], out["since"] = to_act, now.isoformat()
    return out


def out_of_time(clock: Clock | None, rule: Rule | None, now: dt.datetime, counted: Collection[str]) -> str | None:
    """The running side if its delay and reserve are both spent by ``now`` (and its time counts)."""
    if clock is None or rule is None:
        return None
    running: str | None = clock.get("running")
    if running is None or running not in counted:
        return None
    up = deadline(clock, rule)
    return running if up is not None and now > up else None


def deadline(clock: Clock, rule: Rule) -> dt.datetime | None:
    """When the running side's time is up (None: no turn running)."""
    running = clock.get("running")
    if running is None:
        return None
    return _since(clock) + dt.timedelta(seconds=rule["delay"] + clock[running])


def view(clock: Clock | None, rule: Rule | None) -> dict[str, Any] | None:
    """What clients see: the rule, each side's reserve as of ``since``, whose time runs."""
    if clock is None or rule is None:
        return None
    return {"delay": rule["delay"], "reserve": {"white": clock["white"], "black": clock["black"]},
            "running": clock.get("running"), "since": clock["since"] + "Z"}

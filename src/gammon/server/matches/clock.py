"""Clocks: a delay per move and a reserve per match, as backgammon sites keep time.

A player's turn starts when they become the side to act and lasts until someone else is
(a roll and its play are one turn). Its first ``delay`` seconds are free; after them the
player's ``reserve`` runs, and what was used is taken off when the turn passes. A player
whose reserve is spent loses the match. A bot's time is not counted: it cannot dawdle, and
a busy server must not make it lose.

Time counts only when a player can act on it. A person is *waiting* from the acceptance
until they are first present on their turn (:func:`present`; docs/server.md says what counts):
a turn of theirs before that is not counted, so nobody loses a match they never saw begin.
And time the server was not serving (down, or frozen) is taken out of the running turn
(:func:`paused`).

The clock is stored with the match row as JSON, ``{"white": s, "black": s, "running": side
or null, "since": ISO time, "waiting": [sides], "played": version}``: each side's reserve as of
the start of the running turn (``since``), the people not yet present (a clock written before
presence counted has none: nobody waits), and the match's version when more than its clock last
changed, so an action decided on a version that differs only by its clock (a player arrived,
the server resumed after a pause) is not refused as stale (:func:`only_clock_since`).

>>> rule = {"delay": 12, "reserve": 60}
>>> start = dt.datetime(2026, 1, 1, 12, 0, 0)
>>> clock = started(rule, "white", start)
>>> later = passed(clock, rule, "black", start + dt.timedelta(seconds=20), counted=("white", "black"))
>>> later["white"], later["running"]
(52.0, 'black')
>>> out_of_time(later, rule, start + dt.timedelta(seconds=20 + 12 + 61), counted=("white", "black"))
'black'
>>> away = passed(started(rule, None, start, waiting=["white"]), rule, "white", start, counted=("white", "black"))
>>> out_of_time(away, rule, start + dt.timedelta(hours=1), counted=("white", "black")) is None
True
>>> back = present(away, "white", start + dt.timedelta(hours=1))
>>> deadline(back, rule) - start
datetime.timedelta(seconds=3672)
>>> down = paused(back, start + dt.timedelta(hours=1, seconds=10), start + dt.timedelta(hours=1, seconds=50))
>>> deadline(down, rule) - deadline(back, rule)  # 40 s down: 40 s later
datetime.timedelta(seconds=40)
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection
from typing import Any

Clock = dict[str, Any]
Rule = dict[str, int]
LOW = 30.0  #: seconds of reserve under which a player is warned


def started(rule: Rule, running: str | None, now: dt.datetime, waiting: Collection[str] = ()) -> Clock:
    """A full reserve for both sides, ``running``'s turn under way from ``now``; ``waiting``: the
    people not present yet (their turns are not counted until they are)."""
    return {"white": float(rule["reserve"]), "black": float(rule["reserve"]), "running": running,
            "since": now.isoformat(), "waiting": sorted(waiting)}


def _since(clock: Clock) -> dt.datetime:
    return dt.datetime.fromisoformat(clock["since"])


def waiting(clock: Clock | None) -> list[str]:
    """The sides whose player has not been present since the acceptance (their time does not count yet)."""
    return list(clock.get("waiting") or ()) if clock is not None else []


def _counts(clock: Clock, side: str | None, counted: Collection[str]) -> bool:
    """Whether ``side``'s time runs: a person's, once they have been present."""
    return side is not None and side in counted and side not in waiting(clock)


def present(clock: Clock, side: str, now: dt.datetime) -> Clock:
    """The clock once ``side``'s player is present: if it is their turn, it counts from ``now``."""
    if side not in waiting(clock):
        return clock
    out = dict(clock, waiting=[other for other in waiting(clock) if other != side])
    if clock.get("running") == side:
        out["since"] = now.isoformat()
    return out


def paused(clock: Clock, start: dt.datetime, end: dt.datetime) -> Clock:
    """The clock with the span from ``start`` to ``end`` (the server was not serving) taken out
    of the running turn: its ``since`` moves on by the part of the span that fell inside it."""
    if clock.get("running") is None:
        return clock
    since = _since(clock)
    lost = end - max(since, start)
    if lost <= dt.timedelta(0):
        return clock
    return dict(clock, since=(since + lost).isoformat())


def played(clock: Clock, version: int) -> Clock:
    """The clock of a change to more than the clock, written at ``version``."""
    return dict(clock, played=version)


def only_clock_since(clock: Clock | None, version: int, current: int) -> bool:
    """Whether the match at ``version`` differs from the ``current`` one by its clock alone."""
    last = clock.get("played") if clock is not None else None
    return last is not None and last <= version < current


def used(clock: Clock, rule: Rule, now: dt.datetime) -> float:
    """Reserve seconds the running turn has used by ``now`` (its delay first)."""
    return max(0.0, (now - _since(clock)).total_seconds() - rule["delay"])


def passed(clock: Clock, rule: Rule, to_act: str | None, now: dt.datetime, counted: Collection[str]) -> Clock:
    """The clock after a change that leaves ``to_act`` to act (None: nobody, the match is over).

    The same side still to act keeps its turn running; otherwise the running turn's reserve
    used is taken off (for a side whose time counts) and ``to_act``'s turn begins."""
    running: str | None = clock.get("running")
    if to_act is not None and to_act == running:
        return clock
    out = dict(clock)
    if running is not None and _counts(clock, running, counted):
        out[running] = max(0.0, round(clock[running] - used(clock, rule, now), 3))
    out["running"], out["since"] = to_act, now.isoformat()
    return out


def out_of_time(clock: Clock | None, rule: Rule | None, now: dt.datetime, counted: Collection[str]) -> str | None:
    """The running side if its delay and reserve are both spent by ``now`` (and its time counts)."""
    if clock is None or rule is None:
        return None
    running: str | None = clock.get("running")
    if not _counts(clock, running, counted):
        return None
    up = deadline(clock, rule)
    return running if up is not None and now > up else None


def deadline(clock: Clock, rule: Rule) -> dt.datetime | None:
    """When the running side's time is up (None: no turn running, or its player not yet present)."""
    running = clock.get("running")
    if running is None or running in waiting(clock):
        return None
    return _since(clock) + dt.timedelta(seconds=rule["delay"] + clock[running])


def view(clock: Clock | None, rule: Rule | None) -> dict[str, Any] | None:
    """What clients see: the rule, each side's reserve as of ``since``, whose time runs, who is awaited."""
    if clock is None or rule is None:
        return None
    return {"delay": rule["delay"], "reserve": {"white": clock["white"], "black": clock["black"]},
            "running": clock.get("running"), "since": clock["since"] + "Z", "waiting": waiting(clock)}

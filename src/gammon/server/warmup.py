"""Ready before the first player: the bots' compiled code and bear-off tables, made before the server answers.

On a fresh install nothing is compiled yet (numba keeps machine code in its on-disk cache,
:func:`gammon.compiled.cache_folder`) and the bear-off tables are not built
(``~/.cache/gammon/bearoff``, or ``GAMMON_CACHE_DIR``): the first bot move, hint or bear-off
would wait for them, tens of seconds, with the player looking at a spinner. :func:`prepare`
does all of it at start instead: it loads every offered bot (and the hint player), compiles
every kernel they use on every core (:func:`gammon.compiled.prepare`, counted on the start-up
line), builds or loads the tables, then lets each bot decide, hint and judge the cube on a few
positions of every kind (contact, race, both bear-offs), through the very functions the worker
pool runs (:mod:`gammon.server.seats`). A second call in the same process does nothing, and the
bots' worker processes are forked after it, so they inherit what was made; a process started
afresh (another start method, or uvicorn's own workers) prepares itself from the caches.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Iterable
from typing import TextIO

from .. import compiled
from ..bearoff import defaults as bearoff_tables
from ..errors import GammonError
from ..players import load_player, parse_player
from ..position import Position
from ..state import GameState
from .seats import DEFAULT_BOTS, Turn, cube_hint_task, hint_task, think

log = logging.getLogger("gammon.server")

_prepared: set[str] = set()  # the players prepared in this process (inherited by forked workers)


def _counts(points: dict[int, int]) -> tuple[int, ...]:
    """A side's 25 counts (points 1..24, then its bar) from ``{point: checkers}``."""
    return tuple(points.get(point, 0) for point in range(1, 26))


#: One position of each kind a bot meets, each a different evaluator or table: contact (the net),
#: a race (the race net), a one-sided bear-off (15 checkers home) and a two-sided one (6 a side).
_CONTACT = Position.starting()
_RACE = Position.from_checkers(_counts({6: 2, 7: 3, 8: 3, 9: 3, 10: 2, 11: 2}),
                               _counts({5: 2, 6: 3, 7: 3, 8: 3, 9: 2, 12: 2}))
_HOME = Position.from_checkers(_counts({1: 3, 2: 3, 3: 3, 4: 2, 5: 2, 6: 2}),
                               _counts({1: 2, 2: 3, 3: 3, 4: 3, 5: 2, 6: 2}))
_LAST = Position.from_checkers(_counts({1: 2, 2: 1, 3: 1, 5: 1, 6: 1}), _counts({1: 1, 2: 2, 4: 2, 6: 1}))
POSITIONS = (_CONTACT, _RACE, _HOME, _LAST)


def offered(hint_player: str, external: Iterable[str] = ()) -> tuple[str, ...]:
    """The players a server prepares: gammon's own bots and the hint player (not external engines,
    whose programs have nothing of ours to compile)."""
    names = [*DEFAULT_BOTS, hint_player, *external]
    return tuple(dict.fromkeys(name for name in names if not parse_player(name).external))


#: The start-up line's words while the bots are prepared.
PREPARING = "gammon serve: preparing the bots (compiling, bear-off tables)... "


def prepare(players: Iterable[str], out: TextIO | None = None) -> float:
    """Compile what ``players`` use, build or load the bear-off tables, and make ``players``
    decide, hint and judge the cube on :data:`POSITIONS` in this process; the seconds it took (0
    when already done here). The compiling is counted on ``out`` (default stderr) after
    :data:`PREPARING`, when it takes long or ``out`` is a terminal.

    A player that fails here is logged and left to fail, or not, when it is asked in play: a
    server with one broken bot still serves the others.
    """
    todo = [name for name in players if name not in _prepared]
    if not todo:
        return 0.0
    with compiled.told(out, PREPARING):
        return _prepare(todo)


def _prepare(todo: list[str]) -> float:
    started = time.monotonic()
    for name in todo:  # their modules imported, so one count covers every kernel they use
        try:
            load_player(name)
        except Exception:  # noqa: BLE001 - told by _exercise below, with the bot's name
            pass
    bearoff_tables.import_builders()  # and the tables' builders, when a table is to be built
    compiled.prepare(compiled.imported())
    try:
        bearoff_tables.onesided()
        bearoff_tables.twosided()
    except (OSError, GammonError) as error:  # the bots play on without them (gammon.bots.load_bearoff)
        log.warning("bear-off tables not prepared: %s", error)
    for name in todo:
        try:
            _exercise(name)
        except Exception as error:  # noqa: BLE001 - one broken player must not stop the server
            log.warning("bot %s not prepared: %s", name, error)
        _prepared.add(name)
    took = time.monotonic() - started
    log.info("bots prepared in %.1f s: %s", took, ", ".join(todo))
    return took


def _exercise(name: str) -> None:
    for number, position in enumerate(POSITIONS):
        # a 3-point match at 1-1: the cubeful paths (match equity, Janowski) compile too
        state = GameState(position, dice=(4, 2), match_length=3, score=(1, 1))
        think(Turn(0, number, name, state, may_double=False, may_beaver=False))
        think(Turn(0, number, name, state.replace(dice=None), may_double=True, may_beaver=False))
        if position is _CONTACT:
            hint_task(name, state)
            cube_hint_task(name, state.replace(dice=None))
            state.gnubg_id(), state.bpn()  # the server's views name every position by these


def announce(players: Iterable[str], out: TextIO | None = None) -> float:
    """:func:`prepare`, told on the start-up line: what is being made, the kernels compiled so far
    (redrawn on a terminal), then how long it took."""
    out = out or sys.stdout
    terminal = out.isatty()
    if terminal:
        print(PREPARING, end="", file=out, flush=True)
    took = prepare(players, out)
    redraw = "\r\033[K" if terminal else ""  # the line again, whatever the count left on it
    print(f"{redraw}{PREPARING}done in {took:.0f} s", file=out, flush=True)
    return took


def prepare_worker(players: tuple[str, ...]) -> None:
    """A worker process's initializer: :func:`prepare` (nothing to do when forked from a prepared server)."""
    prepare(players)

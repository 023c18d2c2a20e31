"""Standard move notation: ``24/18 13/11*``, ``bar/22``, ``6/off``, ``13/10(2)``, ``24/18*/13``.

Text is always in the mover's numbering (1 = its ace point, ``bar`` = 25, ``off`` = 0). This
module reads and writes plain steps (``source``, ``target``, ``hit``) and kernel boards; the
value types call it: ``str(play)``, :meth:`Play.parse <gammon.play.Play.parse>`,
:meth:`LegalPlays.find <gammon.position.LegalPlays.find>`.

**Canonical form** (what :func:`format_play` writes, gammon rule after GNU Backgammon):

* one checker's consecutive steps are joined into one move, ``24/18 18/13`` -> ``24/13``,
  but a point where it hit stays written, ``24/18*/13``;
* moves are sorted by starting point, highest first (then by landing point, highest
  first); identical moves are written once with a count, ``13/10(2)``; ``*`` marks a hit;
* a play with no checker move (a roll that cannot be played) is the empty string.

**Reading** (:func:`parse_play`): every short form above and the fully written-out forms
(``24/18/13``, ``24/18 18/13``, UBGI's ``25/22``, ``6/0``), ``*`` optional, in any order.
The text is played out on the board with the roll's dice; the play it means is the legal
play whose resulting position it reaches. A move written as one jump (``24/13``) may pass
any point; if some way of making it hits on a point the text does not name and another
way does not, the text means the one that does not hit (so ``24/13`` is the quiet play
and ``24/18*/13`` the hitting one). Several different results are ambiguous.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, Protocol, TypeVar

from ..board import BAR, OFF
from ..errors import AmbiguousPlayError, IllegalPlayError, InvalidMoveError
from . import whole_number

if TYPE_CHECKING:
    import numpy as np

T = TypeVar("T")

#: Words read as "no move" for a roll that cannot be played.
PASS_WORDS = frozenset({"", "pass", "no move", "none", "cannot move", "-"})
_MAX_MOVES = 4
_SHOWN_ALTERNATIVES = 20


class StepLike(Protocol):
    """One checker moved, as this module reads it: a :class:`Step`, or a play's ``Move``."""

    @property
    def source(self) -> int: ...
    @property
    def target(self) -> int: ...
    @property
    def hit(self) -> bool: ...


class Step(NamedTuple):
    """One checker moved, as text writes it: from ``source`` (25 the bar) to ``target`` (0 off)."""

    source: int
    target: int
    hit: bool = False


# -- writing -----------------------------------------------------------------------------
def format_play(moves: Iterable[StepLike], *, mirrored: bool = False) -> str:
    """Canonical standard notation of a play's checker moves (see the module docstring);
    ``mirrored``: each point as the other side counts it (25 - point), for a listener who
    numbers the board from there, the play's form otherwise the same.

    >>> format_play([Step(13, 9), Step(9, 5, True), Step(6, 2, True), Step(6, 2)], mirrored=True)
    '12/20* 19/23*(2)'
    """
    ordered = sorted(moves, key=lambda m: (-m.source, -m.target))
    chains: list[list[StepLike]] = []
    for move in ordered:
        # Sources fall along a chain, so in this order a checker's earlier step is always
        # placed before its next one; prefer joining a chain that did not hit there.
        open_chains = [c for c in chains if c[-1].target == move.source]
        if open_chains:
            min(open_chains, key=lambda c: c[-1].hit).append(move)
        else:
            chains.append([move])
    groups: dict[tuple[int, ...], list[bool]] = {}
    counts: dict[tuple[int, ...], int] = {}
    for chain in chains:
        points = [chain[0].source]
        hits = [False]
        for i, move in enumerate(chain):
            if i + 1 < len(chain) and not move.hit:
                continue  # a quiet intermediate point is left out
            points.append(move.target)
            hits.append(move.hit)
        key = tuple(points)
        if key in groups:
            groups[key] = [a or b for a, b in zip(groups[key], hits)]
            counts[key] += 1
        else:
            groups[key] = hits
            counts[key] = 1
    parts = []
    for key in sorted(groups, key=lambda k: (-k[0], -k[-1], [-p for p in k])):
        text = "/".join(_point_text(25 - p if mirrored and p not in (BAR, OFF) else p) + ("*" if hit else "")
                        for p, hit in zip(key, groups[key]))
        parts.append(text + (f"({counts[key]})" if counts[key] > 1 else ""))
    return " ".join(parts)


def _point_text(point: int) -> str:
    return "bar" if point == BAR else "off" if point == OFF else str(point)


# -- reading: syntax ---------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Journey:
    """One checker's trip as text gives it: start, the points named on the way, the last
    one its destination; ``die`` when the text fixes the single die to use (``13:3``)."""

    source: int
    stops: tuple[int, ...]
    hits: tuple[bool, ...]
    die: int | None = None


_TOKEN = re.compile(r"^(?P<path>[^()]+)(?:\((?P<count>[^()]*)\))?$")
#: Spaces before a repeat count, ``13/10 (2)``; matched only from a run's first space, so a long
#: run is scanned once, not once from each of its spaces (quadratic).
_SPACE_BEFORE_COUNT = re.compile(r"(?<!\s)\s+\(")


def parse_journeys(text: str) -> list[Journey]:
    """The checker trips written in ``text``, repeats expanded; InvalidMoveError names a bad token."""
    if text.strip().lower() in PASS_WORDS:
        return []
    cleaned = _SPACE_BEFORE_COUNT.sub("(", text.strip().lower().replace(",", " "))
    journeys: list[Journey] = []
    for token in cleaned.split():
        match = _TOKEN.match(token)
        if match is None:
            raise InvalidMoveError(f"bad move {token!r}: expected e.g. 24/18, 13/10(2), bar/22*, 6/off")
        count = 1
        if match["count"] is not None:
            repeat = whole_number(match["count"], 1, _MAX_MOVES)
            if repeat is None:
                raise InvalidMoveError(f"bad move {token!r}: a repeat count is 2, 3 or 4, as in 13/10(2)")
            count = repeat
        parts = match["path"].split("/")
        if len(parts) < 2:
            raise InvalidMoveError(f"bad move {token!r}: expected from/to, e.g. 24/18")
        source = _read_point(parts[0], token, source=True)
        stops: list[int] = []
        hits: list[bool] = []
        previous = source
        for part in parts[1:]:
            hit = part.endswith("*")
            point = _read_point(part[:-1] if hit else part, token, source=False)
            if point >= previous:
                raise InvalidMoveError(
                    f"bad move {token!r}: checkers move down, from {_point_text(previous)} to a lower point or off"
                )
            if point == OFF and hit:
                raise InvalidMoveError(f"bad move {token!r}: a checker borne off cannot hit")
            if previous == OFF:
                raise InvalidMoveError(f"bad move {token!r}: nothing moves on after bearing off")
            stops.append(point)
            hits.append(hit)
            previous = point
        journeys.extend([Journey(source, tuple(stops), tuple(hits))] * count)
    return journeys


def _read_point(word: str, token: str, *, source: bool) -> int:
    if word in ("bar", "b"):
        if not source:
            raise InvalidMoveError(f"bad move {token!r}: the bar is where a move starts, not where it ends")
        return BAR
    if word == "off":
        if source:
            raise InvalidMoveError(f"bad move {token!r}: 'off' is where a move ends, not where it starts")
        return OFF
    point = whole_number(word) if len(word) <= 2 else None
    if point is None:
        raise InvalidMoveError(f"bad move {token!r}: {word!r} is not a point (1-24, bar/25, off/0)")
    if source and not 1 <= point <= 25:
        raise InvalidMoveError(f"bad move {token!r}: a move starts on 1-24 or the bar (25), not {point}")
    if not source and not 0 <= point <= 24:
        raise InvalidMoveError(f"bad move {token!r}: a move ends on 1-24 or off (0), not {point}")
    return point


def parse_steps(text: str) -> tuple[Step, ...]:
    """The checker moves written in ``text``, as written, without a roll to check them against.

    Chains become one step per written stop (``24/18*/13`` -> ``24/18*``, ``18/13``);
    ``24/13`` stays one step of 11 pips. InvalidMoveError for malformed text.
    """
    steps = tuple(
        Step(source, stop, hit)
        for journey in parse_journeys(text)
        for source, stop, hit in zip((journey.source, *journey.stops), journey.stops, journey.hits)
    )
    if len(steps) > _MAX_MOVES:
        raise InvalidMoveError(f"{text.strip()!r} has {len(steps)} checker moves; a play has at most {_MAX_MOVES}")
    return steps


# -- reading: against the legal plays --------------------------------------------------------
def resolve(journeys: Sequence[Journey], text: str, *, board: np.ndarray, dice: tuple[int, int],
            steps: Sequence[int], boards: np.ndarray, plays: Sequence[T], passing: bool) -> T:
    """The legal play ``journeys`` reach when played out on ``board`` (a kernel board) with ``dice``.

    ``steps`` are the moves the dice give (four for doubles); ``boards`` the kernel boards the
    legal ``plays`` reach, one each (``passing``: a single empty play, nothing can be played). InvalidMoveError
    for malformed text, IllegalPlayError or AmbiguousPlayError (both listing the legal plays) when
    the journeys reach no legal play or more than one.
    """
    d1, d2 = dice
    roll = f"{d1}-{d2}"
    if not journeys:
        if passing:
            return plays[0]
        raise _illegal(f"{text!r} plays nothing, but {roll} can be played", plays)
    for journey in journeys:
        for stop, hit in zip(journey.stops, journey.hits):
            if hit and board[stop] != -1:
                raise _illegal(f"{text!r} marks a hit on {stop}, but there is no blot to hit there", plays)
    written = sum(1 if j.die is not None else len(j.stops) for j in journeys)
    if written > _MAX_MOVES or passing:
        raise _illegal(f"{text!r} is not legal with {roll}", plays)
    reached = _play_out(board, journeys, tuple(steps))
    index = {b.tobytes(): i for i, b in enumerate(boards)}
    found: dict[int, int] = {}
    for key, quiet in reached.items():
        i = index.get(key)
        if i is not None:
            found[i] = min(quiet, found.get(i, quiet))
    if not found:
        raise _illegal(f"{text!r} is not legal with {roll}", plays)
    fewest = min(found.values())
    best = sorted(i for i, hits in found.items() if hits == fewest)
    if len(best) > 1:
        candidates = [plays[i] for i in best]
        raise AmbiguousPlayError(
            f"{text!r} is ambiguous with {roll}: it could be " + ", ".join(map(str, candidates)), candidates=candidates
        )
    return plays[best[0]]


def _illegal(message: str, plays: Sequence[object]) -> IllegalPlayError:
    shown = ", ".join(str(p) or "no move" for p in plays[:_SHOWN_ALTERNATIVES])
    more = f" ... ({len(plays)} in all)" if len(plays) > _SHOWN_ALTERNATIVES else ""
    return IllegalPlayError(f"{message}; legal: {shown}{more}", legal=plays)


def _play_out(board: np.ndarray, journeys: Sequence[Journey], dice: tuple[int, ...]) -> dict[bytes, int]:
    """Every board the journeys can reach with ``dice``, each with its fewest hits on unnamed points.

    A depth-first search over which checker moves next with which die; each step is checked
    by the move generator's own rule (:func:`movegen.destination`).
    """
    from .. import movegen  # loaded on first use: text read or written never loads numba

    named = {stop for j in journeys for stop in j.stops}
    reached: dict[bytes, int] = {}
    seen: dict[tuple[object, ...], int] = {}

    def search(board: np.ndarray, where: tuple[tuple[int, int], ...], dice: tuple[int, ...], quiet: int) -> None:
        if all(next_stop == len(journeys[j].stops) for j, (_, next_stop) in enumerate(where)):
            key = board.tobytes()
            reached[key] = min(quiet, reached.get(key, quiet))
            return
        trips = sorted((journeys[j].source, journeys[j].stops, journeys[j].die or 0, w) for j, w in enumerate(where))
        state = (board.tobytes(), tuple(trips), dice)
        if seen.get(state, quiet + 1) <= quiet:
            return
        seen[state] = quiet
        tried = set()
        for j, (point, next_stop) in enumerate(where):
            journey = journeys[j]
            if next_stop == len(journey.stops) or (journey, point, next_stop) in tried:
                continue
            tried.add((journey, point, next_stop))
            goal = journey.stops[next_stop]
            for die in sorted(set(dice)) if journey.die is None else [journey.die] * (journey.die in dice):
                target = int(movegen.destination(board, point, die))
                if target < 0 or target < goal or (journey.die is not None and target != goal):
                    continue
                after = board.copy()
                hit = movegen.apply_move(after, point, target)
                rest = list(dice)
                rest.remove(die)
                moved = list(where)
                moved[j] = (target, next_stop + (target == goal))
                search(after, tuple(moved), tuple(rest), quiet + (1 if hit and target not in named else 0))

    search(board, tuple((j.source, 0) for j in journeys), dice, 0)
    return reached

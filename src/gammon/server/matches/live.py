"""Matches in memory: each server process keeps the matches it serves, as last committed.

A :class:`LiveMatch` is a match row (:class:`~gammon.server.matches.store.MatchInfo`) and the
referee's :class:`~gammon.match.Match` at the same version; it is never changed in place: an
action is applied to a copy, and the copy replaces it only once the writer has committed it.
:class:`LiveMatches` holds them (only the event loop touches it), and :func:`rebuild` makes one
from the database when it is absent or another server has moved the match on.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ...errors import GammonError
from ...events import ActionKind, EventKind, MatchEvent
from ...match import Action, Match
from ...narration import Narrator
from ...position import Color, Position
from ...state import GameState, GameStatus
from .fair_dice import CommittedDice, checked_key
from .rules import variant_of
from .store import ActionRow, EventRow, MatchInfo

SIDES = {Color.WHITE: "white", Color.BLACK: "black"}


def side_name(color: Color | None) -> str | None:
    return None if color is None else SIDES[color]


@dataclass
class LiveMatch:
    """A match as committed at ``info.version``: the row, and the referee (None before it starts)."""

    info: MatchInfo
    match: Match | None
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def names(self) -> dict[Color, str]:
        return {Color.WHITE: self.info.white.name, Color.BLACK: self.info.black.name}

    def color_of(self, user_id: int) -> Color | None:
        if user_id == self.info.white.id:
            return Color.WHITE
        if user_id == self.info.black.id:
            return Color.BLACK
        return None

    def cached(self, key: str, make: Any) -> Any:
        """A view's piece computed once per version (the legal plays, the notations)."""
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]


def start_state(info: MatchInfo) -> GameState:
    """The state before the current game's opening roll, from the snapshot taken when it began."""
    start = info.game_start
    score = [0, 0]
    score[Color.WHITE], score[Color.BLACK] = start["white"], start["black"]
    variant = variant_of(info.options)
    return GameState(position=Position.starting(variant), match_length=info.length, score=(score[0], score[1]),
                     crawford=start["crawford"], jacoby=info.options["jacoby"], beavers=info.options["beavers"],
                     status=GameStatus.NONE, variant=variant)


def committed_dice(info: MatchInfo, drawn: int | None = None) -> CommittedDice:
    """The match's dice, rolled only while its seed is the one committed to under its own scheme
    (:class:`~.fair_dice.DiceProofError` for a match whose scheme was changed after it was made)."""
    key = checked_key(info.seed, info.commitment, info.challenger_seed, info.opponent_seed, scheme=info.dice_scheme)
    return CommittedDice(key, info.rolls_drawn if drawn is None else drawn)


def rebuild(info: MatchInfo, actions: Iterable[str]) -> LiveMatch:
    """The match from its row and the action lines of its current game (refereed again)."""
    if info.status not in ("playing", "finished"):
        return LiveMatch(info, None)
    match = Match.replay(actions, start_state(info), crawford=info.options["crawford"])
    match.game_number = info.game_number
    match.dice = committed_dice(info)
    return LiveMatch(info, match)


def first_state(length: int, options: Mapping[str, Any]) -> GameState:
    """The state before a match's first opening roll, under its options and variant."""
    variant = variant_of(dict(options))
    return GameState(position=Position.starting(variant), match_length=length, jacoby=bool(options.get("jacoby")),
                     beavers=bool(options.get("beavers")), status=GameStatus.NONE, variant=variant)


def replay(info: MatchInfo, rows: Iterable[EventRow | ActionRow],
           step: Callable[[Match], object] | None = None) -> Match:
    """The whole match from its first game, through the events given (a record, a replay's step);
    ``step(match)`` is called before the first event and after each one (a replay's boards)."""
    match = Match.from_state(first_state(info.length, info.options), crawford=info.options["crawford"])
    if step is not None:
        step(match)
    for row in rows:
        if row.action is not None:
            match.apply(Action.from_text(row.action))
        elif row.kind == EventKind.NEW_GAME:  # written before new games carried their action
            match.apply(Action(ActionKind.NEW_GAME))
        if step is not None:
            step(match)
    return match


class LiveMatches:
    """The matches this process serves, newest use last; the oldest are dropped past ``size``."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._items: OrderedDict[int, LiveMatch] = OrderedDict()

    def get(self, match_id: int, version: int | None = None) -> LiveMatch | None:
        """The match if held (at ``version``, when given)."""
        live = self._items.get(match_id)
        if live is None or (version is not None and live.info.version != version):
            return None
        self._items.move_to_end(match_id)
        return live

    def put(self, live: LiveMatch) -> None:
        held = self._items.get(live.info.id)
        if held is not None and held.info.version > live.info.version:
            return  # a newer one was committed meanwhile
        self._items[live.info.id] = live
        self._items.move_to_end(live.info.id)
        while len(self._items) > self.size:
            self._items.popitem(last=False)

    def drop(self, match_id: int) -> None:
        self._items.pop(match_id, None)


# -- the journal: events as rows ------------------------------------------------------------------
def event_rows(events: Iterable[MatchEvent], info: MatchInfo, first_seq: int, now: Any,
               digest: str | None) -> tuple[list[dict[str, Any]], str | None]:
    """The rows to insert for ``events`` (numbered from ``first_seq``) and the new digest chain."""
    narrator = Narrator({Color.WHITE: info.white.name, Color.BLACK: info.black.name},
                        verbose=info.options.get("verbose", False))
    rows = []
    for seq, event in enumerate(events, first_seq):
        action = Action.of(event)
        data = event.data()
        if event.kind == EventKind.CHALLENGE:  # the dice scheme and commitment, in the digest from the first event
            data["dice"] = {"scheme": info.dice_scheme, "commitment": info.commitment}
        row = {"match_id": info.id, "seq": seq, "game": event.game, "kind": event.kind.value,
               "color": side_name(event.color), "action": None if action is None else str(action),
               "data": data, "description": narrator.tell(event), "at": now}
        digest = chain(digest, row)
        rows.append(row)
    return rows, digest


def chain(digest: str | None, row: dict[str, Any]) -> str:
    """The next link of a match's digest: SHA-256 of the last one and the event's canonical form."""
    body = json.dumps([row["seq"], row["game"], row["kind"], row["color"], row["action"], row["data"]],
                      sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(((digest or "") + body).encode()).hexdigest()


def written(notation: Any) -> str | None:
    """A state's notation, or None for what no notation describes (a match already won: score ≥ length)."""
    try:
        return str(notation())
    except GammonError:
        return None

"""What happens in a match, as values: one small class per kind of event.

:class:`~gammon.match.Match` returns these from every action (:meth:`Match.act` gives the
events of one step), so a host stores, sends and tells them without diffing histories. An
event is plain data: :meth:`MatchEvent.data` and :func:`event_from_data` turn it into JSON
and back, and :mod:`gammon.narration` makes the sentence a listener hears.
:meth:`Action.of <gammon.match.Action.of>` gives the referee action an event stands for, so
a match replays from its events.

>>> event = Rolled(game=1, color=Color.WHITE, dice=(3, 1))
>>> event.kind, event.data()
(<EventKind.ROLL: 'roll'>, {'dice': [3, 1]})
>>> event_from_data("roll", 1, "white", {"dice": [3, 1]}) == event
True
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from .errors import GammonError
from .play import Play
from .position import Color
from .referee import WinKind
from .state import GameStatus, Resignation

__all__ = [
    "ActionKind",
    "Beavered",
    "ChallengeAccepted",
    "ChallengeDeclined",
    "Challenged",
    "Doubled",
    "Dropped",
    "EventDataError",
    "EventKind",
    "GameOver",
    "GameStarted",
    "MatchEvent",
    "MatchOver",
    "ModeChanged",
    "OpeningRolled",
    "Played",
    "ResignationAccepted",
    "ResignationRejected",
    "Resigned",
    "Rolled",
    "TimedOut",
    "Took",
    "event_from_data",
]


class EventDataError(GammonError, ValueError):
    """Stored event data that does not describe an event: the message names the field."""


class ActionKind(enum.Enum):
    """The kinds of a referee action (:class:`~gammon.match.Action`), the steps a match replays."""

    NEW_GAME = "new_game"
    OPENING_ROLL = "opening"
    ROLL = "roll"
    DOUBLE = "double"
    TAKE = "take"
    BEAVER = "beaver"
    DROP = "drop"
    PLAY = "play"
    RESIGN = "resign"
    ACCEPT = "accept"
    REJECT = "reject"


class EventKind(enum.StrEnum):
    """Every kind of event, by the name it is stored and sent under."""

    CHALLENGE = "challenge"
    ACCEPT_CHALLENGE = "accept_challenge"
    DECLINE = "decline"
    NEW_GAME = "new_game"
    OPENING = "opening"
    ROLL = "roll"
    PLAY = "play"
    DOUBLE = "double"
    TAKE = "take"
    BEAVER = "beaver"
    DROP = "drop"
    RESIGN = "resign"
    ACCEPT = "accept"
    REJECT = "reject"
    GAME_OVER = "game_over"
    MATCH_OVER = "match_over"
    MODE = "mode"
    TIMEOUT = "timeout"


@dataclass(frozen=True, slots=True)
class MatchEvent:
    """Base of the events: the game it happened in and the side it is about (None: neither)."""

    kind: ClassVar[EventKind]
    game: int
    color: Color | None = None

    def data(self) -> dict[str, Any]:
        """The kind's own fields as JSON-ready values (what a host stores beside kind, game and colour)."""
        out: dict[str, Any] = {}
        for item in dataclasses.fields(self):
            if item.name in ("game", "color"):
                continue
            out[item.name] = _plain(getattr(self, item.name))
        return out


def _plain(value: Any) -> Any:
    if isinstance(value, Play):  # one word a checker step, as written: Play.parse reads it back exactly
        return " ".join(str(move) for move in value.moves)
    if isinstance(value, enum.Enum):
        return value.name.lower()
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    return value


# -- the lobby ------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Challenged(MatchEvent):
    """``color`` (the challenger) invites the other side to a match of ``length`` points (0: money)."""

    kind: ClassVar[EventKind] = EventKind.CHALLENGE
    length: int = 1
    challenger_first: bool = False  #: play by mail's ``-force``: the challenger makes the opening play


@dataclass(frozen=True, slots=True)
class ChallengeAccepted(MatchEvent):
    kind: ClassVar[EventKind] = EventKind.ACCEPT_CHALLENGE


@dataclass(frozen=True, slots=True)
class ChallengeDeclined(MatchEvent):
    """The challenged side declines, or (``withdrawn``) the challenger takes the invitation back."""

    kind: ClassVar[EventKind] = EventKind.DECLINE
    withdrawn: bool = False


@dataclass(frozen=True, slots=True)
class ModeChanged(MatchEvent):
    """A play-by-mail mode (``greedy`` or ``manual``) turned on or off for ``color``."""

    kind: ClassVar[EventKind] = EventKind.MODE
    mode: str = "manual"
    on: bool = True


@dataclass(frozen=True, slots=True)
class TimedOut(MatchEvent):
    """``color`` ran out of time (``left``: stayed away past the host's limit): the match ends by the host's rule."""

    kind: ClassVar[EventKind] = EventKind.TIMEOUT
    left: bool = False


# -- the game ---------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class GameStarted(MatchEvent):
    kind: ClassVar[EventKind] = EventKind.NEW_GAME



@dataclass(frozen=True, slots=True)
class OpeningRolled(MatchEvent):
    """Each side rolled one die (ties rolled again); ``color`` won and plays ``dice`` (high, low)."""

    kind: ClassVar[EventKind] = EventKind.OPENING
    dice: tuple[int, int] = (2, 1)
    white_die: int = 2
    black_die: int = 1



@dataclass(frozen=True, slots=True)
class Rolled(MatchEvent):
    kind: ClassVar[EventKind] = EventKind.ROLL
    dice: tuple[int, int] = (1, 1)



@dataclass(frozen=True, slots=True)
class Played(MatchEvent):
    """``color`` played ``play`` (no moves: the roll could not be played); ``pips`` after it, white's first."""

    kind: ClassVar[EventKind] = EventKind.PLAY
    play: Play = Play()  # noqa: RUF009 - an empty play is immutable
    pips: tuple[int, int] = (0, 0)
    automatic: bool = False  #: made for the player (a forced play, or a play-by-mail mode), not chosen
    #: a random legal play the host made for a bot whose own choice failed (an error, no answer in time)
    fallback: bool = False



@dataclass(frozen=True, slots=True)
class Doubled(MatchEvent):
    """``color`` offers the cube at ``cube``."""

    kind: ClassVar[EventKind] = EventKind.DOUBLE
    cube: int = 2



@dataclass(frozen=True, slots=True)
class Took(MatchEvent):
    """``color`` took: the cube is at ``cube``, owned by ``color``."""

    kind: ClassVar[EventKind] = EventKind.TAKE
    cube: int = 2



@dataclass(frozen=True, slots=True)
class Beavered(MatchEvent):
    """``color`` took and redoubled at once: the cube is at ``cube``, owned by ``color``."""

    kind: ClassVar[EventKind] = EventKind.BEAVER
    cube: int = 4



@dataclass(frozen=True, slots=True)
class Dropped(MatchEvent):
    kind: ClassVar[EventKind] = EventKind.DROP



@dataclass(frozen=True, slots=True)
class Resigned(MatchEvent):
    """``color`` offers to resign ``resignation``."""

    kind: ClassVar[EventKind] = EventKind.RESIGN
    resignation: Resignation = Resignation.SINGLE



@dataclass(frozen=True, slots=True)
class ResignationAccepted(MatchEvent):
    kind: ClassVar[EventKind] = EventKind.ACCEPT



@dataclass(frozen=True, slots=True)
class ResignationRejected(MatchEvent):
    kind: ClassVar[EventKind] = EventKind.REJECT



@dataclass(frozen=True, slots=True)
class GameOver(MatchEvent):
    """``color`` won the game: ``points``, how (``win_kind``, ``ended``), and the score after it (white, black)."""

    kind: ClassVar[EventKind] = EventKind.GAME_OVER
    points: int = 1
    win_kind: WinKind = WinKind.SINGLE
    ended: GameStatus = GameStatus.OVER
    score: tuple[int, int] = (0, 0)

    @property
    def detail(self) -> str:
        """``gammon``, ``single game, resigned``, ``double dropped``."""
        kind = "single game" if self.win_kind == WinKind.SINGLE else self.win_kind.name.lower()
        return {GameStatus.RESIGNED: f"{kind}, resigned", GameStatus.DROPPED: "double dropped"}.get(self.ended, kind)


@dataclass(frozen=True, slots=True)
class MatchOver(MatchEvent):
    """``color`` won the match (length 0: the money game, worth ``points``); the final score (white, black)."""

    kind: ClassVar[EventKind] = EventKind.MATCH_OVER
    length: int = 1
    score: tuple[int, int] = (0, 0)
    points: int = 0


_CLASSES: dict[EventKind, type[MatchEvent]] = {
    cls.kind: cls for cls in (Challenged, ChallengeAccepted, ChallengeDeclined, ModeChanged, TimedOut, GameStarted,
                              OpeningRolled, Rolled, Played, Doubled, Took, Beavered, Dropped, Resigned,
                              ResignationAccepted, ResignationRejected, GameOver, MatchOver)
}
_ENUMS: dict[str, type[enum.Enum]] = {"resignation": Resignation, "win_kind": WinKind, "ended": GameStatus}


def event_from_data(kind: str, game: int, color: str | None, data: Mapping[str, Any]) -> MatchEvent:
    """The event that :meth:`MatchEvent.data` wrote (with its kind, game and colour beside it)."""
    try:
        cls = _CLASSES[EventKind(kind)]
    except ValueError:
        raise EventDataError(f"kind: expected one of {', '.join(EventKind)}, got {kind!r}") from None
    side = None
    if color is not None:
        if not isinstance(color, str) or color.upper() not in Color.__members__:
            raise EventDataError(f"color: expected white, black or null, got {color!r}")
        side = Color[color.upper()]
    values: dict[str, Any] = {}
    for item in dataclasses.fields(cls):
        if item.name in ("game", "color") or item.name not in data:
            continue
        raw = data[item.name]
        try:
            if item.name == "play":
                values["play"] = Play.parse(raw) if raw else Play()
            elif item.name in _ENUMS:
                values[item.name] = _ENUMS[item.name][str(raw).upper()]
            elif isinstance(raw, list):
                values[item.name] = tuple(raw)
            else:
                values[item.name] = raw
        except (KeyError, ValueError, TypeError, GammonError) as error:
            raise EventDataError(f"{kind}.{item.name}: cannot read {raw!r} ({error})") from None
    return cls(game=game, color=side, **values)

"""gammon: backgammon positions, rules, notations and engines.

The public API is re-exported here, as python-chess does: ``from gammon import Position``.
The match (and with it the move-generation kernel, compiled by numba) is imported on first
use of one of its names, so reading and writing notations starts at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .dice import DiceSource, FixedDice, ManualDice, SeededDice
from .errors import (
    AmbiguousPlayError,
    BearoffCoverageError,
    BearoffTableError,
    CubeActionError,
    DiceError,
    GammonError,
    IllegalActionError,
    IllegalPlayError,
    InvalidMoveError,
    InvalidPlayerError,
    InvalidPositionError,
    NotationError,
    NotYourTurnError,
)
from .notation import detect
from .play import Move, Play
from .position import Color, LegalPlays, Position, PositionClass
from .state import FibsBoard, GameState, GameStatus, Resignation

if TYPE_CHECKING:
    from .match import Action, ActionKind, GameResult, Match, WinKind

WHITE = Color.WHITE
BLACK = Color.BLACK

#: Names of gammon.match, imported when first asked for (PEP 562).
_MATCH_NAMES = frozenset({"Action", "ActionKind", "GameResult", "Match", "WinKind"})


def __getattr__(name: str) -> Any:
    if name in _MATCH_NAMES:
        from . import match

        value = getattr(match, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'gammon' has no attribute {name!r}")

__all__ = [
    "BLACK",
    "WHITE",
    "Action",
    "ActionKind",
    "AmbiguousPlayError",
    "BearoffCoverageError",
    "BearoffTableError",
    "Color",
    "CubeActionError",
    "DiceError",
    "DiceSource",
    "FibsBoard",
    "FixedDice",
    "GameResult",
    "GameState",
    "GameStatus",
    "GammonError",
    "IllegalActionError",
    "IllegalPlayError",
    "InvalidMoveError",
    "InvalidPlayerError",
    "InvalidPositionError",
    "LegalPlays",
    "ManualDice",
    "Match",
    "Move",
    "NotYourTurnError",
    "NotationError",
    "Play",
    "Position",
    "PositionClass",
    "Resignation",
    "SeededDice",
    "WinKind",
    "detect",
]

"""gammon: backgammon positions, rules, notations and engines.

The public API is re-exported here, as python-chess does: ``from gammon import Position``.
"""

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
from .match import Action, ActionKind, GameResult, Match, WinKind
from .notation import detect
from .notation.fibs import FibsBoard
from .play import LegalPlays, Move, Play
from .position import Color, Position, PositionClass
from .state import GameState, GameStatus, Resignation

WHITE = Color.WHITE
BLACK = Color.BLACK

__all__ = [
    "Action",
    "ActionKind",
    "AmbiguousPlayError",
    "BLACK",
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
    "WHITE",
    "WinKind",
    "detect",
]

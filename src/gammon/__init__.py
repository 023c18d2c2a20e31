"""gammon: backgammon positions, rules, notations and engines.

The public API is re-exported here, as python-chess does: ``from gammon import Position``.
"""

from .errors import (
    AmbiguousPlayError,
    GammonError,
    IllegalActionError,
    IllegalPlayError,
    InvalidMoveError,
    InvalidPositionError,
    NotationError,
)
from .play import LegalPlays, Move, Play
from .position import Color, Position, PositionClass

WHITE = Color.WHITE
BLACK = Color.BLACK

__all__ = [
    "AmbiguousPlayError",
    "BLACK",
    "Color",
    "GammonError",
    "IllegalActionError",
    "IllegalPlayError",
    "InvalidMoveError",
    "InvalidPositionError",
    "LegalPlays",
    "Move",
    "NotationError",
    "Play",
    "Position",
    "PositionClass",
    "WHITE",
]

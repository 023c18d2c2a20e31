"""Players: gammon's own bots and external engines behind one interface, named by text.

Every player satisfies :class:`Player`; :func:`load_player` reads a name
(``NAME[:PLY][:LEVEL]``, ``ubgi:CMD``, ``gnubg:PLY``; see :mod:`gammon.players.names`).
:func:`hint` and :func:`cube_hint` ask any player.

>>> from gammon import Position
>>> hint(Position(), 3, 1, "pubeval")[0].play_text()
'8/5 6/5'
"""

from ..bots import LEVELS
from .engine import EnginePlayer
from .hints import DEFAULT_HINT_PLAYER, CubeHintError, HintError, cube_hint, hint
from .names import (
    EXTERNAL_PLAYERS, PlayerSpec, check_variant, load_player, parse_player, player_names, register_evaluator,
)
from .protocol import Player

__all__ = [
    "DEFAULT_HINT_PLAYER",
    "EXTERNAL_PLAYERS",
    "LEVELS",
    "CubeHintError",
    "EnginePlayer",
    "HintError",
    "Player",
    "PlayerSpec",
    "check_variant",
    "cube_hint",
    "hint",
    "load_player",
    "parse_player",
    "player_names",
    "register_evaluator",
]

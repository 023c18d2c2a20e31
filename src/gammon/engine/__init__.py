"""Talking to backgammon engines, as python-chess's ``chess.engine`` talks to chess engines.

>>> from gammon import Position
>>> from gammon.engine import SimpleEngine, Limit
>>> engine = SimpleEngine.popen_ubgi("gammon engine --player pubeval")  # doctest: +SKIP
>>> engine.play(Position(), (3, 1), Limit(depth=0)).play.ubgi()  # doctest: +SKIP
'8/5 6/5'
>>> engine.quit()  # doctest: +SKIP

:class:`SimpleEngine` drives any UBGI engine of either dialect (v0.1 ``setoption``, v0.2
``set``) over an asyncio core (:func:`popen_ubgi`, :class:`UbgiProtocol`), and GNU
Backgammon's command-line program with the same methods (:meth:`SimpleEngine.popen_gnubg`,
:class:`GnubgEngine`): two protocols over one line transport
(:mod:`gammon.engine.transport`). Answers are the core's value types: :class:`PlayResult`,
:class:`~gammon.evaluation.Hint`, :class:`~gammon.evaluation.CubeDecision`. Both kinds of
engine are players too (:mod:`gammon.players`): ``ubgi:CMD`` and ``gnubg:PLY`` wherever
players are named.
"""

from ..errors import (
    EngineCommandError,
    EngineError,
    EngineProtocolError,
    EngineTerminatedError,
    EngineTimeoutError,
    IllegalEngineMoveError,
    UnsupportedFeatureError,
)
from ..evaluation import CubeDecision
from ..ubgi import Option
from .protocol import EngineProtocol, UbgiProtocol, popen_ubgi
from .results import Limit, PlayResult
from .simple import GnubgEngine, SimpleEngine

__all__ = [
    "CubeDecision",
    "EngineCommandError",
    "EngineError",
    "EngineProtocol",
    "EngineProtocolError",
    "EngineTerminatedError",
    "EngineTimeoutError",
    "GnubgEngine",
    "IllegalEngineMoveError",
    "Limit",
    "Option",
    "PlayResult",
    "SimpleEngine",
    "UbgiProtocol",
    "UnsupportedFeatureError",
    "popen_ubgi",
]

"""Talking to backgammon engines, as python-chess's ``chess.engine`` talks to chess engines.

>>> from gammon import Position
>>> from gammon.engine import SimpleEngine, Limit
>>> engine = SimpleEngine.popen_ubgi("gammon engine --player pubeval")  # doctest: +SKIP
>>> engine.play(Position(), (3, 1), Limit(depth=0)).play.ubgi()  # doctest: +SKIP
'8/5 6/5'
>>> engine.quit()  # doctest: +SKIP

:class:`SimpleEngine` drives any UBGI engine of either dialect (v0.1 ``setoption``, v0.2
``set``) over an asyncio core (:func:`popen_ubgi`, :class:`UbgiProtocol`);
:class:`~gammon.engine.gnubg.GnubgEngine` gives GNU Backgammon's command-line program the
same methods. Both are players of their own (:mod:`gammon.engine.players`): ``ubgi:CMD``
and ``gnubg:PLY`` wherever players are named.
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
from ..protocol.wire import Option
from .protocol import UbgiProtocol, popen_ubgi
from .results import CubeResult, Limit, PlayResult
from .simple import SimpleEngine

__all__ = [
    "CubeResult",
    "EngineCommandError",
    "EngineError",
    "EngineProtocolError",
    "EngineTerminatedError",
    "EngineTimeoutError",
    "IllegalEngineMoveError",
    "Limit",
    "Option",
    "PlayResult",
    "SimpleEngine",
    "UbgiProtocol",
    "UnsupportedFeatureError",
    "popen_ubgi",
]

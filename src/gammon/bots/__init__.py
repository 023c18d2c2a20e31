"""Bots: gammon's own players: evaluators, n-ply search, cubeful search, and :class:`Bot`.

Every evaluator scores boards *after a play*, seen from the side that just moved (the
kernel boards :func:`gammon.movegen.generate` returns), and gives that side's five
probabilities; see :mod:`gammon.bots.evaluator`.

>>> from gammon import Position
>>> from gammon.bots import Bot, PubevalEvaluator
>>> bot = Bot(PubevalEvaluator(), ply=1)
>>> bot.choose_play(Position(), 3, 1).ubgi()
'8/5 6/5'
>>> bot.hints(Position(), 3, 1)[0].loss
0.0

Players by name (``pubeval:1``), external engines among them, are :mod:`gammon.players`'.

The evaluators are imported when first named, as :mod:`gammon` imports the match: each module
of kernels that is imported is compiled at its first use (:mod:`gammon.compiled`), so a bot
that plays with the net never compiles pubeval's.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .evaluator import CompositeEvaluator, Evaluator, load_bearoff
from .cubeful import CubefulAnalysis, CubefulSearch
from .bot import LEVELS, Bot
from .search import MAX_PLY, Analysis, MoveFilter, Search

if TYPE_CHECKING:
    from .pubeval import PubevalEvaluator
    from .random_eval import RandomEvaluator
    from .simple import SimpleEvaluator, SimpleWeights

#: The evaluators imported when first asked for (PEP 562), by the module holding each.
_LAZY = {"PubevalEvaluator": "pubeval", "RandomEvaluator": "random_eval", "SimpleEvaluator": "simple",
         "SimpleWeights": "simple"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "LEVELS",
    "MAX_PLY",
    "Analysis",
    "Bot",
    "CompositeEvaluator",
    "CubefulAnalysis",
    "CubefulSearch",
    "Evaluator",
    "MoveFilter",
    "PubevalEvaluator",
    "RandomEvaluator",
    "Search",
    "SimpleEvaluator",
    "SimpleWeights",
    "load_bearoff",
]

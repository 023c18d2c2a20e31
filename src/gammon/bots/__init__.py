"""Bots: gammon's own players: evaluators, n-ply search, cubeful search, and :class:`Bot`.

Every evaluator scores boards *after a play*, seen from the side that just moved (the
kernel boards :func:`gammon.movegen.generate` returns), and gives that side's five
probabilities; see :mod:`gammon.bots.evaluator`.

>>> from gammon import Position
>>> bot = Bot(PubevalEvaluator(), ply=1)
>>> bot.choose_play(Position(), 3, 1).ubgi()
'8/5 6/5'
>>> bot.hints(Position(), 3, 1)[0].loss
0.0

Players by name (``pubeval:1``), external engines among them, are :mod:`gammon.players`'.
"""

from .evaluator import CompositeEvaluator, Evaluator, load_bearoff
from .cubeful import CubefulAnalysis, CubefulSearch
from .bot import LEVELS, Bot
from .pubeval import PubevalEvaluator
from .random_eval import RandomEvaluator
from .search import MAX_PLY, Analysis, MoveFilter, Search
from .simple import SimpleEvaluator, SimpleWeights

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

"""Bots: evaluators, n-ply search, players by name, hints and duels.

Every evaluator scores boards *after a play*, seen from the side that just moved (the
kernel boards :func:`gammon.movegen.generate` returns), and gives that side's five
probabilities; see :mod:`gammon.bots.evaluator`.

>>> from gammon import Position
>>> from gammon.bots import Player, hint
>>> Player.from_name("pubeval").choose_play(Position(), 3, 1).ubgi()
'8/5 6/5'
>>> hint(Position(), 3, 1, "pubeval")[0].loss
0.0
"""

from .duel import DuelResult, MatchDuelResult, duel, match_duel
from .evaluator import CompositeEvaluator, Evaluator, load_bearoff
from .cubeful import CubefulAnalysis, CubefulSearch
from .hint import Hint, cube_hint, hint
from .players import LEVELS, Player, PlayerSpec, parse_player, register_evaluator
from ..evaluation import Probabilities
from .pubeval import PubevalEvaluator
from .random_eval import RandomEvaluator
from .search import Analysis, MoveFilter, Search
from .simple import SimpleEvaluator, SimpleWeights

__all__ = [
    "Analysis",
    "CompositeEvaluator",
    "CubefulAnalysis",
    "CubefulSearch",
    "DuelResult",
    "Evaluator",
    "Hint",
    "LEVELS",
    "MatchDuelResult",
    "MoveFilter",
    "Player",
    "PlayerSpec",
    "Probabilities",
    "PubevalEvaluator",
    "RandomEvaluator",
    "Search",
    "SimpleEvaluator",
    "SimpleWeights",
    "cube_hint",
    "duel",
    "hint",
    "load_bearoff",
    "match_duel",
    "parse_player",
    "register_evaluator",
]

"""Bear-off databases: Benjamin and Ross's perfect hash, one- and two-sided tables, exact play.

>>> from gammon.bearoff import rank, unrank
>>> rank([3, 3, 2, 0, 2, 1]), unrank(8887)
(8887, (3, 3, 2, 0, 2, 1))

The default tables (6 points x 15 checkers one-sided, 6x6 two-sided) are built into the
user cache on first use; :mod:`gammon.bearoff.defaults` says where.
"""

from .evaluator import BearoffEvaluator, best_play, counts_of
from .onesided import ALL_OFF, FIRST_OFF, OneSidedTable
from .perfect_hash import position_count, rank, unrank
from .storage import Contents, Kind, TableHeader, read_table
from .twosided import TwoSidedTable

__all__ = [
    "ALL_OFF",
    "FIRST_OFF",
    "BearoffEvaluator",
    "Contents",
    "Kind",
    "OneSidedTable",
    "TableHeader",
    "TwoSidedTable",
    "best_play",
    "counts_of",
    "position_count",
    "rank",
    "read_table",
    "unrank",
]

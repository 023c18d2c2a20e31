"""The doubling cube: match equity tables, cubeful values and cube decisions.

This layer is pure arithmetic on probabilities; :mod:`gammon.bots.cubeful` feeds it the
engine's evaluations.
"""

from .context import CubeContext, CubeContextError, Owner
from ..evaluation import CubeDecision, Response
from .janowski import cube_efficiencies, cubeful_values, cubeless_values
from .met import MatchEquityError, MatchEquityTable, equity_to_mwc, mwc_to_equity

__all__ = [
    "CubeContext",
    "CubeContextError",
    "CubeDecision",
    "MatchEquityError",
    "MatchEquityTable",
    "Owner",
    "Response",
    "cube_efficiencies",
    "cubeful_values",
    "cubeless_values",
    "equity_to_mwc",
    "mwc_to_equity",
]

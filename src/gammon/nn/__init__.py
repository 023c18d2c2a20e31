"""Neural-net evaluation: TD-Gammon-style inputs with expert features, contact and race nets.

:mod:`gammon.nn.features` encodes kernel boards, :mod:`gammon.nn.network` holds the weights
and the compiled forward pass, :mod:`gammon.nn.evaluator` plugs the net into the bots as
the ``nn`` player. Training lives in :mod:`gammon.train.td`.
"""

from .features import INPUTS, SIDE_INPUTS, encode, encode_batch
from .network import Network, NetworkFileError

__all__ = ["INPUTS", "SIDE_INPUTS", "Network", "NetworkFileError", "encode", "encode_batch"]

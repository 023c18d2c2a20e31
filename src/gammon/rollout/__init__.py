"""Rollouts: positions played out many times by a bot, the way backgammon players settle what is right.

:func:`rollout` plays a position to the end (or a truncation) ``trials`` times with a bot's
plays -- and, cubeful, its cube decisions -- with quasi-random dice and luck adjustment
against the bot's evaluator, on the one worker pool or a Ray cluster, and answers with
means, standard errors and 95 % intervals (:class:`RolloutResult`). A trial depends on the
seed and its number only (:mod:`gammon.rollout.trial`), so a rollout replays exactly on
any number of workers. :class:`RolloutPlayer` ranks a roll's candidate plays by rolling
each out: the player ``rollout:TRIALS`` of :mod:`gammon.players`.
"""

from ..workers import RAY_EXTRA
from .run import BLOCK, DEFAULT_TRIALS, RolloutError, RolloutResult, rollout
from .trial import ORDERED_ROLLS, Roller, quasi_random_rolls

__all__ = [
    "BLOCK",
    "DEFAULT_TRIALS",
    "ORDERED_ROLLS",
    "RAY_EXTRA",
    "Roller",
    "RolloutError",
    "RolloutResult",
    "quasi_random_rolls",
    "rollout",
]

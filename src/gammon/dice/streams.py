"""The seeded dice streams' compiled steps: one independent stream per (seed, game).

A game's dice depend only on the seed and the game's number, never on which process plays
it or in what order, so a duel split over several workers replays exactly. The generator
is SplitMix64, small enough to run inside compiled game loops, which call these functions
on a stream's state; Python code reads the same streams as :class:`gammon.dice.DiceStream`,
a :class:`~gammon.dice.DiceSource` like any other.
"""

from __future__ import annotations

import numpy as np

from ..compiled import kernel

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_LOW = np.uint64(0xFFFFFFFF)
_SIX = np.uint64(6)


@kernel("(uint64[::1],)")
def _next(state):
    state[0] += _GOLDEN
    z = state[0]
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@kernel("(int64, int64)")
def stream_state(seed, game):
    """The generator state of game ``game`` of a run seeded ``seed`` (both >= 0)."""
    state = np.zeros(1, np.uint64)
    state[0] = np.uint64(seed)
    state[0] = _next(state) ^ np.uint64(game)
    _next(state)
    return state


@kernel("(uint64[::1],)")
def next_roll(state):
    """The next roll of a stream, as two dice 1-6."""
    z = _next(state)
    return np.int64((z >> _S32) % _SIX) + 1, np.int64((z & _LOW) % _SIX) + 1


@kernel("(uint64[::1],)")
def opening_roll(state):
    """The first roll of a game: the two players' single dice, rerolled while they tie.

    The compiled twin of :func:`gammon.referee.opening_roll` on a :class:`~gammon.dice.DiceStream`
    (which reads a roll's two dice one at a time): the same dice from the same stream.
    """
    while True:
        d1, d2 = next_roll(state)
        if d1 != d2:
            return d1, d2


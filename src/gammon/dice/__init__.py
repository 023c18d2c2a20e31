"""Where dice come from: a seeded generator, a fixed sequence, a person typing them in, or
one of the numbered streams that duels and training play with.

A game takes its dice from one injectable source so the same code plays real games,
reproducible tests, over-the-board games whose dice are rolled by hand and duplicate-dice
duels.

>>> dice = FixedDice([(3, 1), 6])
>>> dice.roll_one(), dice.roll_one(), dice.roll_one()
(3, 1, 6)
"""

from __future__ import annotations

import math
import random
import re
from collections import deque
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from ..errors import DiceError

if TYPE_CHECKING:
    import numpy as np

__all__ = ["DiceSource", "DiceStream", "FixedDice", "ManualDice", "SeededDice", "ci95", "parse_dice"]


@runtime_checkable
class DiceSource(Protocol):
    """A source of dice: ``roll`` for a turn, ``roll_one`` for each side's opening die."""

    def roll(self) -> tuple[int, int]: ...

    def roll_one(self) -> int: ...


class SeededDice:
    """Fair dice from :class:`random.Random`; the same seed gives the same rolls."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self._random = random.Random(seed)

    def roll_one(self) -> int:
        return self._random.randint(1, 6)

    def roll(self) -> tuple[int, int]:
        return self.roll_one(), self.roll_one()

    def __repr__(self) -> str:
        return f"SeededDice({self.seed!r})"


class DiceStream:
    """The dice of game ``game`` of a run seeded ``seed``: one independent stream per (seed, game).

    Duels and training play game ``k`` with stream ``(seed, k)``, so a game's dice depend on
    nothing else (not the worker that plays it): compiled loops read the same stream with
    :mod:`gammon.dice.streams`. Dice are read one at a time, as :class:`FixedDice` reads
    them, so two :meth:`roll_one` give the two dice of one :meth:`roll`.

    >>> dice = DiceStream(7, 0)
    >>> dice.roll_one(), dice.roll_one(), dice.roll()
    (4, 3, (5, 4))
    """

    def __init__(self, seed: int, game: int) -> None:
        if seed < 0 or game < 0:
            raise ValueError(f"seed and game number must be >= 0, got {seed}, {game}")
        from .streams import next_roll, stream_state  # the compiled generator, loaded with the first stream

        self.seed, self.game = seed, game
        self._next_roll = next_roll
        self._state = stream_state(seed, game)
        self._spare: int | None = None  # the second die of a roll read one die at a time

    def roll_one(self) -> int:
        if self._spare is not None:
            die, self._spare = self._spare, None
            return die
        d1, d2 = self._next_roll(self._state)
        self._spare = int(d2)
        return int(d1)

    def roll(self) -> tuple[int, int]:
        if self._spare is not None:
            return self.roll_one(), self.roll_one()
        d1, d2 = self._next_roll(self._state)
        return int(d1), int(d2)

    def __repr__(self) -> str:
        return f"DiceStream({self.seed}, {self.game})"


def ci95(points: np.ndarray) -> tuple[float, float]:
    """95 % confidence interval of the mean of duplicate-dice results (the two games of a pair adjacent).

    Each pair's mean is one sample: the two games of a pair share their dice, so they are
    correlated by design. One pair gives no interval: (-inf, inf).
    """
    import numpy as np

    samples = np.asarray(points).astype(np.float64)
    pairs = samples.reshape(-1, 2).mean(axis=1)
    if pairs.size < 2:
        return (-math.inf, math.inf)
    mean = float(samples.mean())
    half = 1.96 * float(pairs.std(ddof=1)) / math.sqrt(pairs.size)
    return (mean - half, mean + half)


class FixedDice:
    """A given sequence of dice, for tests and replays.

    Items are single dice or pairs; they are read one die at a time, so a pair can serve
    a turn's roll or both opening dice (white's die first, then black's). Running out
    raises :class:`DiceError` rather than making dice up.
    """

    def __init__(self, rolls: Iterable[int | tuple[int, int]]) -> None:
        self._dice: deque[int] = deque()
        self.extend(rolls)
        self.used = 0

    def extend(self, rolls: Iterable[int | tuple[int, int]]) -> None:
        """Add more dice at the end of the sequence."""
        for item in rolls:
            for die in (item,) if isinstance(item, int) else tuple(item):
                if not isinstance(die, int) or not 1 <= die <= 6:
                    raise DiceError(f"a die is 1-6, got {die!r}")
                self._dice.append(die)

    def roll_one(self) -> int:
        if not self._dice:
            raise DiceError(f"the fixed dice are exhausted after {self.used} dice")
        self.used += 1
        return self._dice.popleft()

    def roll(self) -> tuple[int, int]:
        if len(self._dice) < 2:
            raise DiceError(f"the fixed dice are exhausted after {self.used} dice: a roll needs two")
        return self.roll_one(), self.roll_one()

    def __len__(self) -> int:
        """Dice still to come."""
        return len(self._dice)


_DIE = re.compile(r"^\s*([1-6])\s*$")
#: Spaces, or one of ``-/,`` with spaces around it, between the dice: written so that no two
#: quantifiers can take the same space (``\s*[ ]?\s*`` backtracks quadratically on a long run).
_PAIR = re.compile(r"^\s*([1-6])\s*(?:[-/,]\s*)?([1-6])\s*$")


def parse_dice(text: str) -> tuple[int, int]:
    """Read a roll typed as ``31``, ``3-1``, ``3 1`` or ``3,1``."""
    match = _PAIR.match(text)
    if match is None:
        raise DiceError(f"bad dice {text!r}: expected two dice 1-6 such as '3-1'")
    return int(match[1]), int(match[2])


class ManualDice:
    """Dice rolled by hand and typed in, for over-the-board games.

    ``ask`` receives a prompt and returns the typed text (``input`` by default). Text
    that is not a roll raises :class:`DiceError`, so the caller decides whether to ask again.
    """

    def __init__(self, ask: Callable[[str], str] = input) -> None:
        self._ask = ask

    def roll(self) -> tuple[int, int]:
        return parse_dice(self._ask("dice (e.g. 3-1): "))

    def roll_one(self) -> int:
        text = self._ask("one die (1-6): ")
        match = _DIE.match(text)
        if match is None:
            raise DiceError(f"bad die {text!r}: expected one die 1-6")
        return int(match[1])

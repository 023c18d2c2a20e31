"""Where dice come from: a seeded generator, a fixed sequence, or a person typing them in.

A game takes its dice from one injectable source so the same code plays real games,
reproducible tests and over-the-board games whose dice are rolled by hand.

>>> dice = FixedDice([(3, 1), 6])
>>> dice.roll_one(), dice.roll_one(), dice.roll_one()
(3, 1, 6)
"""

from __future__ import annotations

import random
import re
from collections import deque
from collections.abc import Callable, Iterable
from typing import Protocol, runtime_checkable

from .errors import DiceError

__all__ = ["DiceSource", "FixedDice", "ManualDice", "SeededDice", "parse_dice"]


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
_PAIR = re.compile(r"^\s*([1-6])\s*[-/, ]?\s*([1-6])\s*$")


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

"""Dice nobody can choose: each match commits to a secret seed before its first roll.

Roll number ``n`` of a match is read from HMAC-SHA256(seed, ``n``): its bytes, taken in
order, below 252 give a die as ``1 + byte % 6`` (252 = 42 × 6, so every face is equally
likely). The opening roll draws one number per die, ties included. The seed's SHA-256 is
shown from the start and the seed itself when the match ends, so anyone can recompute every
roll (:func:`verify_rolls`, ``gammon verify-dice``) and see that the seed was fixed before
the first roll: not even the server's operator can change the dice after the commitment.

>>> seed = bytes(32)
>>> dice_of(seed, 0), dice_of(seed, 1)
((4, 2), (6, 3))
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from dataclasses import dataclass

from ..errors import GammonError

__all__ = ["CommittedDice", "DiceProofError", "commitment", "dice_of", "new_seed", "verify_rolls"]


class DiceProofError(GammonError, ValueError):
    """A roll, seed or commitment that does not check out."""


def new_seed() -> bytes:
    return secrets.token_bytes(32)


def commitment(seed: bytes) -> str:
    """What a match shows of its seed before the end: its SHA-256, in hex."""
    return hashlib.sha256(seed).hexdigest()


def dice_of(seed: bytes, number: int) -> tuple[int, int]:
    """The two dice of roll ``number``; the opening roll uses the first die of its numbers."""
    dice: list[int] = []
    counter = 0
    while len(dice) < 2:
        message = str(number).encode() if counter == 0 else f"{number}.{counter}".encode()
        for byte in hmac.new(seed, message, hashlib.sha256).digest():
            if byte < 252:
                dice.append(1 + byte % 6)
                if len(dice) == 2:
                    break
        counter += 1  # 32 bytes all above 251: practically never; read further, deterministically
    return dice[0], dice[1]


class CommittedDice:
    """The :class:`~gammon.dice.DiceSource` of a match: roll ``drawn``, then the next, ..."""

    def __init__(self, seed: bytes, drawn: int = 0) -> None:
        self.seed, self.drawn = seed, drawn
        self.used: list[int] = []  #: the numbers read since the last :meth:`take_used`

    def roll(self) -> tuple[int, int]:
        number = self.drawn
        self.drawn += 1
        self.used.append(number)
        return dice_of(self.seed, number)

    def roll_one(self) -> int:
        return self.roll()[0]

    def take_used(self) -> list[int]:
        used, self.used = self.used, []
        return used

    def __repr__(self) -> str:
        return f"CommittedDice(<seed>, drawn={self.drawn})"


@dataclass(frozen=True, slots=True)
class ProvenRoll:
    """A roll as a match's record shows it: its numbers and the dice (one die per number at the opening)."""

    numbers: tuple[int, ...]
    dice: tuple[int, ...]
    opening: bool


def verify_rolls(seed_hex: str, commitment_hex: str, rolls: Iterable[ProvenRoll]) -> int:
    """Check the seed against its commitment and every roll against the seed; the number of rolls checked.

    The rolls' numbers must run 0, 1, 2, ... without a gap, so no roll was drawn and hidden.
    """
    try:
        seed = bytes.fromhex(seed_hex)
    except (ValueError, TypeError):
        raise DiceProofError(f"seed: expected 64 hex digits, got {seed_hex!r}") from None
    if commitment(seed) != commitment_hex:
        raise DiceProofError(f"the seed's SHA-256 is {commitment(seed)}, not the commitment {commitment_hex}")
    expected = 0
    checked = 0
    for roll in rolls:
        for number in roll.numbers:
            if number != expected:
                raise DiceProofError(f"roll number {number} follows {expected - 1}: numbers must run without a gap")
            expected += 1
        if roll.opening:
            # one die per number; the last two are the opening's (earlier pairs tied)
            dice = tuple(dice_of(seed, n)[0] for n in roll.numbers)
            if len(dice) % 2 or any(dice[i] != dice[i + 1] for i in range(0, len(dice) - 2, 2)):
                raise DiceProofError(f"opening roll from numbers {list(roll.numbers)}: ties must come in pairs")
            want = tuple(dice[-2:])
        else:
            if len(roll.numbers) != 1:
                raise DiceProofError(f"a roll has one number, got {list(roll.numbers)}")
            want = dice_of(seed, roll.numbers[0])
        if tuple(roll.dice) != want:
            raise DiceProofError(f"roll number {roll.numbers[-1]}: the seed gives {want}, the record says {tuple(roll.dice)}")
        checked += 1
    return checked

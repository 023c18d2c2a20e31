"""Dice nobody can choose: the server commits to a secret seed, each player adds one of theirs.

Before a match, the server draws a 32-byte seed and shows its SHA-256 (the commitment); a
client that wants the dice out of the server's hands asks for the commitment first
(``POST /api/commitments``) and only then sends its own seed. The challenger's seed comes
with the challenge and the challenged player's with the acceptance, both shown to all, so
by the time the dice are fixed no one could have chosen them: not the server (committed
before it saw the last seed), not a player (who never saw the server's seed). The dice key
is HMAC-SHA256(server seed, "gammon-dice-2|" + challenger's seed + "|" + opponent's seed);
roll number ``n`` is read from HMAC-SHA256(key, ``n``): its bytes, in order, below 252 give
a die as ``1 + byte % 6`` (252 = 42 × 6, so every face is equally likely). The server's seed
is revealed when the match ends, and :func:`gammon.server.verify.verify_match` regenerates
every roll and replays the match through the referee.

Matches made before players' seeds existed (scheme 1) use the server's seed as the key.

>>> seed = bytes(32)
>>> dice_of(seed, 0), dice_of(seed, 1)
((4, 2), (6, 3))
>>> dice_key(seed, "alice's seed", "bob's seed", scheme=2).hex()[:16]
'bde1b07b5b894356'
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

from ...errors import GammonError

__all__ = ["CommittedDice", "DiceProofError", "check_player_seed", "commitment", "dice_key", "dice_of", "new_seed",
           "player_seed"]

PLAYER_SEED = re.compile(r"[\x21-\x7e]{1,64}")  #: a player's seed: 1-64 printable ASCII characters, no spaces


class DiceProofError(GammonError, ValueError):
    """A roll, seed or commitment that does not check out."""


def new_seed() -> bytes:
    return secrets.token_bytes(32)


def player_seed() -> str:
    """A seed drawn for a player who sent none (a bot's, or a client's that does not take part)."""
    return secrets.token_hex(16)


def check_player_seed(seed: object, field: str = "seed") -> str:
    """A player's seed as given, or :class:`DiceProofError` naming ``field`` and what was expected."""
    if not isinstance(seed, str) or not PLAYER_SEED.fullmatch(seed):
        raise DiceProofError(f"{field}: expected 1-64 printable characters without spaces, got {str(seed)[:70]!r}")
    return seed


def commitment(seed: bytes) -> str:
    """What a match shows of its server seed before the end: its SHA-256, in hex."""
    return hashlib.sha256(seed).hexdigest()


def dice_key(server_seed: bytes, challenger_seed: str | None, opponent_seed: str | None, *, scheme: int) -> bytes:
    """The key every roll of a match is read from (see the module)."""
    if scheme == 1:
        return server_seed
    if challenger_seed is None or opponent_seed is None:
        raise DiceProofError("both players' seeds are needed before the dice can be rolled")
    message = f"gammon-dice-2|{challenger_seed}|{opponent_seed}".encode()
    return hmac.new(server_seed, message, hashlib.sha256).digest()


def dice_of(key: bytes, number: int) -> tuple[int, int]:
    """The two dice of roll ``number``; an opening roll uses the first die of each of its numbers."""
    dice: list[int] = []
    counter = 0
    while len(dice) < 2:
        message = str(number).encode() if counter == 0 else f"{number}.{counter}".encode()
        for byte in hmac.new(key, message, hashlib.sha256).digest():
            if byte < 252:
                dice.append(1 + byte % 6)
                if len(dice) == 2:
                    break
        counter += 1  # 32 bytes all above 251: practically never; read further, deterministically
    return dice[0], dice[1]


class CommittedDice:
    """The :class:`~gammon.dice.DiceSource` of a match: roll ``drawn``, then the next, ..."""

    def __init__(self, key: bytes, drawn: int = 0) -> None:
        self.key, self.drawn = key, drawn

    def roll(self) -> tuple[int, int]:
        number = self.drawn
        self.drawn += 1
        return dice_of(self.key, number)

    def roll_one(self) -> int:
        return self.roll()[0]

    def copy(self) -> CommittedDice:
        return CommittedDice(self.key, self.drawn)

    def __repr__(self) -> str:
        return f"CommittedDice(<key>, drawn={self.drawn})"

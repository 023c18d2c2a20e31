"""Dice nobody can choose: the server commits to a secret seed, each side adds one of its own.

Before a match, the server draws a 32-byte seed and shows its commitment: from scheme 3,
SHA-256 over ``"gammon-dice-3|"`` and the seed, so the commitment names the scheme and a match
made under it cannot later be read under another (:func:`commitment`). A person's seed comes
after that: the challenger asks for the commitment first (``POST /api/commitments``) and sends
its seed with the token; the challenged player sends theirs with the acceptance, the invitation
having shown the commitment. A side that sends no seed (a bot, or a person whose client does not
take part) gets one derived from the commitment itself (:func:`drawn_seed`): fixed before any
person's seed, and anyone can check it. So no one chooses the dice: not the server (committed
before it saw a person's seed, and unable to pick a drawn seed after), not a player (who never
saw the server's seed). The dice key is HMAC-SHA256(server seed, ``"gammon-dice-3|"`` +
challenger's seed + ``"|"`` + opponent's seed); roll ``n`` is read from HMAC-SHA256(key, ``n``):
its bytes, in order, below 252 give a die as ``1 + byte % 6`` (252 = 42 × 6, so every face is
equally likely). The server's seed is revealed when the match ends, and
:func:`gammon.server.matches.proof.verify_match` regenerates every roll and replays the match.

Earlier schemes, read as what they are: 2 (the same key under ``"gammon-dice-2|"``, its
commitment the seed's bare SHA-256) and 1 (before players' seeds: the server's seed alone is the
key, so it proves only that the dice were fixed when the commitment was shown).

>>> seed = bytes(32)
>>> dice_of(seed, 0), dice_of(seed, 1)
((4, 2), (6, 3))
>>> dice_key(seed, "alice's seed", "bob's seed", scheme=2).hex()[:16]
'bde1b07b5b894356'
>>> commitment(seed, scheme=1) == commitment(seed, scheme=2) != commitment(seed)
True
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

from ...errors import GammonError

__all__ = ["SCHEME", "SCHEMES", "SIDES", "CommittedDice", "DiceProofError", "check_player_seed", "checked_key", "commitment",
           "dice_key", "dice_of", "drawn_seed", "new_seed"]

SCHEME = 3  #: the scheme every new match is made under
SCHEMES = (1, 2, 3)  #: the schemes a match may have been made under
SIDES = ("challenger", "opponent")  #: whose seed: the challenger (white) and the challenged (black)
PLAYER_SEED = re.compile(r"[\x21-\x7e]{1,64}")  #: a player's seed: 1-64 printable ASCII characters, no spaces


class DiceProofError(GammonError, ValueError):
    """A roll, seed or commitment that does not check out."""


def new_seed() -> bytes:
    return secrets.token_bytes(32)


def check_player_seed(seed: object, field: str = "seed") -> str:
    """A player's seed as given, or :class:`DiceProofError` naming ``field`` and what was expected."""
    if not isinstance(seed, str) or not PLAYER_SEED.fullmatch(seed):
        raise DiceProofError(f"{field}: expected 1-64 printable characters without spaces, got {str(seed)[:70]!r}")
    return seed


def commitment(seed: bytes, scheme: int = SCHEME) -> str:
    """What a match shows of its server seed before the end, in hex: from scheme 3 the SHA-256 of
    the scheme's name and the seed (so it names its scheme), before that of the seed alone."""
    if scheme >= 3:
        return hashlib.sha256(f"gammon-dice-{scheme}|".encode() + seed).hexdigest()
    return hashlib.sha256(seed).hexdigest()


def drawn_seed(commitment: str, side: str) -> str:
    """The seed of a side that sent none (a bot's, or a person's who did not choose one): derived
    from the commitment, so fixed before anyone's seed was sent, and checkable by anyone."""
    if side not in SIDES:
        raise DiceProofError(f"side: expected challenger or opponent, got {side!r}")
    return hashlib.sha256(f"gammon-dice-3|drawn|{side}|{commitment}".encode()).hexdigest()[:32]


def dice_key(server_seed: bytes, challenger_seed: str | None, opponent_seed: str | None, *, scheme: int) -> bytes:
    """The key every roll of a match is read from (see the module)."""
    if scheme not in SCHEMES:
        raise DiceProofError(f"dice_proof.scheme: expected one of {', '.join(map(str, SCHEMES))}, got {scheme!r}")
    if scheme == 1:
        return server_seed
    if challenger_seed is None or opponent_seed is None:
        raise DiceProofError("both players' seeds are needed before the dice can be rolled")
    message = f"gammon-dice-{scheme}|{challenger_seed}|{opponent_seed}".encode()
    return hmac.new(server_seed, message, hashlib.sha256).digest()


def checked_key(seed_hex: str, shown: str, challenger_seed: str | None, opponent_seed: str | None, *,
                scheme: int) -> bytes:
    """The dice key of a match, once its seed is the one committed to under its own scheme: what
    the server rolls from and what :mod:`.proof` checks with, so a scheme changed after the match
    was made rolls nothing and verifies nothing."""
    try:
        seed = bytes.fromhex(seed_hex)
    except (TypeError, ValueError):
        raise DiceProofError(f"dice_proof.seed: expected 64 hex digits, got {str(seed_hex)[:70]!r}") from None
    if len(seed) != 32:
        raise DiceProofError(f"dice_proof.seed: expected 64 hex digits, got {len(seed) * 2}")
    key = dice_key(seed, challenger_seed, opponent_seed, scheme=scheme)  # refuses an unknown scheme
    if commitment(seed, scheme) != shown:
        raise DiceProofError(f"dice_proof.commitment: under scheme {scheme} the seed commits to "
                             f"{commitment(seed, scheme)}, not to the commitment shown, {str(shown)[:70]}"
                             + ("" if scheme == SCHEME or commitment(seed) != shown else
                                f", which is the seed's scheme-{SCHEME} commitment: the scheme was changed"))
    if scheme == 1 and (challenger_seed is not None or opponent_seed is not None):
        raise DiceProofError("dice_proof.scheme: scheme 1 takes no players' seeds, but this match carries them: it "
                             "was made under a later scheme and changed since")
    return key


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

"""Rule variants: the starting position and the movement rule a game is played under.

Two departures from the standard game, each a switch, so they combine:

* **nackgammon** (Nack Ballard's variant): each side starts with two checkers on its 24-point
  and two on its 23-point, four on the 13-point, three on the 8-point and four on the 6-point;
* **two-move doubles**: a double is played as two moves of its number, like any other roll,
  not four (the rule ../shared/seeds/003 experiments with: it makes the game less a matter of
  luck).

The kernel (:func:`gammon.movegen.generate_into`) is the one implementation of the movement
rule; this module only names the variant (the words of ``--variant``; BPN writes it as the
flags ``n`` and ``t``) and gives its starting position.

>>> Variant.parse("nackgammon,two-move-doubles")
Variant(nackgammon=True, two_move_doubles=True)
>>> str(Variant())
'standard'
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import GammonError, InvalidPlayerError

#: The starting checkers of each side in its own numbering (index 1-24, 25 the bar).
STANDARD_START = (0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0)
NACKGAMMON_START = (0, 0, 0, 0, 0, 4, 0, 3, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 0)

#: The words of ``--variant``, each the name of its switch.
WORDS = {"nackgammon": "nackgammon", "two-move-doubles": "two_move_doubles"}


class VariantError(GammonError, ValueError):
    """A variant name that gammon does not know."""


@dataclass(frozen=True, slots=True)
class Variant:
    """Which rules a game is played under; ``Variant()`` is the standard game."""

    nackgammon: bool = False
    two_move_doubles: bool = False

    @classmethod
    def parse(cls, text: str) -> Variant:
        """``standard``, or a comma-separated list of ``nackgammon`` and ``two-move-doubles``."""
        words = [word.strip().lower() for word in text.split(",")]
        if words == ["standard"]:
            return cls()
        unknown = [word for word in words if word not in WORDS]
        if unknown or len(set(words)) != len(words):
            raise VariantError(
                f"variant {text!r}: expected 'standard' or a comma-separated list of "
                f"{', '.join(WORDS)}, each at most once"
            )
        return cls(**{WORDS[word]: True for word in words})

    @property
    def standard(self) -> bool:
        return not (self.nackgammon or self.two_move_doubles)

    @property
    def start(self) -> tuple[int, ...]:
        """Each side's starting checkers in its own numbering (index 1-24, 25 the bar)."""
        return NACKGAMMON_START if self.nackgammon else STANDARD_START

    def require_standard(self, who: str) -> None:
        """Refuse this variant to ``who``, a player of the standard game only (an external engine,
        rollouts: nothing tells them the rules, so they would play a double as four moves)."""
        if not self.standard:
            raise InvalidPlayerError(f"{who} plays the standard game only, not {self}; "
                                     "use gammon's own players (nn, pubeval, simple, untrained, random)")

    def moves_of(self, d1: int, d2: int) -> list[int]:
        """The dice a roll gives to move: four of a double's number, unless doubles are two moves."""
        return [d1] * 4 if d1 == d2 and not self.two_move_doubles else [d1, d2]

    def __str__(self) -> str:
        on = [word for word, name in WORDS.items() if getattr(self, name)]
        return ",".join(on) if on else "standard"


STANDARD = Variant()

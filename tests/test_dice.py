"""Dice sources: seeded, fixed and typed-in dice behave the same way to a game."""

from __future__ import annotations

import pytest

from gammon.dice import DiceSource, FixedDice, ManualDice, SeededDice, parse_dice
from gammon.errors import DiceError


def test_seeded_dice_are_reproducible_and_fair_range() -> None:
    a, b = SeededDice(42), SeededDice(42)
    rolls = [a.roll() for _ in range(500)]
    assert rolls == [b.roll() for _ in range(500)]
    assert {d for roll in rolls for d in roll} == {1, 2, 3, 4, 5, 6}
    assert all(1 <= SeededDice(7).roll_one() <= 6 for _ in range(50))
    assert rolls != [SeededDice(43).roll() for _ in range(500)]


def test_fixed_dice_read_one_die_at_a_time() -> None:
    dice = FixedDice([(3, 1), 6, (5, 5)])
    assert dice.roll_one() == 3
    assert dice.roll() == (1, 6)
    assert len(dice) == 2
    assert dice.roll() == (5, 5)


def test_fixed_dice_exhausted_raises() -> None:
    dice = FixedDice([4])
    with pytest.raises(DiceError, match="exhausted"):
        dice.roll()
    assert dice.roll_one() == 4  # the failed roll took nothing
    with pytest.raises(DiceError, match="exhausted after 1"):
        dice.roll_one()


@pytest.mark.parametrize("bad", [0, 7, (1, 9), "3"])
def test_fixed_dice_reject_bad_values(bad: object) -> None:
    with pytest.raises(DiceError):
        FixedDice([bad])  # type: ignore[list-item]


def test_manual_dice_read_typed_text() -> None:
    answers = iter(["3-1", "6 6", "52", "4"])
    prompts: list[str] = []

    def ask(prompt: str) -> str:
        prompts.append(prompt)
        return next(answers)

    dice = ManualDice(ask)
    assert [dice.roll(), dice.roll(), dice.roll(), dice.roll_one()] == [(3, 1), (6, 6), (5, 2), 4]
    assert len(prompts) == 4


@pytest.mark.parametrize("text", ["", "7-1", "3", "3-1-2", "abc"])
def test_manual_dice_bad_text_raises(text: str) -> None:
    with pytest.raises(DiceError, match="bad dice"):
        ManualDice(lambda prompt: text).roll()


def test_parse_dice_and_protocol() -> None:
    assert parse_dice(" 3,1 ") == (3, 1)
    for source in (SeededDice(1), FixedDice([]), ManualDice(lambda p: "1")):
        assert isinstance(source, DiceSource)


@pytest.mark.parametrize("text", ["31", "3-1", "3 1", "3/1", "3,1", " 3 - 1 ", "3 ,1", "3\t1", "3 -\t1\n"])
def test_typed_dice_between_spaces_and_one_separator(text: str) -> None:
    assert parse_dice(text) == (3, 1)


@pytest.mark.parametrize("text", ["3--1", "3-,1", "3 - - 1", "3-1-", "3" + " " * 100_000 + "x"])
def test_typed_dice_refused(text: str) -> None:
    with pytest.raises(DiceError, match="bad dice"):  # at once: no two quantifiers share the spaces
        parse_dice(text)


# -- the server's committed dice (gammon.server.matches.fair_dice) ---------------------------------------
def test_a_commitment_names_its_scheme_so_a_match_read_under_another_rolls_nothing() -> None:
    from gammon.server.matches.fair_dice import SCHEME, DiceProofError, checked_key, commitment, dice_key

    seed = bytes(range(32))
    shown = commitment(seed)  # what a match made now shows before anyone's seed is sent
    key = checked_key(seed.hex(), shown, "alice's", "bob's", scheme=SCHEME)
    assert key == dice_key(seed, "alice's", "bob's", scheme=SCHEME)
    for older in (1, 2):  # the operator's downgrade: the seed no longer matches what was shown
        with pytest.raises(DiceProofError, match="commitment"):
            checked_key(seed.hex(), shown, None if older == 1 else "alice's", None if older == 1 else "bob's",
                        scheme=older)
    with pytest.raises(DiceProofError, match="scheme 1 takes no players' seeds"):  # even with its commitment rewritten
        checked_key(seed.hex(), commitment(seed, 1), "alice's", "bob's", scheme=1)
    with pytest.raises(DiceProofError, match="scheme"):
        checked_key(seed.hex(), shown, "alice's", "bob's", scheme=4)
    # the earlier schemes still read as what they are
    assert checked_key(seed.hex(), commitment(seed, 2), "a", "b", scheme=2) == dice_key(seed, "a", "b", scheme=2)
    assert checked_key(seed.hex(), commitment(seed, 1), None, None, scheme=1) == seed


def test_a_seed_drawn_for_a_side_is_fixed_by_the_commitment() -> None:
    from gammon.server.matches.fair_dice import DiceProofError, check_player_seed, commitment, drawn_seed

    shown = commitment(bytes(32))
    bot = drawn_seed(shown, "opponent")
    assert bot == drawn_seed(shown, "opponent") != drawn_seed(shown, "challenger")
    assert bot != drawn_seed(commitment(bytes(31) + b"\x01"), "opponent")
    assert check_player_seed(bot) == bot  # a seed like any player's
    with pytest.raises(DiceProofError, match="side"):
        drawn_seed(shown, "white")

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

"""Building a GameState from parsed fields, turning rule violations into NotationError.

GameState checks the rules that tie fields together (a 1-cube cannot be owned, the
Crawford game needs a side 1-away, ...); each parser says which of its own fields
carries each GameState field, so the error names the text the user must fix.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from ..errors import InvalidPositionError, NotationError
from ..position import Color, Position
from ..state import GameState
from . import whole_number

_DECIMAL = re.compile(r"0|[1-9][0-9]{0,5}")


def decimal(notation: str, field: str, text: str, expected: str = "a decimal number") -> int:
    """A plain non-negative decimal (no sign, no leading zeros, ASCII digits only: not ``²``
    or ``٣``), as every notation writes it."""
    value = whole_number(text) if _DECIMAL.fullmatch(text) else None
    if value is None:
        raise NotationError(notation, field, text, expected)
    return value


def playing_score(notation: str, state: GameState, text: str) -> None:
    """Refuse a match score a game being played cannot have, for a writer whose notation has no
    game status: its reader reads a game being played, or one a side has won by bearing off
    all 15 (the placement shows it), and a score past the match length would not read back.
    ``text`` is the score as the notation writes it."""
    if state.match_length and state.position.winner() is None and max(state.score) >= state.match_length:
        raise NotationError(
            notation, "score", text,
            f"scores below the match length {state.match_length}: {notation} has no game status, so it "
            "describes a game being played (or won by bearing off all 15), not a match already won",
        )


def position(
    notation: str, field: str, text: str, white: Sequence[int], black: Sequence[int], turn: Color
) -> Position:
    """A Position from each side's 25 counts (own numbering, then bar), checking the totals."""
    for name, counts in (("white", white), ("black", black)):
        if sum(counts) > 15:
            raise NotationError(notation, field, text, f"at most 15 {name} checkers, not {sum(counts)}")
    try:
        return Position.from_checkers(white, black, turn)
    except InvalidPositionError as error:
        raise NotationError(notation, field, text, f"a possible position ({error})") from None


def state(notation: str, text: str, fields: Mapping[str, tuple[str, str]], **values: object) -> GameState:
    """``GameState(**values)``; a violated rule is reported on the field ``fields`` maps it to.

    ``fields`` maps a GameState field name to (notation field name, that field's text).
    """
    try:
        return GameState(**values)  # type: ignore[arg-type]
    except InvalidPositionError as error:
        name, part = fields.get(getattr(error, "field", ""), ("state", text))
        raise NotationError(notation, name, part, f"a consistent game ({error})") from None

"""GNU Backgammon Match ID (12 characters) and the combined ``POSID:MATCHID`` GNUbg ID.

The Match ID is 72 bits, fields packed least-significant first (see FORMATS.md), in
base64. It names players by number: player 0 is :attr:`Color.BLACK`, player 1
:attr:`Color.WHITE`. The Position ID beside it is seen from the player on roll.

gammon rules:

* the "player to act" bit must agree with the rest: the doubled or resigned-to side
  when a double or resignation is pending, else the player on roll;
* the Jacoby bit only matters in money play; in a match it is read as nothing and
  written as 1 ("no Jacoby"), as GNU Backgammon 1.07 writes every match's ID whatever its
  Jacoby setting (so a match's ID ends in ``E``, not ``A``; both read alike);
* the five bits after the Jacoby bit must be zero.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import replace

from ..board import Color
from ..errors import NotationError
from . import MAX_MATCH_LENGTH
from . import position_id as _position_id
from .fields import GameFields, GameStatus, Resignation

NOTATION = "Match ID"
GNUBG_ID = "GNUbg ID"
ID_LENGTH = 12

_BASE64 = re.compile(r"[A-Za-z0-9+/]{12}")

# (bit offset, width) of each field.
_CUBE = (0, 4)
_OWNER = (4, 2)
_MOVE = (6, 1)
_CRAWFORD = (7, 1)
_STATE = (8, 3)
_TURN = (11, 1)
_DOUBLED = (12, 1)
_RESIGNED = (13, 2)
_DIE1 = (15, 3)
_DIE2 = (18, 3)
_LENGTH = (21, 15)
_SCORE0 = (36, 15)
_SCORE1 = (51, 15)
_NO_JACOBY = (66, 1)
_PADDING = (67, 5)

_CENTRED = 3
_MAX_LOG_CUBE = 15


def _get(key: int, where: tuple[int, int]) -> int:
    offset, width = where
    return (key >> offset) & ((1 << width) - 1)


def _put(where: tuple[int, int], value: int) -> int:
    offset, width = where
    if not 0 <= value < 1 << width:
        raise ValueError(value)
    return value << offset


def format(state: GameFields) -> str:  # noqa: A001
    """The Match ID of ``state``; beavers and the cube limit are not carried."""
    log_cube = state.cube.bit_length() - 1
    if log_cube > _MAX_LOG_CUBE:
        raise NotationError(NOTATION, "cube", str(state.cube), f"a cube of at most 2**{_MAX_LOG_CUBE}")
    if state.score[0] >= 1 << 15 or state.score[1] >= 1 << 15:
        raise NotationError(NOTATION, "score", str(state.score), "scores below 32768")
    dice = state.dice or (0, 0)
    key = (
        _put(_CUBE, log_cube)
        | _put(_OWNER, _CENTRED if state.cube_owner is None else int(state.cube_owner))
        | _put(_MOVE, int(state.turn))
        | _put(_CRAWFORD, int(state.crawford))
        | _put(_STATE, int(GameStatus.PLAYING if state.status is None else state.status))
        | _put(_TURN, int(state.to_act))
        | _put(_DOUBLED, int(state.double_offered))
        | _put(_RESIGNED, int(state.resignation or 0))
        | _put(_DIE1, dice[0])
        | _put(_DIE2, dice[1])
        | _put(_LENGTH, state.match_length)
        | _put(_SCORE0, state.score[0])
        | _put(_SCORE1, state.score[1])
        | _put(_NO_JACOBY, int(bool(state.match_length) or not state.jacoby))
    )
    return base64.b64encode(key.to_bytes(9, "little")).decode("ascii")


def parse(text: str) -> GameFields:
    """Read a Match ID: every field but the checkers, which a Position ID gives (:func:`parse_gnubg_id`)."""
    if not isinstance(text, str):
        raise NotationError(NOTATION, "text", repr(text), "a string")
    stripped = text.strip()
    if not _BASE64.fullmatch(stripped):
        raise NotationError(NOTATION, "characters", text, "12 base64 characters A-Z a-z 0-9 + /, e.g. cAkAAAAAAAAA")
    try:
        key = int.from_bytes(base64.b64decode(stripped, validate=True), "little")
    except (binascii.Error, ValueError):  # pragma: no cover - the pattern above already rules this out
        raise NotationError(NOTATION, "characters", text, "12 base64 characters") from None

    def bad(field: str, expected: str) -> NotationError:
        return NotationError(NOTATION, field, text, expected)

    if _get(key, _PADDING):
        raise bad("padding", "zero bits after the Jacoby bit (bit 66)")
    owner_bits = _get(key, _OWNER)
    if owner_bits == 2:
        raise bad("cube owner", "0 (player 0), 1 (player 1) or 3 (centred)")
    owner = None if owner_bits == _CENTRED else Color(owner_bits)
    status_bits = _get(key, _STATE)
    if status_bits > GameStatus.DROPPED:
        raise bad("game state", "0 (none), 1 (playing), 2 (over), 3 (resigned) or 4 (dropped)")
    dice_bits = (_get(key, _DIE1), _get(key, _DIE2))
    if 7 in dice_bits or (0 in dice_bits and dice_bits != (0, 0)):
        raise bad("dice", "both dice 0 (not rolled) or both 1-6")
    length = _get(key, _LENGTH)
    if length > MAX_MATCH_LENGTH:
        raise bad("match length", f"0 (money) to {MAX_MATCH_LENGTH}")
    resigned = _get(key, _RESIGNED)
    sources = {
        "dice": ("dice", text),
        "cube": ("cube", text),
        "cube_owner": ("cube owner", text),
        "score": ("score", text),
        "crawford": ("crawford", text),
        "jacoby": ("jacoby", text),
        "double_offered": ("double offered", text),
        "resignation": ("resignation", text),
        "status": ("game state", text),
        "position": ("position", text),
    }
    fields = GameFields(
        None,
        None,
        Color(_get(key, _MOVE)),
        dice=None if dice_bits == (0, 0) else dice_bits,
        cube=1 << _get(key, _CUBE),
        cube_owner=owner,
        double_offered=bool(_get(key, _DOUBLED)),
        resignation=Resignation(resigned) if resigned else None,
        score=(_get(key, _SCORE0), _get(key, _SCORE1)),
        match_length=length,
        crawford=bool(_get(key, _CRAWFORD)),
        jacoby=length == 0 and not _get(key, _NO_JACOBY),
        status=GameStatus(status_bits),
        notation=NOTATION,
        text=text,
        sources=sources,
    )
    if _get(key, _TURN) != fields.to_act:
        raise bad("turn", f"player {int(fields.to_act)} to act (the doubled or resigned-to side, else the player on roll)")
    return fields


def format_gnubg_id(state: GameFields) -> str:
    """``POSID:MATCHID``, as GNU Backgammon shows and reads it (``state.board`` gives the checkers)."""
    if state.board is None:
        raise ValueError("a GNUbg ID needs the board seen from the player on roll")
    return f"{_position_id.encode(state.board)}:{format(state)}"


def parse_gnubg_id(text: str) -> GameFields:
    """Read ``POSID:MATCHID``: the fields of the Match ID with the ``board`` of the Position ID."""
    if not isinstance(text, str):
        raise NotationError(GNUBG_ID, "text", repr(text), "a string")
    parts = text.strip().split(":")
    if len(parts) != 2:
        raise NotationError(GNUBG_ID, "fields", text,
                            "POSID:MATCHID, 14 and 12 base64 characters, e.g. 4HPwATDgc/ABMA:cIkFAAAAAAAA")
    position_text, match_text = parts
    try:
        board = _position_id.decode(position_text)
    except NotationError as error:
        raise NotationError(GNUBG_ID, "Position ID", position_text, error.expected) from None
    try:
        fields = parse(match_text)
    except NotationError as error:
        raise NotationError(GNUBG_ID, f"Match ID {error.field}", match_text, error.expected) from None
    # What makes the game impossible is named as the GNUbg ID's part: the checkers themselves
    # (no checkers at all) are the Position ID's fault, anything else the Match ID's.
    sources = {name: (f"Match ID {field}", match_text) for name, (field, _) in fields.sources.items()}
    sources["position"] = ("Position ID", position_text)
    return replace(fields, board=tuple(board), notation=GNUBG_ID, text=text, sources=sources)

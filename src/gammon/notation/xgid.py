"""eXtreme Gammon's XGID: ``XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10``.

The position is 26 characters seen from X (:attr:`Color.WHITE`, the bottom player):
O's bar, X's points 1..24, X's bar; ``A``..``P`` count X's checkers, ``a``..``p`` O's.
Then cube (log2), cube owner (1 X, -1 O, 0 centred), turn (1 X, -1 O), dice (``00``
not rolled, ``31`` rolled, ``D`` doubled), X's score, O's score, rules, match length,
max cube (log2).

gammon rules:

* with ``D`` the turn is the side that doubled (GameState's player on roll); the
  opponent must take or drop. XG's beaver states ``B`` and ``R`` are not supported;
* rules: in a match 1 = this is the Crawford game; in money bit 0 = Jacoby, bit 1 = beavers;
* max cube ``m`` is read as ``cube_limit = 2**m``, so ``10`` comes back as 1024 and is
  written as ``10`` again; a state with no limit (None) is written as ``10``, XG's default
  (or, above it, the log2 of the largest cube the state holds: its cube, or twice it while a
  double is offered). Cube and max cube are at most 15: gammon's cube stops at 2**15.

The XGID carries neither the game status nor a resignation: it describes a game being
played, or one a side has won by bearing off all 15 (read as status OVER). So a match score
at or past the length is written only for such a won game; otherwise the writer refuses
it (:class:`NotationError` on the score).
"""

from __future__ import annotations

import re

from ..board import POINTS, Color
from ..errors import NotationError
from . import MAX_CUBE, MAX_MATCH_LENGTH
from .fields import GameFields, check_counts, decimal, playing_score

NOTATION = "XGID"
PREFIX = "XGID="
DEFAULT_MAX_CUBE = 10

_POSITION = re.compile(r"[-a-pA-P]{26}")
_SIGNED = {"-1": -1, "0": 0, "1": 1}
_DICE = re.compile(r"00|D|[1-6][1-6]")
_MAX_LOG_CUBE = MAX_CUBE.bit_length() - 1  # 15

_FIELDS = ("position", "cube", "cube owner", "turn", "dice", "score X", "score O", "rules", "match length", "max cube")


def _letter(count: int, color: Color) -> str:
    if not count:
        return "-"
    return chr((ord("A") if color == Color.WHITE else ord("a")) + count - 1)


def format(state: GameFields) -> str:  # noqa: A001
    """The XGID of ``state``; NotationError for a match score past the length in a game not
    won by bearing off (see the module)."""
    playing_score(NOTATION, state, f"{state.score[Color.WHITE]}:{state.score[Color.BLACK]}")
    x = state.checkers(Color.WHITE)
    o = state.checkers(Color.BLACK)
    chars = [_letter(o[24], Color.BLACK)]
    for point in range(1, POINTS + 1):
        if x[point - 1]:
            chars.append(_letter(x[point - 1], Color.WHITE))
        else:
            chars.append(_letter(o[POINTS - point], Color.BLACK))
    chars.append(_letter(x[24], Color.WHITE))
    owner = {None: 0, Color.WHITE: 1, Color.BLACK: -1}[state.cube_owner]
    turn = 1 if state.turn == Color.WHITE else -1
    if state.double_offered:
        dice = "D"
    elif state.dice:
        dice = f"{state.dice[0]}{state.dice[1]}"
    else:
        dice = "00"
    if state.match_length:
        rules = int(state.crawford)
    else:
        rules = int(state.jacoby) | int(state.beavers) << 1
    if state.cube_limit is None:
        largest = 2 * state.cube if state.double_offered else state.cube
        max_cube = max(DEFAULT_MAX_CUBE, largest.bit_length() - 1)
    else:
        max_cube = state.cube_limit.bit_length() - 1
    values = (
        "".join(chars),
        state.cube.bit_length() - 1,
        owner,
        turn,
        dice,
        state.score[Color.WHITE],
        state.score[Color.BLACK],
        rules,
        state.match_length,
        max_cube,
    )
    return PREFIX + ":".join(str(v) for v in values)


def parse(text: str) -> GameFields:
    """Read an XGID (with or without ``XGID=``); :class:`NotationError` names the bad field."""
    if not isinstance(text, str):
        raise NotationError(NOTATION, "text", repr(text), "a string")
    body = text.strip()
    if body.startswith(PREFIX):
        body = body[len(PREFIX):]
    parts = body.split(":")
    if len(parts) != len(_FIELDS):
        raise NotationError(NOTATION, "fields", text, f"{len(_FIELDS)} colon-separated fields: " + ":".join(_FIELDS))
    position_text, cube_text, owner_text, turn_text, dice_text, x_text, o_text, rules_text, length_text, max_text = parts

    if not _POSITION.fullmatch(position_text):
        raise NotationError(NOTATION, "position", position_text, "26 characters: -, A-P (X) or a-p (O)")
    x, o = [0] * 25, [0] * 25
    for index, char in enumerate(position_text):
        if char == "-":
            continue
        is_x = char.isupper()
        count = ord(char.upper()) - ord("A") + 1
        if (index == 0 and is_x) or (index == 25 and not is_x):
            raise NotationError(NOTATION, "position", position_text, "O's bar first (-, a-p) and X's bar last (-, A-P)")
        if index == 0:
            o[24] = count
        elif index == 25:
            x[24] = count
        elif is_x:
            x[index - 1] = count
        else:
            o[POINTS - index] = count

    log_cube = decimal(NOTATION, "cube", cube_text, "log2 of the cube value, e.g. 0 for 1, 2 for 4")
    if log_cube > _MAX_LOG_CUBE:
        raise NotationError(NOTATION, "cube", cube_text, f"log2 of the cube value, at most {_MAX_LOG_CUBE} (a {MAX_CUBE}-cube)")
    if owner_text not in _SIGNED:
        raise NotationError(NOTATION, "cube owner", owner_text, "1 (X), -1 (O) or 0 (centred)")
    owner = {0: None, 1: Color.WHITE, -1: Color.BLACK}[_SIGNED[owner_text]]
    if turn_text not in ("1", "-1"):
        raise NotationError(NOTATION, "turn", turn_text, "1 (X) or -1 (O)")
    turn = Color.WHITE if turn_text == "1" else Color.BLACK
    if not _DICE.fullmatch(dice_text):
        raise NotationError(
            NOTATION, "dice", dice_text,
            "00 (not rolled), two dice 1-6 (31) or D (doubled); beaver states B and R are not supported",
        )
    double_offered = dice_text == "D"
    dice = None if dice_text in ("00", "D") else (int(dice_text[0]), int(dice_text[1]))
    score_x = decimal(NOTATION, "score X", x_text)
    score_o = decimal(NOTATION, "score O", o_text)
    rules = decimal(NOTATION, "rules", rules_text, "0-3")
    length = decimal(NOTATION, "match length", length_text)
    if length > MAX_MATCH_LENGTH:
        raise NotationError(NOTATION, "match length", length_text, f"0 (money) to {MAX_MATCH_LENGTH}")
    if rules > (1 if length else 3):
        raise NotationError(
            NOTATION, "rules", rules_text, "1 (Crawford game) or 0 in a match; 0-3 (bit 0 Jacoby, bit 1 beavers) in money"
        )
    max_cube = decimal(NOTATION, "max cube", max_text, "log2 of the largest cube value, e.g. 10")
    if max_cube > _MAX_LOG_CUBE:
        raise NotationError(NOTATION, "max cube", max_text,
                            f"log2 of the largest cube value, at most {_MAX_LOG_CUBE} (a {MAX_CUBE}-cube)")

    check_counts(NOTATION, "position", position_text, x, o)
    mapping = {
        "dice": ("dice", dice_text),
        "double_offered": ("dice", dice_text),
        "cube": ("cube", cube_text),
        "cube_owner": ("cube owner", owner_text),
        "cube_limit": ("max cube", max_text),
        "score": ("score", f"{x_text}:{o_text}"),
        "match_length": ("match length", length_text),
        "crawford": ("rules", rules_text),
        "jacoby": ("rules", rules_text),
        "position": ("position", position_text),
    }
    return GameFields(
        tuple(x),
        tuple(o),
        turn,
        dice=dice,
        cube=1 << log_cube,
        cube_owner=owner,
        double_offered=double_offered,
        score=(score_o, score_x),
        match_length=length,
        crawford=bool(length and rules),
        jacoby=bool(not length and rules & 1),
        beavers=bool(not length and rules & 2),
        cube_limit=1 << max_cube,
        notation=NOTATION,
        text=text,
        sources=mapping,
    )

"""BPN, Backgammon Position Notation: ``b4E1C3eE3c1e4B-w0b0-w31-n10-0:0:7``.

Fields separated by ``-`` (see FORMATS.md): placement, bar, turn and dice, cube, match,
and optional flags. The placement uses one fixed frame: point ``p`` is black's own
point ``p`` and white's point ``25 - p`` (white moves 1 -> 24, black 24 -> 1); ``a``..``o``
are 1..15 white checkers, ``A``..``O`` black, a decimal is a run of empty points.

gammon rules where the brief left BPN open:

* ``wD``/``bD``: that side has been offered a double and must take or drop (so the
  doubler, GameState's player on roll, is the other side);
* the cube is ``n<value><owner>`` (owner 0 centred, 1 white, 2 black), always written
  with the owner digit; a bare power of two reads as a centred cube;
* a sixth field of flags: ``c`` Crawford game, ``j`` Jacoby rule, ``b`` beavers, and the
  rule variant (:mod:`gammon.variant`): ``n`` nackgammon, ``t`` two-move doubles; written
  in that order and only when one is set.

BPN carries neither the game status, a resignation nor a cube limit: it describes a game
being played, or one a side has won by bearing off all 15 (the placement shows it; read
as status OVER). So a match score at or past the length is written only for such a won
game; otherwise the writer refuses it (:class:`NotationError` on the score).
"""

from __future__ import annotations

import re

from ..board import POINTS, Color
from ..errors import NotationError
from ..variant import Variant
from . import MAX_CUBE, MAX_MATCH_LENGTH, whole_number
from .fields import GameFields, check_counts, decimal, playing_score

NOTATION = "BPN"

_PLACEMENT_TOKEN = re.compile(r"[a-oA-O]|[1-9][0-9]*")
_BAR = re.compile(r"w(0|[1-9][0-9]?)b(0|[1-9][0-9]?)")
_TURN = re.compile(r"([wb])(00|[1-6][1-6]|D)")
_CUBE = re.compile(r"n([1-9][0-9]{0,19})")
_MATCH = re.compile(r"([0-9]{1,6}):([0-9]{1,6}):([0-9]{1,6})")
_FLAGS = "cjbnt"

_OWNER_DIGIT = {None: "0", Color.WHITE: "1", Color.BLACK: "2"}
_DIGIT_OWNER = {v: k for k, v in _OWNER_DIGIT.items()}
_SIDE = {Color.WHITE: "w", Color.BLACK: "b"}


def format(state: GameFields) -> str:  # noqa: A001 - the module's writer, as in bpn.format(state)
    """The BPN of ``state`` (status, resignation and cube limit are not written); NotationError
    for a match score past the length in a game not won by bearing off (see the module)."""
    playing_score(NOTATION, state, f"{state.score[Color.WHITE]}:{state.score[Color.BLACK]}:{state.match_length}")
    white = state.checkers(Color.WHITE)
    black = state.checkers(Color.BLACK)
    placement = []
    empty = 0
    for point in range(1, POINTS + 1):
        w, b = white[POINTS - point], black[point - 1]
        if not w and not b:
            empty += 1
            continue
        if empty:
            placement.append(str(empty))
            empty = 0
        placement.append(chr(ord("a") + w - 1) if w else chr(ord("A") + b - 1))
    if empty:
        placement.append(str(empty))
    if state.double_offered:
        turn = _SIDE[state.turn.other] + "D"
    else:
        dice = f"{state.dice[0]}{state.dice[1]}" if state.dice else "00"
        turn = _SIDE[state.turn] + dice
    fields = [
        "".join(placement),
        f"w{white[24]}b{black[24]}",
        turn,
        f"n{state.cube}{_OWNER_DIGIT[state.cube_owner]}",
        f"{state.score[Color.WHITE]}:{state.score[Color.BLACK]}:{state.match_length}",
    ]
    variant = state.variant
    switches = (state.crawford, state.jacoby, state.beavers, variant.nackgammon, variant.two_move_doubles)
    flags = "".join(flag for flag, on in zip(_FLAGS, switches) if on)
    if flags:
        fields.append(flags)
    return "-".join(fields)


def parse(text: str) -> GameFields:
    """Read BPN; :class:`NotationError` names the field that is wrong."""
    if not isinstance(text, str):
        raise NotationError(NOTATION, "text", repr(text), "a string")
    parts = text.strip().split("-")
    if len(parts) not in (5, 6):
        raise NotationError(
            NOTATION, "fields", text, f"5 or 6 fields separated by '-', e.g. b4E1C3eE3c1e4B-w0b0-w31-n10-0:0:7 (got {len(parts)})"
        )
    placement, bar, turn_text, cube_text, match_text = parts[:5]

    white, black = _placement(placement)
    found = _BAR.fullmatch(bar)
    if not found:
        raise NotationError(NOTATION, "bar", bar, "w<n>b<n>, each side's checkers on the bar, e.g. w0b1")
    white[24], black[24] = int(found[1]), int(found[2])
    for name, counts in (("white", white), ("black", black)):
        if sum(counts) > 15:
            raise NotationError(NOTATION, "bar", bar, f"at most 15 {name} checkers on board and bar, not {sum(counts)}")

    found = _TURN.fullmatch(turn_text)
    if not found:
        raise NotationError(NOTATION, "turn", turn_text, "w or b then 00 (not rolled), two dice 1-6 (31) or D (doubled)")
    side = Color.WHITE if found[1] == "w" else Color.BLACK
    double_offered = found[2] == "D"
    on_roll = side.other if double_offered else side
    dice = None if found[2] in ("00", "D") else (int(found[2][0]), int(found[2][1]))

    cube, owner = _cube(cube_text)

    found = _MATCH.fullmatch(match_text)
    if not found:
        raise NotationError(NOTATION, "match", match_text, "<white score>:<black score>:<length>, e.g. 0:0:7")
    score_white, score_black, length = (
        decimal(NOTATION, "match", n, "plain decimals, e.g. 2:4:7") for n in found.groups()
    )
    if length > MAX_MATCH_LENGTH:
        raise NotationError(NOTATION, "match", match_text, f"a match length of 0 (money) to {MAX_MATCH_LENGTH}")

    flags = ""
    if len(parts) == 6:
        flags = parts[5]
        if not flags or any(f not in _FLAGS for f in flags) or len(set(flags)) != len(flags):
            raise NotationError(NOTATION, "flags", flags, "each of c (Crawford), j (Jacoby), b (beavers), "
                                "n (nackgammon), t (two-move doubles) at most once")

    check_counts(NOTATION, "placement", placement, white, black)
    mapping = {
        "dice": ("turn", turn_text),
        "double_offered": ("turn", turn_text),
        "cube": ("cube", cube_text),
        "cube_owner": ("cube", cube_text),
        "score": ("match", match_text),
        "match_length": ("match", match_text),
        "crawford": ("flags", flags),
        "jacoby": ("flags", flags),
        "variant": ("flags", flags),
        "position": ("placement", placement),
    }
    return GameFields(
        tuple(white),
        tuple(black),
        on_roll,
        dice=dice,
        cube=cube,
        cube_owner=owner,
        double_offered=double_offered,
        score=(score_black, score_white),
        match_length=length,
        crawford="c" in flags,
        jacoby="j" in flags,
        beavers="b" in flags,
        variant=Variant(nackgammon="n" in flags, two_move_doubles="t" in flags),
        notation=NOTATION,
        text=text,
        sources=mapping,
    )


def _placement(text: str) -> tuple[list[int], list[int]]:
    """Each side's 25 counts in its own numbering (bar left at 0) from the placement field."""
    white, black = [0] * 25, [0] * 25
    position = 0
    point = 1
    while position < len(text):
        token = _PLACEMENT_TOKEN.match(text, position)
        if not token:
            raise NotationError(
                NOTATION, "placement", text,
                f"letters a-o (white) or A-O (black) and runs of empty points, not {text[position]!r}",
            )
        position = token.end()
        value = token[0]
        run = whole_number(value, 1, POINTS)
        if value[0] in "0123456789":
            if run is None:
                raise NotationError(NOTATION, "placement", text, "exactly 24 points")
            point += run
        else:
            if point > POINTS:
                raise NotationError(NOTATION, "placement", text, "exactly 24 points")
            if value.islower():
                white[POINTS - point] = ord(value) - ord("a") + 1
            else:
                black[point - 1] = ord(value) - ord("A") + 1
            point += 1
    if point != POINTS + 1:
        raise NotationError(NOTATION, "placement", text, f"exactly 24 points, not {point - 1}")
    for name, counts in (("white", white), ("black", black)):
        if sum(counts) > 15:
            raise NotationError(NOTATION, "placement", text, f"at most 15 {name} checkers, not {sum(counts)}")
    return white, black


def _cube(text: str) -> tuple[int, Color | None]:
    """Cube value and owner; a bare power of two is a centred cube (the brief's ``n1``)."""
    found = _CUBE.fullmatch(text)
    if not found:
        raise NotationError(NOTATION, "cube", text, "n<value><owner>, owner 0 centred, 1 white, 2 black, e.g. n10 or n21")
    digits = found[1]
    value = whole_number(digits)
    assert value is not None  # the pattern's ASCII digits
    owner: Color | None = None
    if value & (value - 1):
        head, digit = digits[:-1], digits[-1]
        value = whole_number(head) if head and not head.startswith("0") and digit in _DIGIT_OWNER else None
        if value is None or value & (value - 1):
            raise NotationError(NOTATION, "cube", text, "a power-of-two value then owner 0, 1 or 2, e.g. n10, n21, n642")
        if value == 1 and digit != "0":
            raise NotationError(NOTATION, "cube", text, "a centred 1-cube (n10): a 1-cube cannot be owned")
        owner = _DIGIT_OWNER[digit]
    if value > MAX_CUBE:
        raise NotationError(NOTATION, "cube", text, f"a cube of at most {MAX_CUBE} (2**15)")
    return value, owner

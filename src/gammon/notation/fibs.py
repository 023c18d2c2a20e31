"""FIBS board string (CLIP ``rawboard``): 53 colon-separated fields seen by one player.

``board:you:opponent:length:your score:opponent's score:`` 26 signed counts for positions
0..25 ``:turn:`` your dice, the opponent's dice ``:cube:`` you may double, the opponent may
double, was doubled ``:colour:direction:home:bar:`` borne off and on bar (yours, the
opponent's) ``:can move:forced move:did Crawford:redoubles``.

gammon rules:

* FIBS's own letters (FORMATS.md): positive counts, colour +1 and turn +1 are O, that
  is :attr:`Color.BLACK`; negative and -1 are X, :attr:`Color.WHITE`. So ``colour`` says
  which colour "you" play. (GNU Backgammon writes its own player 1, whom it calls X, as
  colour +1: its boards come back with the colours swapped against its GNUbg ID; all that
  is seen from the player on roll agrees.)
* Position ``p`` is your point ``p`` when you move 24 -> 1 (direction -1), else point
  ``25 - p``; a side's bar is the end it enters from (25 for the side moving 24 -> 1).
* Turn is the player on roll (the doubler while a double is pending; FIBS shows a
  pending double only to the doubled side, as "was doubled"); turn 0 is read as a game
  over with you on roll (the doubler if "was doubled"), and written for any game not
  being played.
* The Crawford game is a match of 2 or more with a side 1-away and "did Crawford" 0.
* A cube above 1 belongs to the one side that may double, and is centred when both may;
  a 1-cube is always centred.

Fields only FIBS has (names, direction, the dice shown for the side not on roll, can
move, forced move, redoubles, 9999 for an unlimited match) are kept in :class:`FibsFields`
(and in the value type :class:`gammon.state.FibsBoard`, which holds a GameState),
as are the "may double" and "on bar" fields when they differ from what the game implies
(GNU Backgammon, for one, leaves "on bar" at 0 and ignores the Crawford game there), so
any board string reads back to the exact same text. Redundant fields (home, bar, borne
off, colour of the checkers on each bar, did Crawford) must agree with the rest.

A FIBS board has no field for the Jacoby rule or beavers, which change what every game is
worth: a game with either is refused (:class:`NotationError` names them) rather than
written as another game. A cube limit (XGID always has one) and a pending resignation are
not written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..board import POINTS, Color
from ..errors import InvalidPositionError, NotationError
from . import MAX_CUBE, MAX_MATCH_LENGTH
from .fields import GameFields, GameStatus, check_counts

NOTATION = "FIBS board"
FIELD_COUNT = 53
UNLIMITED = 9999

_INT = re.compile(r"-?(0|[1-9][0-9]{0,5})")
_NAME_FORBIDDEN = re.compile(r"[:\r\n]")

#: The name of each of the 53 fields, as errors report them.
FIELD_NAMES: tuple[str, ...] = (
    ("board", "player name", "opponent name", "match length", "player score", "opponent score")
    + tuple(f"position {i}" for i in range(26))
    + ("turn", "player die 1", "player die 2", "opponent die 1", "opponent die 2", "cube",
       "player may double", "opponent may double", "was doubled", "colour", "direction", "home", "bar",
       "player off", "opponent off", "player bar", "opponent bar", "can move", "forced move",
       "did crawford", "redoubles")
)
_INDEX = {name: i for i, name in enumerate(FIELD_NAMES)}


def _sign(color: Color) -> int:
    return 1 if color == Color.BLACK else -1


def _default_may_double(game: GameFields, side: Color) -> bool:
    return not game.crawford and game.cube_owner in (None, side)


_HIDDEN = object()  # 0:0 may-double flags: the owner of a cube above 1 is not shown


def _owner_shown(may: tuple[bool, bool], you: Color) -> Color | object | None:
    """Owner of a cube above 1 by who may double (yours, the opponent's); both may: centred."""
    if may[0] and may[1]:
        return None
    if may[0] or may[1]:
        return you if may[0] else you.other
    return _HIDDEN


def _did_crawford(game: GameFields) -> int:
    """GNU Backgammon's post-Crawford flag: a side is 1-away outside the Crawford game. In a
    1-point match both sides always are, so it writes 1 there (the cube is never used)."""
    return int(game.match_length >= 1 and (game.match_length - 1) in game.score and not game.crawford)


@dataclass(frozen=True, slots=True)
class FibsFields:
    """A FIBS board string's fields: the game, and what only FIBS says (see the module docstring).

    ``you`` is the colour the string's first player plays. ``may_double`` and ``on_bar`` are
    (yours, the opponent's) when they differ from what the game implies, else None.
    ``idle_dice`` are the dice shown for the side not on roll (FIBS shows 0 0; GNU Backgammon
    repeats the roll).
    """

    game: GameFields
    you: Color
    player: str = "you"
    opponent: str = "opponent"
    direction: int = -1
    unlimited: bool = False
    idle_dice: tuple[int, int] = (0, 0)
    may_double: tuple[bool, bool] | None = None
    on_bar: tuple[int, int] | None = None
    can_move: int = 0
    forced_move: int = 0
    redoubles: int = 0


def check(board: FibsFields) -> None:
    """What a FIBS board can say: NotationError for a game with the Jacoby rule or beavers, which
    it cannot carry; InvalidPositionError naming any other field that cannot be written."""
    game, you = board.game, board.you
    lost = [rule for rule, on in (("Jacoby rule", game.jacoby), ("beavers", game.beavers)) if on]
    if lost:
        raise NotationError(
            NOTATION, "rules", " and ".join(lost),
            "money play without the Jacoby rule or beavers: a FIBS board has no field for them "
            "(BPN and XGID carry both)",
        )
    for name in (board.player, board.opponent):
        if not isinstance(name, str) or not name or _NAME_FORBIDDEN.search(name):
            raise InvalidPositionError(f"a FIBS player name is non-empty text without ':' or newlines, not {name!r}")
    if board.direction not in (-1, 1):
        raise InvalidPositionError(f"direction is -1 or 1, not {board.direction!r}")
    if board.unlimited and game.match_length:
        raise InvalidPositionError("only a money game (match length 0) is written as an unlimited match")
    if game.double_offered and game.turn == you:
        raise InvalidPositionError("FIBS shows a pending double only to the doubled side: make `you` that side")
    a, b = board.idle_dice
    if not (a == b == 0 or (1 <= a <= 6 and 1 <= b <= 6)):
        raise InvalidPositionError(f"idle dice are 0 0 or two dice 1-6, not {board.idle_dice!r}")
    if not 0 <= board.can_move <= 4 or board.forced_move not in (0, 1) or not 0 <= board.redoubles < 10**6:
        raise InvalidPositionError("can move is 0-4, forced move 0 or 1, redoubles >= 0")
    if (board.may_double is not None and game.cube > 1
            and _owner_shown(board.may_double, you) is not game.cube_owner):
        raise InvalidPositionError(
            f"with a cube above 1, may double {board.may_double} must show its owner {game.cube_owner}"
        )
    if board.on_bar is not None and not all(0 <= n <= 15 for n in board.on_bar):
        raise InvalidPositionError(f"on-bar counts are 0-15, not {board.on_bar!r}")


def format(board: FibsFields) -> str:  # noqa: A001 - the module's writer, as in fibs.format(board)
    """The board string (of fields :func:`check` accepts)."""
    return ":".join(_fields(board))


def _fields(board: FibsFields) -> list[str]:
    game, you = board.game, board.you
    opponent = you.other
    length = game.match_length or (UNLIMITED if board.unlimited else 0)
    points = [0] * 26
    for side, direction in ((you, board.direction), (opponent, -board.direction)):
        sign = _sign(side)
        counts = game.checkers(side)
        for point in range(1, POINTS + 1):
            if counts[point - 1]:
                points[point if direction == -1 else 25 - point] = sign * counts[point - 1]
        if counts[24]:
            points[25 if direction == -1 else 0] = sign * counts[24]
    playing = game.status in (None, GameStatus.PLAYING)
    turn = _sign(game.turn) if playing else 0
    rolled = game.dice or (0, 0)
    your_dice, their_dice = (rolled, board.idle_dice) if game.turn == you else (board.idle_dice, rolled)
    may = board.may_double or (_default_may_double(game, you), _default_may_double(game, opponent))
    on_bar = board.on_bar or (game.bar(you), game.bar(opponent))
    values: list[object] = [
        "board", board.player, board.opponent, length, game.score[you], game.score[opponent],
        *points,
        turn, *your_dice, *their_dice, game.cube, int(may[0]), int(may[1]), int(game.double_offered),
        _sign(you), board.direction, 0 if board.direction == -1 else 25, 25 if board.direction == -1 else 0,
        game.borne_off(you), game.borne_off(opponent), *on_bar,
        board.can_move, board.forced_move, _did_crawford(game), board.redoubles,
    ]
    return [str(v) for v in values]


def _int(parts: list[str], i: int) -> int:
    if not _INT.fullmatch(parts[i]):
        raise NotationError(NOTATION, FIELD_NAMES[i], parts[i], "a plain integer")
    return int(parts[i])


def parse(text: str) -> FibsFields:
    """Read a board string; :class:`NotationError` names the field that is wrong. The game's
    fields come back unchecked against each other: GameState checks them (``FibsBoard.parse``)."""
    if not isinstance(text, str):
        raise NotationError(NOTATION, "text", repr(text), "a string")
    parts = text.strip().split(":")
    if len(parts) != FIELD_COUNT:
        raise NotationError(NOTATION, "fields", text, f"{FIELD_COUNT} colon-separated fields starting 'board:'")
    if parts[0] != "board":
        raise NotationError(NOTATION, "board", parts[0], "the word 'board' first")
    for i in (1, 2):
        if not parts[i] or _NAME_FORBIDDEN.search(parts[i]):
            raise NotationError(NOTATION, FIELD_NAMES[i], parts[i], "a non-empty player name without newlines")
    numbers = [0, 0, 0] + [_int(parts, i) for i in range(3, FIELD_COUNT)]

    def get(name: str) -> int:
        return numbers[_INDEX[name]]

    def bad(name: str, expected: str) -> NotationError:
        return NotationError(NOTATION, name, parts[_INDEX[name]], expected)

    def flag(name: str) -> bool:
        if get(name) not in (0, 1):
            raise bad(name, "0 or 1")
        return bool(get(name))

    colour, direction = get("colour"), get("direction")
    if colour not in (-1, 1):
        raise bad("colour", "-1 (you are X) or 1 (you are O)")
    if direction not in (-1, 1):
        raise bad("direction", "-1 (you move 24 to 1) or 1 (you move 1 to 24)")
    you = Color.BLACK if colour == 1 else Color.WHITE
    opponent = you.other

    length = get("match length")
    unlimited = length == UNLIMITED
    if unlimited:
        length = 0
    elif not 0 <= length <= MAX_MATCH_LENGTH:
        raise bad("match length", f"0 or {UNLIMITED} (unlimited) or a match of 1 to {MAX_MATCH_LENGTH}")
    for name in ("player score", "opponent score"):
        if get(name) < 0:
            raise bad(name, "a score >= 0")

    counts = {Color.WHITE: [0] * 25, Color.BLACK: [0] * 25}
    bars = {25 if direction == -1 else 0: you, 0 if direction == -1 else 25: opponent}
    for p in range(26):
        value = numbers[_INDEX[f"position {p}"]]
        if not value:
            continue
        if abs(value) > 15:
            raise bad(f"position {p}", "a count of at most 15 checkers")
        side = Color.BLACK if value > 0 else Color.WHITE
        if p in bars:
            if side != bars[p]:
                raise bad(f"position {p}", f"the bar of {'you' if bars[p] == you else 'the opponent'} "
                                           f"(sign {_sign(bars[p]):+d}) or 0")
            counts[side][24] = abs(value)
        else:
            side_direction = direction if side == you else -direction
            counts[side][(p if side_direction == -1 else 25 - p) - 1] = abs(value)

    turn = get("turn")
    if turn not in (-1, 0, 1):
        raise bad("turn", "-1 (X), 1 (O) or 0 (game over)")
    was_doubled = flag("was doubled")
    if turn:
        on_roll = Color.BLACK if turn == 1 else Color.WHITE
    else:
        on_roll = opponent if was_doubled else you
    if was_doubled and on_roll != opponent:
        raise bad("was doubled", "0 unless the opponent, the player on roll, has doubled you")
    slots = {you: ("player die 1", "player die 2"), opponent: ("opponent die 1", "opponent die 2")}
    dice_of = {}
    for side, names in slots.items():
        pair = (get(names[0]), get(names[1]))
        if not (pair == (0, 0) or all(1 <= d <= 6 for d in pair)):
            raise bad(names[0] if not 1 <= pair[0] <= 6 else names[1], "both dice 0 or both 1-6")
        dice_of[side] = pair
    dice = None if dice_of[on_roll] == (0, 0) else dice_of[on_roll]

    cube = get("cube")
    if cube < 1 or cube & (cube - 1) or cube > MAX_CUBE:
        raise bad("cube", f"the cube value, a power of two up to {MAX_CUBE}")
    may = (flag("player may double"), flag("opponent may double"))
    shown = None if cube == 1 else _owner_shown(may, you)
    if shown is _HIDDEN:
        raise bad("player may double", "at least one side that may double when the cube is above 1 (0:0 hides its owner)")
    if get("did crawford") not in (0, 1):
        raise bad("did crawford", "0 or 1")
    score = [0, 0]
    score[you], score[opponent] = get("player score"), get("opponent score")
    crawford = length >= 2 and (length - 1) in score and not get("did crawford")

    positions = ":".join(parts[6:32])
    check_counts(NOTATION, "positions", positions, counts[Color.WHITE], counts[Color.BLACK])
    sources = {
        "dice": ("player die 1" if on_roll == you else "opponent die 1", text),
        "double_offered": ("was doubled", parts[_INDEX["was doubled"]]),
        "cube": ("cube", parts[_INDEX["cube"]]),
        "cube_owner": ("cube", parts[_INDEX["cube"]]),
        "score": ("player score", parts[_INDEX["player score"]]),
        "crawford": ("did crawford", parts[_INDEX["did crawford"]]),
        "status": ("turn", parts[_INDEX["turn"]]),
        "position": ("positions", positions),
    }
    game = GameFields(
        tuple(counts[Color.WHITE]), tuple(counts[Color.BLACK]), on_roll, dice=dice, cube=cube,
        cube_owner=shown if isinstance(shown, Color) else None, double_offered=was_doubled,
        score=(score[0], score[1]), match_length=length, crawford=crawford,
        status=GameStatus.PLAYING if turn else GameStatus.OVER, notation=NOTATION, text=text, sources=sources,
    )
    default_may = (_default_may_double(game, you), _default_may_double(game, opponent))
    default_bar = (game.bar(you), game.bar(opponent))
    on_bar = (get("player bar"), get("opponent bar"))
    can_move, forced_move, redoubles = get("can move"), get("forced move"), get("redoubles")
    if not 0 <= can_move <= 4:
        raise bad("can move", "0-4 checkers")
    if forced_move not in (0, 1):
        raise bad("forced move", "0 or 1")
    if redoubles < 0:
        raise bad("redoubles", "a count >= 0")
    for name, count in zip(("player bar", "opponent bar"), on_bar):
        if not 0 <= count <= 15:
            raise bad(name, "0-15 checkers")
    board = FibsFields(
        game, you, parts[1], parts[2], direction, unlimited, dice_of[on_roll.other],
        None if may == default_may else may,
        None if on_bar == default_bar else on_bar,
        can_move, forced_move, redoubles,
    )
    try:
        check(board)
    except InvalidPositionError as error:  # pragma: no cover - the checks above come first
        raise NotationError(NOTATION, "board", text, f"a consistent board ({error})") from None
    # What is left are fields the others imply (home, bar, borne off, did Crawford):
    # writing the board back must give the same text.
    for i, (given, implied) in enumerate(zip(parts, _fields(board))):
        if given != implied:
            raise NotationError(NOTATION, FIELD_NAMES[i], given, f"{implied}, to agree with the rest of the board")
    return board


__all__ = ["FIELD_COUNT", "FIELD_NAMES", "NOTATION", "UNLIMITED", "FibsFields", "check", "format", "parse"]

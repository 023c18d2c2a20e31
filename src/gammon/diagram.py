"""Text pictures of a position: an ASCII board, and a plain-words version for screen readers.

The board is drawn from one side's view (``perspective``; by default the side to act):
that side's home board is bottom right, its points numbered 1..24 from there, as GNU
Backgammon and printed books draw it. White's checkers are ``X`` and black's ``O`` in
every view.
"""

from __future__ import annotations

from .position import Color, Position
from .state import GameState, GameStatus

SYMBOL = {Color.WHITE: "X", Color.BLACK: "O"}
_STACK = 5  # checkers drawn per point; a taller stack shows its count in the last row


def _name(color: Color) -> str:
    return f"{color.name.capitalize()} ({SYMBOL[color]})"


def _as_state(state: GameState | Position) -> GameState:
    return state if isinstance(state, GameState) else GameState(position=state)


def _counts(position: Position, view: Color) -> dict[int, tuple[Color, int]]:
    """Checkers per point in ``view``'s numbering: point -> (colour, count)."""
    points: dict[int, tuple[Color, int]] = {}
    for color in (Color.WHITE, Color.BLACK):
        for i, count in enumerate(position.checkers(color)[:24]):
            if count:
                points[i + 1 if color == view else 24 - i] = (color, count)
    return points


def render(state: GameState | Position, plain: bool = False, perspective: Color | None = None) -> str:
    """The position as text: an ASCII board, or with ``plain`` a description in words.

    >>> print(render(Position(), plain=True).splitlines()[2])
    White (X): 2 checkers on the 24-point, 5 checkers on the 13-point, 3 checkers on the 8-point, 5 checkers on the 6-point.
    """
    game = _as_state(state)
    view = perspective if perspective is not None else game.to_act
    return _plain(game, view) if plain else _board(game, view)


# -- words ---------------------------------------------------------------------------------
def _status(game: GameState) -> str:
    """Whose turn it is and what they must do, in one sentence."""
    position = game.position
    turn = position.turn
    winner = position.winner()
    if winner is not None:
        return f"Game over: {_name(winner)} has borne off all checkers."
    if game.status in (GameStatus.OVER, GameStatus.RESIGNED, GameStatus.DROPPED):
        return "Game over."
    if game.resignation is not None:
        return f"{_name(turn)} offers to resign a {game.resignation.name.lower()}; {_name(turn.other)} to accept or reject."
    if game.double_offered:
        return f"{_name(turn)} doubles to {game.cube * 2}; {_name(turn.other)} to take or drop."
    if game.dice is None:
        return f"{_name(turn)} on roll, not yet rolled."
    return f"{_name(turn)} to play {game.dice[0]}-{game.dice[1]}."


def _cube_text(game: GameState) -> str:
    if game.cube_owner is None:
        return f"Cube: {game.cube}, centred."
    return f"Cube: {game.cube}, owned by {game.cube_owner.name.capitalize()}."


def _match_text(game: GameState) -> str:
    if game.is_money:
        rules = [name for name, on in (("Jacoby rule", game.jacoby), ("beavers", game.beavers)) if on]
        return "Money game" + (f" ({', '.join(rules)})." if rules else ".")
    white, black = game.score[Color.WHITE], game.score[Color.BLACK]
    text = f"Score: White {white}, Black {black} in a {game.match_length}-point match"
    if game.crawford:
        text += ", Crawford game"
    elif game.post_crawford:
        text += ", post-Crawford"
    return text + "."


def _plain(game: GameState, view: Color) -> str:
    position = game.position
    points = _counts(position, view)
    lines = [_status(game), f"Points are numbered from {view.name.capitalize()}'s side: its home board is 1 to 6."]
    for color in (view, view.other):
        owned = [(p, n) for p, (c, n) in sorted(points.items(), reverse=True) if c == color]
        where = ", ".join(f"{n} checker{'s' if n > 1 else ''} on the {p}-point" for p, n in owned)
        lines.append(f"{_name(color)}: {where or 'no checkers on the points'}.")
    for color in (view, view.other):
        lines.append(
            f"{color.name.capitalize()}: {position.bar(color)} on the bar, {position.borne_off(color)} borne off, "
            f"pip count {position.pip_count(color)}."
        )
    lines.append(_cube_text(game))
    lines.append(_match_text(game))
    return "\n".join(lines)


# -- the board -------------------------------------------------------------------------------
def _cell(points: dict[int, tuple[Color, int]], point: int, row: int) -> str:
    """Row ``row`` (0 = at the board's edge) of a point's stack, 3 characters wide."""
    color, count = points.get(point, (None, 0))
    if color is None or row >= count:
        return "   "
    if row == _STACK - 1 and count > _STACK:
        return f"{count:>2} "
    return f" {SYMBOL[color]} "


def _side_cell(symbol: str, count: int, row: int) -> str:
    """The bar or the tray, a stack drawn from the middle of the board outward."""
    if row >= count:
        return "   "
    if row == _STACK - 1 and count > _STACK:
        return f"{count:>2} "
    return f" {symbol} "


def _board(game: GameState, view: Color) -> str:
    position = game.position
    points = _counts(position, view)
    top, bottom = view.other, view
    top_labels = list(range(13, 19)), list(range(19, 25))
    bottom_labels = list(range(12, 6, -1)), list(range(6, 0, -1))

    def label_row(labels: tuple[list[int], list[int]]) -> str:
        left, right = ("".join(f"{p:>2} " for p in half) for half in labels)
        return f"   {left}     {right}".rstrip()

    def row(labels: tuple[list[int], list[int]], depth: int, bar: Color, tray: Color) -> str:
        left = "".join(_cell(points, p, depth) for p in labels[0])
        right = "".join(_cell(points, p, depth) for p in labels[1])
        middle = _side_cell(SYMBOL[bar], position.bar(bar), _STACK - 1 - depth)
        off = _side_cell(SYMBOL[tray], position.borne_off(tray), _STACK - 1 - depth)
        return f"  |{left}|{middle}|{right}|{off}|"

    edge = "  +" + "-" * 18 + "+---+" + "-" * 18 + "+---+"
    lines = [label_row(top_labels), edge]
    lines += [row(top_labels, depth, top, top) for depth in range(_STACK)]
    lines.append("  |" + " " * 18 + "|BAR|" + " " * 18 + "|OFF|")
    lines += [row(bottom_labels, depth, bottom, bottom) for depth in reversed(range(_STACK))]
    lines += [edge, label_row(bottom_labels)]

    panel = [""] * len(lines)
    for color, (name_row, step) in ((top, (2, 1)), (bottom, (12, -1))):
        panel[name_row] = _side_name(game, color)
        panel[name_row + step] = _side_numbers(game, color)
        panel[name_row + 2 * step] = f"[{game.cube}]" if game.cube_owner == color else ""
    middle = f"[{game.cube * 2}] offered" if game.double_offered else f"[{game.cube}]" if game.cube_owner is None else ""
    panel[7] = middle
    panel[8], panel[9] = _short_match(game)
    out = [f"{line}  {extra}".rstrip() if extra else line for line, extra in zip(lines, panel)]
    out.append("")
    out.append(_status(game))
    return "\n".join(out)


def _side_name(game: GameState, color: Color) -> str:
    text = f"{SYMBOL[color]} {color.name.capitalize()}"
    if color != game.to_act or game.position.winner() is not None:
        return text
    if game.double_offered:
        return text + "  (to take or drop)"
    if game.resignation is not None:
        return text + "  (to accept or reject)"
    return text + (f"  (to play {game.dice[0]}-{game.dice[1]})" if game.dice else "  (on roll)")


def _side_numbers(game: GameState, color: Color) -> str:
    position = game.position
    text = f"pips {position.pip_count(color)}"
    if position.borne_off(color):
        text += f", off {position.borne_off(color)}"
    if game.match_length:
        text += f", score {game.score[color]}"
    return text


def _short_match(game: GameState) -> tuple[str, str]:
    if game.is_money:
        return "money game", ", ".join(n for n, on in (("Jacoby", game.jacoby), ("beavers", game.beavers)) if on)
    return f"{game.match_length}-point match", "Crawford game" if game.crawford else "post-Crawford" if game.post_crawford else ""

"""Pictures of a position: a backgammon board as SVG, as ``chess.svg`` draws chess boards.

:func:`board_svg` draws any :class:`~gammon.position.Position` or
:class:`~gammon.state.GameState` from one side (``orientation``: that side's home board bottom
right, the point numbers in its numbering, as :mod:`gammon.diagram` draws the text board).
The picture is accessible and scriptable: the root has ``role="img"``, a ``<title>`` and a
``<desc>`` (the plain-words description of :func:`gammon.diagram.render`); every point, bar
and tray is a ``<g>`` with a stable ``id`` (``point-13``, ``bar-white``, ``off-black``), a
``class`` and ``data-`` attributes, so a web page can make them clickable. The output is
deterministic (fixed number formatting, no random ids) and valid XML.

>>> svg = board_svg(Position(), size=300)
>>> svg.startswith('<svg xmlns="http://www.w3.org/2000/svg"'), svg.count('class="checker ')
(True, 30)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from xml.sax.saxutils import escape

from . import diagram
from .errors import GammonError, InvalidMoveError
from .play import BAR, OFF, Play
from .position import CHECKERS, POINTS, Color, Position
from .state import GameState


class SvgError(GammonError, ValueError):
    """An argument of :func:`board_svg` that cannot be drawn; the message names it."""


#: Every colour :func:`board_svg` uses, by the name its ``colors`` argument overrides.
DEFAULT_COLORS: dict[str, str] = {
    "background": "#ffffff",  # around the board
    "frame": "#5c3b1e",  # the board's rim, the bar and the strip between the trays
    "board": "#2f6b4a",  # the playing surface (felt)
    "tray": "#24523a",  # the borne-off trays
    "point_dark": "#a8402c",  # points 1, 3, 5, ... of the orientation's numbering
    "point_light": "#e3d3ad",  # points 2, 4, 6, ...
    "white": "#f7f4ea",  # white's checkers and dice
    "white_edge": "#6b6354",
    "black": "#26221f",  # black's checkers and dice
    "black_edge": "#0c0a09",
    "text": "#1f1a16",  # names, pips, score and status around the board
    "label": "#3b3026",  # the point numbers
    "tray_text": "#f4ecd8",  # borne-off counts
    "highlight": "#ffd23f",
    "arrow": "#1565c0",
    "cube": "#fbf8ef",
    "cube_text": "#1f1a16",
}

# -- the layout, in viewBox units ------------------------------------------------------------------
_POINT_W = 40  # one point's width
_RADIUS = 17  # a checker's radius
_STEP = 34  # centre to centre in a stack that fits
_FIT = 5  # checkers a point shows without squeezing; a taller stack is squeezed and numbered
_AREA_H = 180  # one half's playing depth, board edge to the middle
_TRIANGLE_H = 166
_MIDDLE_H = 40  # the gap between the upper and lower points
_FRAME = 12
_BAR_W = 44
_TRAY_W = 48
_CUBE_COL = 56  # the cube's column, left of the board
_HEAD = 30  # the line of text above the board (and below it)
_NUMBERS = 18  # the strip of point numbers
_SLAB_STEP = 10.5  # borne-off checkers, seen edge on
_SLAB_H = 9
_CUBE = 40
_DIE = 34

_LEFT = _CUBE_COL + _FRAME  # x of the left half
_BAR_X = _LEFT + 6 * _POINT_W  # x of the bar
_RIGHT = _BAR_X + _BAR_W  # x of the right half
_TRAY_X = _RIGHT + 6 * _POINT_W + _FRAME
_WIDTH = _TRAY_X + _TRAY_W + _FRAME + 8
_TOP = _HEAD + _NUMBERS + _FRAME  # y of the upper playing area
_MID_TOP = _TOP + _AREA_H  # the middle strip
_MID_BOTTOM = _MID_TOP + _MIDDLE_H
_BOTTOM = _MID_BOTTOM + _AREA_H  # y of the lower board edge
_HEIGHT = _BOTTOM + _FRAME + _NUMBERS + _HEAD + 22  # the bottom side's line, then the status
_MIDDLE = (_MID_TOP + _MID_BOTTOM) / 2

_FONT = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"
_ID_PREFIX = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*|")
#: Dice pips on a 3 x 3 grid (column, row), per face.
_PIPS = {
    1: ((1, 1),),
    2: ((0, 0), (2, 2)),
    3: ((0, 0), (1, 1), (2, 2)),
    4: ((0, 0), (2, 0), (0, 2), (2, 2)),
    5: ((0, 0), (2, 0), (1, 1), (0, 2), (2, 2)),
    6: ((0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)),
}


def board_svg(
    board: Position | GameState,
    *,
    size: int = 600,
    orientation: Color | None = None,
    play: Play | str | None = None,
    mover: Color | None = None,
    highlight: Iterable[int | str] = (),
    colors: Mapping[str, str] | None = None,
    dice: tuple[int, int] | tuple[()] | None = None,
    show_pips: bool = True,
    title: str | None = None,
    id_prefix: str = "",
) -> str:
    """The board of ``board`` as an SVG document (a string), ``size`` pixels wide.

    ``orientation`` is the side drawn at the bottom, whose numbering the point numbers, ids
    and ``highlight`` use (default: the side to act, as ``gammon show`` draws it). ``play``
    (a :class:`~gammon.play.Play` or move text, in its mover's numbering) is drawn as arrows,
    bar entries and bear-offs included; its mover is the side on roll unless ``mover`` says
    otherwise (the opponent, to show the play that led to this position). ``highlight``
    takes point numbers 1-24 and element ids (``"bar-white"``, ``"off-black"``; without
    ``id_prefix``). ``colors``
    overrides entries of :data:`DEFAULT_COLORS`. ``dice`` overrides the state's dice
    (``()``: none drawn). ``show_pips`` shows the pip counts beside the board; the title and
    description say them anyway. ``title`` replaces the generated title. ``id_prefix`` is
    put before every id, for pages that show several boards.

    SvgError (a ValueError) names an argument that cannot be drawn.
    """
    state = _as_state(board)
    position = state.position
    view = _color("orientation", orientation, state.to_act)
    player = _color("mover", mover, position.turn)
    if isinstance(size, bool) or not isinstance(size, int) or not 16 <= size <= 20000:
        raise SvgError(f"size must be a whole number of pixels from 16 to 20000, got {size!r}")
    if not isinstance(id_prefix, str) or not _ID_PREFIX.fullmatch(id_prefix):
        raise SvgError(f"id_prefix must be empty or a name of letters, digits, '_', '-' and '.', got {id_prefix!r}")
    palette = _palette(colors)
    moves = _play(play)
    rolled = _dice(dice, state)
    marked = _highlights(highlight)
    if title is not None and not isinstance(title, str):
        raise SvgError(f"title must be text or None, got {type(title).__name__}")
    shown = state
    if rolled != state.dice:  # the words say the dice drawn, when the state can hold them
        try:
            shown = state.replace(dice=rolled)
        except GammonError:
            pass
    words = diagram.render(shown, plain=True, perspective=view).splitlines()
    white, black = position.pip_count(Color.WHITE), position.pip_count(Color.BLACK)
    heading = title if title is not None else f"{words[0]} Pips: White {white}, Black {black}."

    drawing = _Drawing(state, view, palette, id_prefix)
    height = round(size * _HEIGHT / _WIDTH)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" role="img" width="{size}" height="{height}" '
        f'viewBox="0 0 {_WIDTH} {_HEIGHT}" font-family="{_FONT}" '
        f'aria-labelledby="{id_prefix}title {id_prefix}desc">',
        f'<title id="{id_prefix}title">{escape(heading)}</title>',
        f'<desc id="{id_prefix}desc">{escape(" ".join(words))}</desc>',
    ]
    out += drawing.frame()
    for point in range(1, POINTS + 1):
        out += drawing.point(point, marked)
    for color in (view, view.other):
        out += drawing.bar(color, marked)
        out += drawing.tray(color, marked)
    out += drawing.numbers()
    out += drawing.info(show_pips, words[0])
    out += drawing.cube()
    if rolled:
        out += drawing.dice(rolled)
    if moves:
        out += drawing.arrows(moves, player)
    out.append("</svg>")
    return "\n".join(out) + "\n"


# -- arguments -------------------------------------------------------------------------------------
def _as_state(board: object) -> GameState:
    if isinstance(board, GameState):
        return board
    if isinstance(board, Position):
        return GameState(position=board)
    raise SvgError(f"board_svg draws a Position or a GameState, got {type(board).__name__}")


def _color(name: str, value: object, default: Color) -> Color:
    if value is None:
        return default
    if not isinstance(value, Color):
        raise SvgError(f"{name} must be Color.WHITE, Color.BLACK or None, got {value!r}")
    return value


def _palette(colors: Mapping[str, str] | None) -> dict[str, str]:
    palette = dict(DEFAULT_COLORS)
    if colors is None:
        return palette
    if not isinstance(colors, Mapping):
        raise SvgError(f"colors must be a mapping of names to colours, got {type(colors).__name__}")
    for key, value in colors.items():
        if key not in DEFAULT_COLORS:
            raise SvgError(f"colors: unknown name {key!r}; the names are {', '.join(DEFAULT_COLORS)}")
        if not isinstance(value, str) or not value.strip():
            raise SvgError(f"colors[{key!r}] must be an SVG colour such as '#a8402c' or 'red', got {value!r}")
        palette[key] = value.strip()
    return palette


def _play(play: object) -> tuple[tuple[int, int], ...]:
    """The (source, target) steps of ``play`` in its mover's numbering (25 the bar, 0 off)."""
    if play is None:
        return ()
    if isinstance(play, str):
        try:
            play = Play.parse(play)
        except InvalidMoveError as error:
            raise SvgError(f"play: {error}") from None
    if not isinstance(play, Play):
        raise SvgError(f"play must be a Play, move text or None, got {type(play).__name__}")
    return tuple((move.source, move.target) for move in play.moves)


def _dice(dice: object, state: GameState) -> tuple[int, int] | None:
    if dice is None:
        return state.dice
    if isinstance(dice, tuple) and not dice:
        return None
    if (not isinstance(dice, (tuple, list)) or len(dice) != 2
            or not all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in dice)):
        raise SvgError(f"dice must be two values 1-6, () for none or None for the state's, got {dice!r}")
    return int(dice[0]), int(dice[1])


def _highlights(highlight: object) -> frozenset[str]:
    """The ids of the highlighted points, bars and trays."""
    if isinstance(highlight, (str, bytes)) or not isinstance(highlight, Iterable):
        raise SvgError(f"highlight must be an iterable of points 1-24 and ids, got {highlight!r}")
    ids = {f"point-{p}" for p in range(1, POINTS + 1)} | {
        f"{kind}-{color}" for kind in ("bar", "off") for color in ("white", "black")
    }
    marked = set()
    for item in highlight:
        if isinstance(item, int) and not isinstance(item, bool) and 1 <= item <= POINTS:
            marked.add(f"point-{item}")
        elif isinstance(item, str) and item in ids:
            marked.add(item)
        else:
            raise SvgError(f"highlight: {item!r} is neither a point 1-24 nor an id such as 'point-13' or 'bar-white'")
    return frozenset(marked)


# -- drawing ---------------------------------------------------------------------------------------
def _n(value: float) -> str:
    """A coordinate with at most two decimals and no trailing zeros: the same text on every machine."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _attr(value: str) -> str:
    return escape(value, {'"': "&quot;"})


def _point_x(point: int) -> float:
    """Left edge of ``point`` (1-24, the orientation's numbering): 1-6 bottom right, 24 top right."""
    if point <= 6:
        return _RIGHT + (6 - point) * _POINT_W
    if point <= 12:
        return _LEFT + (12 - point) * _POINT_W
    if point <= 18:
        return _LEFT + (point - 13) * _POINT_W
    return _RIGHT + (point - 19) * _POINT_W


def point_boxes() -> dict[str, object]:
    """Where each point lies in :func:`board_svg`'s picture, for a page that lays clickable
    cells over it: ``{"width", "height", "points": {n: [x, y, w, h]}}`` in viewBox units, n in
    the orientation's numbering (the same for either orientation)."""
    boxes: dict[int, list[float]] = {}
    for point in range(1, POINTS + 1):
        top = point >= 13
        boxes[point] = [_point_x(point), _TOP if top else _MID_BOTTOM, _POINT_W, _AREA_H]
    return {"width": _WIDTH, "height": _HEIGHT, "points": boxes}


def _step(count: int, room: float = _FIT * _STEP) -> float:
    """Centre-to-centre distance in a stack of ``count``: squeezed when they do not fit."""
    if count <= _FIT:
        return _STEP
    return (room - _STEP) / (count - 1)


class _Drawing:
    """The pieces of one picture; each method returns its lines of SVG."""

    def __init__(self, state: GameState, view: Color, palette: dict[str, str], prefix: str) -> None:
        self.state = state
        self.position = state.position
        self.view = view
        self.c = {key: _attr(value) for key, value in palette.items()}
        self.prefix = prefix
        # Checkers per point in the view's numbering: point -> (colour, count).
        self.points: dict[int, tuple[Color, int]] = {}
        for color in (Color.WHITE, Color.BLACK):
            for i, count in enumerate(self.position.checkers(color)[:POINTS]):
                if count:
                    self.points[self.number(color, i + 1)] = (color, count)

    def number(self, color: Color, point: int) -> int:
        """``color``'s point ``point`` in the view's numbering."""
        return point if color == self.view else POINTS + 1 - point

    def ident(self, name: str) -> str:
        return f"{self.prefix}{name}"

    def checker(self, color: Color, x: float, y: float) -> str:
        name = color.name.lower()
        return (f'<circle class="checker {name}" cx="{_n(x)}" cy="{_n(y)}" r="{_RADIUS}" '
                f'fill="{self.c[name]}" stroke="{self.c[name + "_edge"]}" stroke-width="1.5"/>')

    def count(self, color: Color, x: float, y: float, count: int) -> str:
        other = color.other.name.lower()
        return (f'<text class="count" x="{_n(x)}" y="{_n(y + 5)}" text-anchor="middle" font-size="15" '
                f'font-weight="bold" fill="{self.c[other]}">{count}</text>')

    def stack(self, color: Color, count: int, x: float, base: float, direction: int) -> list[str]:
        """``count`` checkers centred on ``x``, the first touching ``base``, growing in ``direction``."""
        step = _step(count)
        first = base + direction * (_RADIUS + 1)
        out = [self.checker(color, x, first + direction * k * step) for k in range(count)]
        if count > _FIT:
            out.append(self.count(color, x, first + direction * (count - 1) * step, count))
        return out

    def slot(self, point: int, height: int) -> tuple[float, float]:
        """Centre of the ``height``-th checker (0 = at the edge) of a stack on ``point``, drawn as if it fitted."""
        x = _point_x(point) + _POINT_W / 2
        k = min(height, _FIT - 1)
        if point <= 12:
            return x, _BOTTOM - _RADIUS - 1 - k * _STEP
        return x, _TOP + _RADIUS + 1 + k * _STEP

    def group(self, name: str, kind: str, marked: frozenset[str], data: dict[str, object], title: str) -> str:
        classes = kind + (" highlighted" if name in marked else "")
        extra = "".join(f' data-{key}="{value}"' for key, value in data.items())
        return f'<g id="{self.ident(name)}" class="{classes}"{extra}><title>{escape(title)}</title>'

    def hit_area(self, x: float, y: float, width: float) -> str:
        """An invisible band over the whole half-column, so a click anywhere on a point (or bar half) hits its group."""
        return (f'<rect class="area" x="{_n(x)}" y="{_n(y)}" width="{_n(width)}" height="{_AREA_H}" '
                f'fill="#000000" fill-opacity="0"/>')

    def highlight(self, x: float, y: float, width: float) -> str:
        """A translucent band over a point, a bar half or a tray: what is under it stays visible."""
        return (f'<rect class="highlight" x="{_n(x)}" y="{_n(y)}" width="{_n(width)}" height="{_AREA_H}" '
                f'fill="{self.c["highlight"]}" fill-opacity="0.5" stroke="{self.c["highlight"]}" stroke-width="2"/>')

    def frame(self) -> list[str]:
        c = self.c
        return [
            f'<rect class="background" width="{_WIDTH}" height="{_HEIGHT}" fill="{c["background"]}"/>',
            f'<rect class="frame" x="{_CUBE_COL}" y="{_TOP - _FRAME}" width="{_TRAY_X + _TRAY_W + _FRAME - _CUBE_COL}" '
            f'height="{_BOTTOM - _TOP + 2 * _FRAME}" rx="6" fill="{c["frame"]}"/>',
            f'<rect class="board" x="{_LEFT}" y="{_TOP}" width="{6 * _POINT_W}" height="{_BOTTOM - _TOP}" fill="{c["board"]}"/>',
            f'<rect class="board" x="{_RIGHT}" y="{_TOP}" width="{6 * _POINT_W}" height="{_BOTTOM - _TOP}" fill="{c["board"]}"/>',
        ]

    def point(self, point: int, marked: frozenset[str]) -> list[str]:
        color, count = self.points.get(point, (None, 0))
        name = f"point-{point}"
        data: dict[str, object] = {"point": point, "checkers": count}
        if color is not None:
            data["color"] = color.name.lower()
        held = f"{count} {color.name.lower()} checker{'s' if count > 1 else ''}" if color is not None else "empty"
        out = [self.group(name, "point", marked, data, f"{point}-point: {held}")]
        x = _point_x(point)
        lower = point <= 12
        out.append(self.hit_area(x, _MID_BOTTOM if lower else _TOP, _POINT_W))
        base = _BOTTOM if lower else _TOP
        tip = base - _TRIANGLE_H if lower else base + _TRIANGLE_H
        fill = self.c["point_dark"] if point % 2 else self.c["point_light"]
        out.append(f'<polygon class="triangle" points="{_n(x)},{_n(base)} {_n(x + _POINT_W)},{_n(base)} '
                   f'{_n(x + _POINT_W / 2)},{_n(tip)}" fill="{fill}"/>')
        if name in marked:
            out.append(self.highlight(x, _MID_BOTTOM if lower else _TOP, _POINT_W))
        if color is not None:
            out += self.stack(color, count, x + _POINT_W / 2, base, -1 if lower else 1)
        out.append("</g>")
        return out

    def bar(self, color: Color, marked: frozenset[str]) -> list[str]:
        """The view's checkers on the bar sit in its (lower) half, both stacks growing from the middle."""
        count = self.position.bar(color)
        name = f"bar-{color.name.lower()}"
        out = [self.group(name, "bar", marked, {"point": "bar", "color": color.name.lower(), "checkers": count},
                          f"{color.name.capitalize()}'s bar: {count} checker{'' if count == 1 else 's'}")]
        lower = color == self.view
        top = _MID_BOTTOM if lower else _TOP
        out.append(self.hit_area(_BAR_X, top, _BAR_W))
        if name in marked:
            out.append(self.highlight(_BAR_X, top, _BAR_W))
        base = _MID_BOTTOM if lower else _MID_TOP
        out += self.stack(color, count, _BAR_X + _BAR_W / 2, base, 1 if lower else -1)
        out.append("</g>")
        return out

    def tray(self, color: Color, marked: frozenset[str]) -> list[str]:
        """Borne-off checkers, seen edge on, stacked from the board's edge; their count beside them."""
        count = self.position.borne_off(color)
        name = f"off-{color.name.lower()}"
        label = color.name.lower()
        out = [self.group(name, "off", marked, {"point": "off", "color": label, "checkers": count},
                          f"{color.name.capitalize()} has borne off {count} checker{'' if count == 1 else 's'}")]
        lower = color == self.view
        top = _MID_BOTTOM if lower else _TOP
        out.append(f'<rect class="tray" x="{_TRAY_X}" y="{top}" width="{_TRAY_W}" height="{_AREA_H}" fill="{self.c["tray"]}"/>')
        if name in marked:
            out.append(self.highlight(_TRAY_X, top, _TRAY_W))
        for k in range(count):
            y = _BOTTOM - 3 - _SLAB_H - k * _SLAB_STEP if lower else _TOP + 3 + k * _SLAB_STEP
            out.append(f'<rect class="checker {label}" x="{_TRAY_X + 4}" y="{_n(y)}" width="{_TRAY_W - 8}" '
                       f'height="{_SLAB_H}" rx="2" fill="{self.c[label]}" stroke="{self.c[label + "_edge"]}" stroke-width="1"/>')
        if count:
            y = _MID_BOTTOM + 16 if lower else _MID_TOP - 6
            out.append(f'<text class="count" x="{_n(_TRAY_X + _TRAY_W / 2)}" y="{_n(y)}" text-anchor="middle" '
                       f'font-size="13" font-weight="bold" fill="{self.c["tray_text"]}">{count}</text>')
        out.append("</g>")
        return out

    def numbers(self) -> list[str]:
        out = ['<g class="labels">']
        for point in range(1, POINTS + 1):
            x = _point_x(point) + _POINT_W / 2
            y = _BOTTOM + _FRAME + 14 if point <= 12 else _TOP - _FRAME - 4
            out.append(f'<text x="{_n(x)}" y="{_n(y)}" text-anchor="middle" font-size="12" '
                       f'fill="{self.c["label"]}">{point}</text>')
        out.append("</g>")
        return out

    def info(self, show_pips: bool, status: str) -> list[str]:
        """Each side's line (name, pips, score) on its own side of the board; the match and the turn."""
        state, position = self.state, self.position
        out = ['<g class="info">']
        for color, y in ((self.view.other, 20), (self.view, _HEIGHT - 32)):
            name = color.name.lower()
            parts = [color.name.capitalize()]
            if show_pips:
                parts.append(f"{position.pip_count(color)} pips")
            if state.match_length:
                parts.append(f"score {state.score[color]}")
            out.append(f'<circle class="marker {name}" cx="{_LEFT + 7}" cy="{y - 5}" r="7" fill="{self.c[name]}" '
                       f'stroke="{self.c[name + "_edge"]}" stroke-width="1.5"/>')
            weight = ' font-weight="bold"' if color == state.to_act else ""
            out.append(f'<text class="side {name}" x="{_LEFT + 20}" y="{y}" font-size="15"{weight} '
                       f'fill="{self.c["text"]}">{escape("  ·  ".join(parts))}</text>')
        right = _TRAY_X + _TRAY_W + _FRAME
        out.append(f'<text class="match" x="{right}" y="20" text-anchor="end" font-size="14" '
                   f'fill="{self.c["text"]}">{escape(self.match_text())}</text>')
        out.append(f'<text class="status" x="{_LEFT}" y="{_HEIGHT - 9}" font-size="14" '
                   f'fill="{self.c["text"]}">{escape(status)}</text>')
        out.append("</g>")
        return out

    def match_text(self) -> str:
        state = self.state
        if state.is_money:
            rules = [name for name, on in (("Jacoby", state.jacoby), ("beavers", state.beavers)) if on]
            return "Money game" + "".join(f" · {rule}" for rule in rules)
        text = f"{state.match_length}-point match"
        if state.crawford:
            return text + " · Crawford"
        return text + (" · post-Crawford" if state.post_crawford else "")

    def cube(self) -> list[str]:
        """Centred in the left column, or at its owner's side; an offered cube in the doubler's half."""
        state = self.state
        if state.double_offered:
            value = 2 * state.cube
            doubler = state.position.turn
            x = (_RIGHT + 3 * _POINT_W if doubler == self.view else _LEFT + 3 * _POINT_W) - _CUBE / 2
            y = _MIDDLE - _CUBE / 2
            owner, where = "offered", f"{doubler.name.capitalize()} offers a double to {value}"
        else:
            value = state.cube
            x = (_CUBE_COL - _CUBE) / 2
            if state.cube_owner is None:
                y, owner, where = _MIDDLE - _CUBE / 2, "centre", f"Cube at {value}, centred"
            else:
                lower = state.cube_owner == self.view
                y = _BOTTOM - _CUBE if lower else _TOP
                owner = state.cube_owner.name.lower()
                where = f"Cube at {value}, owned by {state.cube_owner.name.capitalize()}"
        # A centred 1-cube shows 64, the face that is up on a real cube.
        face = 64 if value == 1 else value
        font = 20 if face < 100 else 15 if face < 10000 else 11
        classes = "cube offered" if state.double_offered else "cube"
        return [
            f'<g id="{self.ident("cube")}" class="{classes}" data-value="{value}" data-owner="{owner}">'
            f"<title>{escape(where)}</title>",
            f'<rect x="{_n(x)}" y="{_n(y)}" width="{_CUBE}" height="{_CUBE}" rx="6" fill="{self.c["cube"]}" '
            f'stroke="{self.c["highlight"] if state.double_offered else self.c["cube_text"]}" '
            f'stroke-width="{3 if state.double_offered else 1.5}"/>',
            f'<text x="{_n(x + _CUBE / 2)}" y="{_n(y + _CUBE / 2 + font * 0.36)}" text-anchor="middle" '
            f'font-size="{font}" font-weight="bold" fill="{self.c["cube_text"]}">{face}</text>',
            "</g>",
        ]

    def dice(self, rolled: tuple[int, int]) -> list[str]:
        """The roller's dice, in its colour, in the middle of its half (the view's: the right half)."""
        roller = self.position.turn
        name = roller.name.lower()
        centre = _RIGHT + 3 * _POINT_W if roller == self.view else _LEFT + 3 * _POINT_W
        out = [f'<g id="{self.ident("dice")}" class="dice {name}" data-dice="{rolled[0]}{rolled[1]}">'
               f"<title>{roller.name.capitalize()} rolled {rolled[0]}-{rolled[1]}</title>"]
        for die, x in zip(rolled, (centre - _DIE - 5, centre + 5)):
            y = _MIDDLE - _DIE / 2
            out.append(f'<g class="die" data-value="{die}">')
            out.append(f'<rect x="{_n(x)}" y="{_n(y)}" width="{_DIE}" height="{_DIE}" rx="6" fill="{self.c[name]}" '
                       f'stroke="{self.c[name + "_edge"]}" stroke-width="1.5"/>')
            for col, row in _PIPS[die]:
                out.append(f'<circle cx="{_n(x + 8 + col * 9)}" cy="{_n(y + 8 + row * 9)}" r="3.3" '
                           f'fill="{self.c[roller.other.name.lower()]}"/>')
            out.append("</g>")
        out.append("</g>")
        return out

    def arrows(self, moves: tuple[tuple[int, int], ...], player: Color) -> list[str]:
        """One arrow per checker move, from the top of its stack to where it lands.

        Heights are followed through the play (a checker that left lowers its stack, one that
        arrived raises the next landing), so the four arrows of 13/7(2) 8/2(2) do not overlap.
        """
        heights = {point: count for point, (color, count) in self.points.items() if color == player}
        bar = self.position.bar(player)
        off = self.position.borne_off(player)
        if player != self.position.turn:
            # The play that led here: its checkers have landed, so the stacks are drawn as they stood before it.
            for source, target in moves:
                if source == BAR:
                    bar += 1
                else:
                    point = self.number(player, source)
                    heights[point] = heights.get(point, 0) + 1
                if target == OFF:
                    off -= 1
                else:
                    point = self.number(player, target)
                    heights[point] = heights.get(point, 0) - 1
        out = ['<g class="arrows">']
        for source, target in moves:
            if source == BAR:
                bar -= 1
                start = self.bar_slot(player, max(bar, 0))
                start_name = "bar"
            else:
                point = self.number(player, source)
                heights[point] = heights.get(point, 0) - 1
                start = self.slot(point, max(heights[point], 0))
                start_name = str(point)
            if target == OFF:
                end = self.tray_slot(player, off)
                off += 1
                end_name = "off"
            else:
                point = self.number(player, target)
                end = self.slot(point, heights.get(point, 0))
                heights[point] = heights.get(point, 0) + 1
                end_name = str(point)
            out += self.arrow(start, end, start_name, end_name)
        out.append("</g>")
        return out

    def bar_slot(self, color: Color, height: int) -> tuple[float, float]:
        k = min(height, _FIT - 1)
        if color == self.view:
            return _BAR_X + _BAR_W / 2, _MID_BOTTOM + _RADIUS + 1 + k * _STEP
        return _BAR_X + _BAR_W / 2, _MID_TOP - _RADIUS - 1 - k * _STEP

    def tray_slot(self, color: Color, height: int) -> tuple[float, float]:
        k = min(height, CHECKERS - 1)
        if color == self.view:
            return _TRAY_X + _TRAY_W / 2, _BOTTOM - 3 - _SLAB_H / 2 - k * _SLAB_STEP
        return _TRAY_X + _TRAY_W / 2, _TOP + 3 + _SLAB_H / 2 + k * _SLAB_STEP

    def arrow(self, start: tuple[float, float], end: tuple[float, float], source: str, target: str) -> list[str]:
        (x1, y1), (x2, y2) = start, end
        length = ((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5
        if length < 1:
            return []
        ux, uy = (x2 - x1) / length, (y2 - y1) / length
        head, half = 16.0, 9.0
        bx, by = x2 - ux * head, y2 - uy * head  # where the head's base meets the shaft
        colour = self.c["arrow"]
        return [
            f'<g class="arrow" data-from="{source}" data-to="{target}">',
            f'<line x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(bx)}" y2="{_n(by)}" stroke="{colour}" stroke-width="6" '
            f'stroke-opacity="0.85" stroke-linecap="round"/>',
            f'<polygon points="{_n(x2)},{_n(y2)} {_n(bx - uy * half)},{_n(by + ux * half)} '
            f'{_n(bx + uy * half)},{_n(by - ux * half)}" fill="{colour}" fill-opacity="0.85"/>',
            "</g>",
        ]

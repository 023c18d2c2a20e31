"""``gammon show``, ``gammon convert`` and ``gammon moves``: looking at positions from the shell."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Sequence
from typing import IO, Any

from .. import diagram
from ..errors import GammonError
from ..extras import require
from . import batch, records
from ..notation import position_id, whole_number
from ..play import Play
from ..position import Color, Position
from ..state import GameState

#: Lines decoded and generated per call of the batch kernels.
BATCH_CHUNK = 4096
#: A die as a batch line writes it: ASCII digits only (the one rule of :func:`whole_number`), looked
#: up rather than parsed because a batch reads a million of them.
_DIE = {str(die): die for die in range(1, 7)}

#: ``--to`` names of a position's notations (:meth:`GameState.to_notation`), then a match file's formats.
FORMATS = ("bpn", "gnubgid", "xgid", "fibs", "pid", *records.WRITTEN)


class ArgumentError(GammonError, ValueError):
    """A command-line argument that does not parse; the message names the argument."""


def register(subparsers: argparse._SubParsersAction) -> None:
    show = subparsers.add_parser("show", help="draw a position", description="Draw a position as a text board.")
    show.add_argument("position", metavar="POSITION", help="BPN, XGID, GNUbg ID, FIBS board or Position ID")
    show.add_argument("--plain", action="store_true", help="describe the position in words (for screen readers)")
    show.add_argument("--perspective", choices=("white", "black"), help="draw from this side (default: the side to act)")
    show.add_argument("--svg", metavar="FILE", help="write the board as an SVG picture to FILE ('-': standard output)")
    show.add_argument("--png", metavar="FILE",
                      help="write the board as a PNG picture to FILE (needs cairosvg: pip install 'gammon[png]')")
    show.add_argument("--size", metavar="PIXELS", default="600", help="the picture's width in pixels (default 600)")
    show.add_argument("--play", metavar="MOVES", help="draw this play of the side on roll as arrows (e.g. '8/5 6/5'; "
                      "checked against the position's dice when it has some)")
    show.set_defaults(handler=_show)

    convert = subparsers.add_parser(
        "convert",
        help="rewrite a position in another notation, or a match file in another format",
        description="Read POSITION in any notation gammon knows (BPN, XGID, GNU Backgammon's POSID:MATCHID, "
        "a FIBS board or a bare Position ID) and write it in the notation --to names. What the target "
        "cannot say is refused rather than dropped (beavers or a variant into gnubgid; the Jacoby rule or "
        "beavers into a FIBS board), but for what each leaves out by design: pid carries the checkers only; "
        "bpn no cube limit, resignation nor game status; gnubgid no cube limit; xgid no resignation nor game "
        "status. Or read a match FILE (.mat and the sites' .txt exports, SGF, eXtreme Gammon's .xg/.xgp, by "
        "content) and write it --to mat or sgf on standard output; what the reader accommodated is told on "
        "standard error.",
    )
    convert.add_argument("position", metavar="POSITION|FILE", help="a position's text, or a match file")
    convert.add_argument("--to", required=True, choices=FORMATS, help="the notation or file format to write")
    convert.add_argument("--match", type=int, default=1, metavar="N",
                         help="of a file holding several matches, the N-th (default 1)")
    convert.set_defaults(handler=_convert)

    moves = subparsers.add_parser(
        "moves",
        help="list the legal plays of a roll",
        description="List the legal plays of POSITION for the roll D1 D2 (or the position's own dice). "
        "With --batch, read lines 'POSITIONID D1 D2' (or JSON objects with pid and dice) from stdin "
        "and write one JSON line each: pid, dice, results (the sorted Position IDs of the distinct "
        "results, seen from the side that moved) and input (the line); a bad line gets "
        "{error, line, input} and the rest go on; blank lines are skipped.",
    )
    moves.add_argument("position", metavar="POSITION", nargs="?")
    moves.add_argument("dice", metavar="DIE", nargs="*", help="two dice 1-6")
    moves.add_argument("--batch", action="store_true", help="read positions and rolls from stdin")
    moves.set_defaults(handler=_moves)


# -- arguments -------------------------------------------------------------------------------
def read_state(text: str) -> GameState:
    """A position argument in any notation :meth:`GameState.parse` knows (a Position ID at least)."""
    parse = getattr(GameState, "parse", None)
    try:
        if parse is not None:
            return parse(text)
        return GameState(position=Position(text.strip()))
    except GammonError as error:
        raise ArgumentError(f"POSITION {text!r}: {error}") from None


def read_dice(values: list[str], state: GameState) -> tuple[int, int]:
    if not values and state.dice is not None:
        return state.dice
    if len(values) == 1 and len(values[0]) == 2:
        values = list(values[0])  # "31"
    dice = [die for die in (whole_number(v, 1, 6) for v in values) if die is not None]
    if len(values) != 2 or len(dice) != 2:
        raise ArgumentError(f"DIE: expected two dice 1-6 (e.g. 3 1), got {' '.join(values) or 'nothing'!r}")
    return dice[0], dice[1]


# -- commands ----------------------------------------------------------------------------------
def _show(args: argparse.Namespace) -> int:
    state = read_state(args.position)
    perspective = None if args.perspective is None else Color[args.perspective.upper()]
    if args.svg is None and args.png is None:
        if args.play is not None:
            raise ArgumentError("--play draws arrows on a picture: give --svg FILE or --png FILE too")
        print(diagram.render(state, plain=args.plain, perspective=perspective))
        return 0
    size = whole_number(args.size, 16, 20000)
    if size is None:
        raise ArgumentError(f"--size {args.size!r}: expected a width of 16 to 20000 pixels")
    from .. import svg

    picture = svg.board_svg(state, size=size, orientation=perspective, play=_play_of(args.play, state))
    if args.png is not None:
        _write("--png", args.png, _png(picture))
    if args.svg is not None:
        if args.svg == "-":
            sys.stdout.write(picture)
        else:
            _write("--svg", args.svg, picture.encode("utf-8"))
    if args.plain:
        print(diagram.render(state, plain=True, perspective=perspective))
    return 0


def _play_of(text: str | None, state: GameState) -> Play | None:
    """``--play``: the legal play it means when the position has dice, else the moves as written."""
    if text is None:
        return None
    try:
        if state.dice is not None:
            return state.position.legal_plays(*state.dice).find(text)
        return Play.parse(text)
    except GammonError as error:
        raise ArgumentError(f"--play {text!r}: {error}") from None


def _png(picture: str) -> bytes:
    """The SVG rendered by cairosvg, the optional dependency ``gammon[png]``."""
    try:
        cairosvg = require("cairosvg", "--png")  # MissingExtraError names gammon[png]
    except OSError as error:  # the package is there but not the cairo library it loads
        raise ArgumentError(f"--png needs the cairo library, which cairosvg could not load ({error})") from None
    png: bytes = cairosvg.svg2png(bytestring=picture.encode("utf-8"))
    return png


def _write(option: str, path: str, data: bytes) -> None:
    try:
        with open(path, "wb") as file:
            file.write(data)
    except OSError as error:
        raise ArgumentError(f"{option} {path}: cannot write there ({error.strerror or error}); choose another path") from None


def _convert(args: argparse.Namespace) -> int:
    if args.to in records.WRITTEN or records.is_record(args.position):
        if args.to not in records.WRITTEN:
            raise ArgumentError(f"--to {args.to}: a match file is written --to {' or '.join(records.WRITTEN)}")
        sys.stdout.write(records.write_record(records.read_record(args.position, args.match), args.to))
        return 0
    state = read_state(args.position)
    try:
        print(state.to_notation(args.to))
    except GammonError as error:
        raise ArgumentError(f"--to {args.to}: {error}") from None
    return 0


def _moves(args: argparse.Namespace) -> int:
    if args.batch:
        if args.position is not None:
            raise ArgumentError("--batch reads positions from stdin; give no POSITION")
        run_batch(sys.stdin, sys.stdout)
        return 0
    if args.position is None:
        raise ArgumentError("POSITION: missing (or use --batch)")
    state = read_state(args.position)
    d1, d2 = read_dice(args.dice, state)
    position = state.position
    legal = position.legal_plays(d1, d2)
    after = legal.positions()
    turn = position.turn
    print(f"{turn.name.capitalize()} ({diagram.SYMBOL[turn]}) to play {d1}-{d2}: ", end="")
    if legal.is_pass():
        print("no legal play.")
        return 0
    print(f"{len(legal)} legal play{'s' if len(legal) > 1 else ''}")
    texts = [str(play) for play in legal]
    width = max(len("play"), *map(len, texts))
    print(f"{'#':>4}  {'play':<{width}}  position ID after ({turn.other.name.lower()} to roll)")
    for i, (text, result) in enumerate(zip(texts, after), 1):
        print(f"{i:>4}  {text:<{width}}  {result.position_id()}")
    return 0


# -- batch -------------------------------------------------------------------------------------
def _read_line(line: str) -> tuple[str, int, int]:
    """``POSITIONID D1 D2`` or ``{"pid": ..., "dice": [d1, d2]}``; ValueError names the bad field."""
    text = line.strip()
    if text.startswith("{"):
        try:
            item = json.loads(text)
        except RecursionError:
            raise ValueError("line: not JSON (nested too deeply)") from None
        except ValueError as error:  # JSONDecodeError, or a number too long to convert
            raise ValueError(f"line: not JSON ({getattr(error, 'msg', error)})") from None
        if not isinstance(item, dict):
            raise ValueError("line: expected a JSON object with pid and dice")
        pid, dice = item.get("pid"), item.get("dice")
        if not isinstance(pid, str):
            raise ValueError("pid: missing or not a string")
        if not isinstance(dice, list) or len(dice) != 2 or not all(type(d) is int and 1 <= d <= 6 for d in dice):
            raise ValueError("dice: expected a list of two dice 1-6")
        first, second = dice
    else:
        fields = text.split()
        if len(fields) != 3:
            raise ValueError(f"line: expected 'POSITIONID D1 D2' (3 fields), got {len(fields)}")
        pid = fields[0]
        for name, die in (("d1", fields[1]), ("d2", fields[2])):
            if die not in _DIE:
                raise ValueError(f"{name}: expected a die 1-6, got {die[:20]!r}")
        first, second = _DIE[fields[1]], _DIE[fields[2]]
    if len(pid) != position_id.ID_LENGTH or not pid.isascii():
        raise ValueError(f"pid: expected 14 base64 characters, got {pid[:40]!r}")
    return pid, first, second


def answer_lines(questions: Sequence[batch.Question]) -> list[dict[str, Any]]:
    """The answers to ``questions`` (see :mod:`gammon.cli.batch`), decoded and generated in bulk by
    the kernels, :data:`BATCH_CHUNK` lines at a time."""
    answers: list[dict[str, Any]] = []
    for start in range(0, len(questions), BATCH_CHUNK):
        answers.extend(_answer_chunk(questions[start : start + BATCH_CHUNK]))
    return answers


def _answer_chunk(chunk: Sequence[batch.Question]) -> list[dict[str, Any]]:
    import numpy as np

    from .. import movegen

    out: list[dict[str, Any] | None] = [None] * len(chunk)
    rows: list[int] = []
    parsed: list[tuple[str, int, int]] = []
    for k, (n, text) in enumerate(chunk):
        try:
            parsed.append(_read_line(text))
            rows.append(k)
        except ValueError as error:
            out[k] = batch.error(str(error), n, text)
    if rows:
        texts = np.frombuffer("".join(p[0] for p in parsed).encode("ascii"), np.uint8).reshape(-1, 14).copy()
        boards, status = position_id.decode_batch(texts)
        good = [i for i in range(len(rows)) if status[i] == position_id.OK]
        for i in range(len(rows)):
            if status[i] != position_id.OK:
                n, text = chunk[rows[i]]
                message = f"pid: expected {position_id.STATUS_TEXT[int(status[i])]}, got {parsed[i][0]!r}"
                out[rows[i]] = batch.error(message, n, text)
        if good:
            dice = np.array([parsed[i][1:] for i in good], np.int8)
            offsets, results, _, _ = movegen.generate_batch(boards[good], dice, False)
            ids = position_id.encode_batch(results).tobytes().decode("ascii")
            for j, i in enumerate(good):
                found = sorted(ids[14 * r : 14 * r + 14] for r in range(offsets[j], offsets[j + 1]))
                pid, d1, d2 = parsed[i]
                out[rows[i]] = batch.answer({"pid": pid, "dice": [d1, d2], "results": found}, chunk[rows[i]][1])
    return [item for item in out if item is not None]  # every line has its answer or its error by now


def run_batch(stdin: IO[bytes] | IO[str] | Iterable[str], stdout: IO[str]) -> int:
    """``gammon moves --batch``: every non-blank line of ``stdin`` answered on ``stdout``; returns how many were bad."""
    return batch.run(stdin, stdout, answer_lines, separators=(",", ":"))

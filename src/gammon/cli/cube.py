"""``gammon cube``: cube hints for a position with its cube and score, one or a batch."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from ..bots import Bot
from ..players import DEFAULT_HINT_PLAYER, Player, cube_hint, load_player
from ..cube.context import CubeContext
from ..evaluation import CubeDecision
from ..cube.met import MatchEquityError, MatchEquityTable
from ..errors import GammonError
from ..state import GameState
from . import batch
from .positions import read_state

#: gnubg's cube decisions are 2-ply; ours default to the same depth with the neural net.
DEFAULT_CUBE_PLAYER = DEFAULT_HINT_PLAYER


class CubeInputError(GammonError, ValueError):
    """A command line without a position, or with one too many."""


def register(subparsers: argparse._SubParsersAction) -> None:
    cube = subparsers.add_parser(
        "cube",
        help="cube hint: double, take or pass",
        description="The cube decision of the side on roll of POSITION (GNU Backgammon ID with Match ID, "
        "XGID or BPN: anything that carries cube and score): the equities of no double, double/take and "
        "double/pass, per cube (match: GNU Backgammon's money-like scale), and the proper action. "
        "With --batch, read one position per line from stdin (POSID:MATCHID) and write one JSON object "
        "per line: double, take, no_double, double_take, double_pass, action and input (the line); a bad "
        "line gets {error, line, input} and the rest go on; blank lines are skipped.",
    )
    cube.add_argument("position", metavar="POSITION", nargs="?", help="POSID:MATCHID, XGID or BPN")
    cube.add_argument("--player", default=DEFAULT_CUBE_PLAYER, help=f"NAME[:PLY] that evaluates (default {DEFAULT_CUBE_PLAYER})")
    cube.add_argument("--batch", action="store_true", help="read positions from stdin, write JSON lines")
    cube.add_argument("--met", default="kazaross-xg2", metavar="TABLE",
                      help="match equity table: kazaross-xg2 (default), gammon (built from first principles "
                      "by gammon.cube.construct) or a JSON file in met_kazaross_xg2.json's layout")
    cube.add_argument("--json", action="store_true", help="one JSON object (the batch fields)")
    cube.set_defaults(handler=_cube)


def read_met(text: str) -> MatchEquityTable:
    """``--met``: a table by name or a JSON file."""
    if text.lower() in ("kazaross-xg2", "kazaross", "default"):
        return MatchEquityTable.default()
    if text.lower() == "gammon":
        from ..cube.construct import construct_met

        return construct_met()
    path = Path(text)
    try:
        if path.exists() and not path.is_file():
            raise CubeInputError(f"--met {text!r}: not a regular file")
        content = path.read_bytes().decode("utf-8", errors="replace")
    except OSError as error:
        raise CubeInputError(f"--met {text!r}: not kazaross-xg2, gammon or a readable file ({error.strerror})") from None
    try:
        return MatchEquityTable.from_json(content, name=path.stem)
    except MatchEquityError as error:
        raise CubeInputError(f"--met {text!r}: {error}") from None


def decision_for(state: GameState, player: Player, met: MatchEquityTable | None = None) -> tuple[CubeContext, CubeDecision]:
    """The cube decision of the side on roll of ``state`` (a pending double: the doubler's)."""
    return CubeContext.from_state(state, met), cube_hint(state, player, met)


def describe(state: GameState, context: CubeContext, decision: CubeDecision, player: Player) -> str:
    """The decision in words and numbers, for people."""
    side = state.position.turn.name.capitalize()
    lines = [f"{side} on roll; {context.describe()}; {player.name}"]
    own = isinstance(player, Bot)  # an external engine reports its equities only
    if own:
        _, probabilities = player.cubeful.value(state.position.array(), context, player.ply)
        w, wg, wbg, lg, lbg = (100 * float(v) for v in probabilities)
        lines.append(f"Cubeless: win {w:.1f}% (gammon {wg:.1f}%, backgammon {wbg:.1f}%), "
                     f"lose {100 - w:.1f}% (gammon {lg:.1f}%, backgammon {lbg:.1f}%)")
    if state.dice is not None:
        lines.append("(the dice in the position are ignored: the cube is decided before rolling)")
    lines.append(str(decision))
    if decision.available:
        verb = "redouble" if decision.redouble else "double"
        advice = (f"{side} should {verb}" if decision.double else f"{side} should not {verb}")
        answer = {"take": "take", "pass": "pass", "beaver": "beaver"}[decision.response.value]
        lines.append(f"{advice}; if doubled, {state.position.turn.other.name.capitalize()} should {answer}.")
    resign = player.offer_resignation(state.position.array(), context) if own else None
    if resign is not None:
        kind = {1: "a single game", 2: "a gammon", 3: "a backgammon"}[resign]
        lines.append(f"{side} has nothing to play for: resigning {kind} gives nothing away.")
    return "\n".join(lines)


def _cube(args: argparse.Namespace) -> int:
    player = load_player(args.player)
    met = read_met(args.met)
    if args.batch:
        if args.position is not None:
            raise CubeInputError("--batch reads positions from stdin; give no POSITION")
        run_batch(sys.stdin, sys.stdout, player, met)
        return 0
    if args.position is None:
        raise CubeInputError("POSITION: missing (or use --batch)")
    state = read_state(args.position)
    context, decision = decision_for(state, player, met)
    if args.json:
        print(json.dumps(decision.as_json()))
    else:
        print(describe(state, context, decision, player))
    return 0


def answer_line(number: int, text: str, player: Player, met: MatchEquityTable | None = None) -> dict[str, Any]:
    """The answer to one batch line (see :mod:`gammon.cli.batch`)."""
    try:
        _, decision = decision_for(GameState.parse(text.strip()), player, met)
    except GammonError as error:
        return batch.error(str(error), number, text)
    return batch.answer(decision.as_json(), text)


def run_batch(stdin: IO[bytes] | IO[str] | Iterable[str], stdout: IO[str], player: Player,
              met: MatchEquityTable | None = None) -> int:
    """``gammon cube --batch``: one answer per non-blank line, each flushed as it is found; returns how many were bad."""
    return batch.run(stdin, stdout, batch.each_line(lambda number, text: answer_line(number, text, player, met)),
                     one_at_a_time=True)

"""``gammon hint`` and ``gammon duel``: the bots from the shell (``gammon train`` is :mod:`.train`)."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..players import LEVELS, check_variant, parse_player, player_names
from ..cube.context import CubeContext
from ..errors import GammonError, InvalidPlayerError
from ..evaluation import NOT_EVALUATED
from ..notation import whole_number
from ..variant import Variant, VariantError
from .positions import read_dice, read_state

if TYPE_CHECKING:
    from ..evaluation import Hint

PLAYER_HELP = (
    "NAME[:PLY][:LEVEL]: NAME one of {names}, PLY 0-3, LEVEL one of {levels}"
)


#: The cube limit of money duels with the cube unless --cube-limit says otherwise.
DUEL_CUBE_LIMIT = 64


class DuelArgumentError(GammonError, ValueError):
    """A duel or hint argument out of range; the message names it."""


def count(minimum: int = 1, *, even: bool = False) -> Callable[[str], int]:
    """An argparse ``type`` for a count: a whole number >= ``minimum`` (and even, if asked).

    Anything else is refused as argparse refuses a bad value: usage, the option, what it
    expected, exit status 2.
    """
    expected = f"{'an even' if even else 'a'} whole number >= {minimum}"

    def parse(text: str) -> int:
        value = whole_number(text)
        if value is None or value < minimum or (even and value % 2):
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
        return value

    return parse


def writable_file(option: str, text: str) -> Path:
    """The path of a file a command will write, its folder made now (not after hours of work)."""
    path = Path(text)
    if path.is_dir():
        raise DuelArgumentError(f"{option} {text}: is a folder; {option} names a file (in that folder, if you like)")
    _make_folder(option, text, path.parent)
    return path


def writable_folder(option: str, text: str) -> Path:
    """A folder a command will write into, made now if missing."""
    return _make_folder(option, text, Path(text))


def _make_folder(option: str, text: str, folder: Path) -> Path:
    if folder.exists() and not folder.is_dir():
        raise DuelArgumentError(f"{option} {text}: {folder} is a file, not a folder; choose another path")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise DuelArgumentError(
            f"{option} {text}: cannot make the folder {folder} ({error.strerror or error}); choose another path"
        ) from None
    return folder


def register(subparsers: argparse._SubParsersAction) -> None:
    player_help = PLAYER_HELP.format(names=", ".join(player_names()), levels=", ".join(LEVELS))

    hint = subparsers.add_parser(
        "hint",
        help="rank every legal play of a roll",
        description="Rank every legal play of POSITION for the roll D1 D2 (or the position's own dice): "
        "cubeful equity with the position's cube and score (match: MWC shown as equity per cube; a bare "
        "Position ID is a money game, cube centred), the five probabilities (win, win gammon, win backgammon, lose gammon, lose "
        "backgammon, for the side to act after its play) and the equity lost against the best.",
    )
    hint.add_argument("position", metavar="POSITION", help="BPN, XGID, GNUbg ID, FIBS board or Position ID")
    hint.add_argument("dice", metavar="DIE", nargs="*", help="two dice 1-6")
    hint.add_argument("--player", default=None, help=f"the evaluating player (default nn:2); {player_help}")
    hint.add_argument("--limit", type=count(1), default=None, metavar="N", help="show only the best N plays")
    hint.add_argument("--json", action="store_true", help="one JSON object")
    hint.set_defaults(handler=_hint)

    duel = subparsers.add_parser(
        "duel",
        help="play two players against each other",
        description="Games between A and B with duplicate dice (each dice sequence played twice, seats "
        "swapped). Cubeless money games by default; --cube adds the doubling cube (and resignations), "
        "--match N plays N-point matches with the cube and the Crawford rule. Prints A's points per "
        "game, or A's share of the matches, with a 95% confidence interval.",
    )
    duel.add_argument("a", metavar="A", help=player_help)
    duel.add_argument("b", metavar="B", help=player_help)
    duel.add_argument("--games", type=int, default=None,
                      help="number of games, or of matches with --match; even (default 1000 games, 100 matches)")
    duel.add_argument("--seed", type=int, default=0, help="dice and noise seed (default 0)")
    duel.add_argument("--workers", type=int, default=None, help="processes (default: every core)")
    duel.add_argument("--cube", action="store_true", help="money games with the doubling cube")
    duel.add_argument("--match", type=int, default=None, metavar="N", help="N-point matches (implies --cube)")
    duel.add_argument("--jacoby", action="store_true", help="money play: the Jacoby rule (implies --cube)")
    duel.add_argument("--beavers", action="store_true", help="money play: beavers allowed (implies --cube)")
    duel.add_argument("--cube-limit", type=int, default=None, metavar="N",
                      help=f"money play: the largest cube, a power of two, or 0 for none (implies --cube; "
                      f"default {DUEL_CUBE_LIMIT}: two bots that both misjudge a position redouble each other "
                      "without end, and a few such games would decide the mean)")
    duel.add_argument("--variant", default="standard",
                      help="the rules: standard, or a comma-separated list of nackgammon (its starting position) "
                      "and two-move-doubles (a double is played as two moves, not four); gammon's own players only")
    duel.add_argument("--json", action="store_true", help="print one JSON object")
    duel.set_defaults(handler=_duel)



def _hint(args: argparse.Namespace) -> int:
    from ..players import DEFAULT_HINT_PLAYER, hint, load_player

    state = read_state(args.position)
    d1, d2 = read_dice(args.dice, state)
    player = load_player(args.player or DEFAULT_HINT_PLAYER)
    context = CubeContext.from_state(state)
    try:
        hints = hint(state, d1, d2, player)
    finally:
        player.close()
    depths = _depths(hints)
    if args.limit is not None:
        hints = hints[: args.limit]
    if args.json:
        print(json.dumps({"position": state.position.position_id(), "dice": [d1, d2], "player": player.name,
                          "context": context.describe(), "plays": [h.as_dict() for h in hints]}))
        return 0
    print(f"{state.position.position_id()} {d1}-{d2}, {player.name}, {context.describe()}; "
          "cubeful equity per cube; probabilities: win wg wbg - lose lg lbg")
    width = max(len(h.play_text()) for h in hints)
    for h in hints:
        p = h.probabilities
        equity = "     -" if h.equity is None else f"{h.equity:+.3f}"
        loss = "" if h.rank == 1 or h.loss is None else f"({-h.loss:+.3f})"
        chances = NOT_EVALUATED if p is None else (
            f"{p.win:.3f} {p.win_gammon:.3f} {p.win_backgammon:.3f} - {p.lose:.3f} {p.lose_gammon:.3f} {p.lose_backgammon:.3f}")
        print(f"{h.rank:3d}. {h.play_text():<{width}}  {h.ply}-ply  {equity} {loss:>8}  {chances}")
    if depths:
        print(depths)
    return 0


def _depths(hints: list[Hint]) -> str:
    """What a ranking of mixed depths compares, said in words (empty when every play has one depth).

    The search scores every play at 0 ply and takes only the candidates its move filters keep
    deeper (GNU Backgammon's way), so the ply column differs from play to play.
    """
    counts = Counter(h.ply for h in hints)
    if len(counts) < 2:
        return ""
    parts = ", ".join(f"{n} at {ply}-ply" for ply, n in sorted(counts.items(), reverse=True))
    return (f"Depths: {parts}. Every play is scored at 0 ply and only the best candidates deeper; "
            "a deeper play ranks first, and a loss across depths compares a shallower estimate with a deeper value.")


def _duel(args: argparse.Namespace) -> int:
    from ..duel import duel, match_duel
    from ..cube.met import MAX_AWAY

    money_rules = args.jacoby or args.beavers or args.cube_limit is not None
    what = "--games"
    if args.match is not None:
        if not 1 <= args.match <= MAX_AWAY:
            raise DuelArgumentError(f"--match {args.match}: a match length of 1-{MAX_AWAY} points")
        if money_rules:
            raise DuelArgumentError("--jacoby, --beavers and --cube-limit are money-play rules: not with --match")
        what = "--games (matches)"
    games = args.games if args.games is not None else (100 if args.match is not None else 1000)
    if games < 2 or games % 2:
        raise DuelArgumentError(f"{what} {games}: an even number >= 2 (each dice sequence is played twice)")
    if args.seed < 0:
        raise DuelArgumentError(f"--seed {args.seed}: must be >= 0")
    if args.workers is not None and args.workers < 1:
        raise DuelArgumentError(f"--workers {args.workers}: must be >= 1")
    cube = args.cube or money_rules
    limit = (DUEL_CUBE_LIMIT if cube else None) if args.cube_limit is None else (args.cube_limit or None)
    if limit is not None and (limit < 1 or limit & (limit - 1)):
        raise DuelArgumentError(f"--cube-limit {args.cube_limit}: a power of two (1, 2, 4, 8, ...) or 0 for no limit")
    try:
        variant = Variant.parse(args.variant)
    except VariantError as error:
        raise DuelArgumentError(f"--variant: {error}") from None
    for name in (args.a, args.b):  # fail before starting workers
        try:
            check_variant(parse_player(name), variant)
        except InvalidPlayerError as error:
            raise DuelArgumentError(f"--variant: {error}") from None
    progress = sys.stderr.isatty()
    if args.match is not None:
        result = match_duel(args.a, args.b, games, args.match, args.seed, args.workers, progress, variant=variant)
    else:
        result = duel(args.a, args.b, games, args.seed, args.workers, progress, cube=cube,
                      jacoby=args.jacoby, beavers=args.beavers, cube_limit=limit, variant=variant)
    for note in result.notes:
        print(f"gammon duel: {note}", file=sys.stderr)
    print(result.to_json() if args.json else result.summary())
    return 0

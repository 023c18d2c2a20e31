"""``gammon hint``, ``gammon duel`` and ``gammon train simple``: the bots from the shell."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..bots.players import LEVELS, parse_player, player_names
from ..errors import GammonError
from .positions import read_dice, read_state

PLAYER_HELP = (
    "NAME[:PLY][:LEVEL]: NAME one of {names} (nn once built), PLY 0-3, LEVEL one of {levels}"
)


class DuelArgumentError(GammonError, ValueError):
    """A duel or training argument out of range; the message names it."""


def register(subparsers: argparse._SubParsersAction) -> None:
    player_help = PLAYER_HELP.format(names=", ".join(player_names()), levels=", ".join(LEVELS))

    hint = subparsers.add_parser(
        "hint",
        help="rank every legal play of a roll",
        description="Rank every legal play of POSITION for the roll D1 D2 (or the position's own dice): "
        "equity, the five probabilities (win, win gammon, win backgammon, lose gammon, lose "
        "backgammon, for the side to act after its play) and the equity lost against the best.",
    )
    hint.add_argument("position", metavar="POSITION", help="BPN, XGID, GNUbg ID, FIBS board or Position ID")
    hint.add_argument("dice", metavar="DIE", nargs="*", help="two dice 1-6")
    hint.add_argument("--player", default=None, help=f"the evaluating player (default pubeval:2); {player_help}")
    hint.add_argument("--limit", type=int, default=0, help="show only the best N plays")
    hint.add_argument("--json", action="store_true", help="one JSON object")
    hint.set_defaults(handler=_hint)

    duel = subparsers.add_parser(
        "duel",
        help="play two players against each other",
        description="Cubeless money games between A and B with duplicate dice (each dice sequence played "
        "twice, seats swapped). Prints A's points per game with a 95% confidence interval.",
    )
    duel.add_argument("a", metavar="A", help=player_help)
    duel.add_argument("b", metavar="B", help=player_help)
    duel.add_argument("--games", type=int, default=1000, help="number of games, even (default 1000)")
    duel.add_argument("--seed", type=int, default=0, help="dice and noise seed (default 0)")
    duel.add_argument("--workers", type=int, default=None, help="processes (default: every core)")
    duel.add_argument("--json", action="store_true", help="print one JSON object")
    duel.set_defaults(handler=_duel)

    train = subparsers.add_parser("train", help="train an evaluator")
    which = train.add_subparsers(dest="evaluator", metavar="EVALUATOR")
    simple = which.add_parser(
        "simple",
        help="hill-climb the article's heuristic by self-play",
        description="Hill climbing: a nudged candidate replaces the incumbent when it wins more than 51% "
        "of GAMES duplicate-dice self-play games. Resumable: rerun the same command to continue "
        "from --state. Writes the calibrated weights to --output.",
    )
    simple.add_argument("--iterations", type=int, default=200, help="total iterations (default 200)")
    simple.add_argument("--games", type=int, default=3000, help="games per candidate, even (default 3000)")
    simple.add_argument("--seed", type=int, default=0)
    simple.add_argument("--state", default="simple-training.json", help="resumable state file")
    simple.add_argument("--output", default="simple.json", help="where to write the trained weights")
    simple.add_argument("--calibration-games", type=int, default=20000)
    simple.set_defaults(handler=_train_simple)
    train.set_defaults(handler=lambda args: (train.print_help(), 2)[1])


def _hint(args: argparse.Namespace) -> int:
    from ..bots.hint import DEFAULT_HINT_PLAYER, hint
    from ..bots.players import Player

    state = read_state(args.position)
    d1, d2 = read_dice(args.dice, state)
    player = Player.from_name(args.player or DEFAULT_HINT_PLAYER)
    hints = hint(state.position, d1, d2, player)
    if args.limit > 0:
        hints = hints[: args.limit]
    if args.json:
        print(json.dumps({"position": state.position.position_id(), "dice": [d1, d2], "player": player.name,
                          "plays": [h.as_dict() for h in hints]}))
        return 0
    print(f"{state.position.position_id()} {d1}-{d2}, {player.name}; probabilities: win wg wbg - lose lg lbg")
    width = max(len(h.play_text()) for h in hints)
    for h in hints:
        p = h.probabilities
        loss = "" if h.rank == 1 else f"({-h.loss:+.3f})"
        print(
            f"{h.rank:3d}. {h.play_text():<{width}}  {h.ply}-ply  {h.equity:+.3f} {loss:>8}  "
            f"{p.win:.3f} {p.win_gammon:.3f} {p.win_backgammon:.3f} - {p.lose:.3f} {p.lose_gammon:.3f} {p.lose_backgammon:.3f}"
        )
    return 0


def _duel(args: argparse.Namespace) -> int:
    from ..bots.duel import duel

    if args.games < 2 or args.games % 2:
        raise DuelArgumentError(f"--games {args.games}: an even number >= 2 (each dice sequence is played twice)")
    if args.seed < 0:
        raise DuelArgumentError(f"--seed {args.seed}: must be >= 0")
    parse_player(args.a), parse_player(args.b)  # fail before starting workers
    result = duel(args.a, args.b, args.games, args.seed, args.workers, progress=sys.stderr.isatty())
    print(result.to_json() if args.json else result.summary())
    return 0


def _train_simple(args: argparse.Namespace) -> int:
    from ..train.simple import train

    if args.games < 2 or args.games % 2:
        raise DuelArgumentError(f"--games {args.games}: an even number >= 2")
    try:
        state, weights = train(args.state, args.iterations, args.games, args.seed, True, args.calibration_games)
    except ValueError as error:
        raise DuelArgumentError(str(error)) from None
    Path(args.output).write_text(weights.to_json() + "\n")
    print(f"{state.iteration} iterations, {len(state.accepted)} accepted; weights written to {args.output}")
    return 0

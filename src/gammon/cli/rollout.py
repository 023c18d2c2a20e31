"""``gammon rollout``: a position played out many times, with standard errors (:mod:`gammon.rollout`)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
from functools import partial

from ..bots import MAX_PLY
from ..cube.context import CubeContext
from ..errors import GammonError
from ..notation import whole_number
from ..players import load_player, parse_player
from .bots import count
from .positions import read_state

DEFAULT_ROLLOUT_PLAYER = "nn"


class RolloutArgumentError(GammonError, ValueError):
    """A rollout argument that cannot be used; the message names it."""


def _ply(text: str) -> int:
    value = whole_number(text, 0, MAX_PLY)
    if value is None:
        raise argparse.ArgumentTypeError(f"expected a ply 0-{MAX_PLY}, got {text!r}")
    return value


def _target(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"expected a standard error > 0 such as 0.005, got {text!r}")
    return value


def register(subparsers: argparse._SubParsersAction) -> None:
    rollout = subparsers.add_parser(
        "rollout",
        help="roll out a position: play it to the end many times",
        description="Play POSITION out TRIALS times for the side on roll (before its roll) with a bot's plays "
        "(and, with --cube, its cube decisions): quasi-random dice (every first roll equally often, second "
        "rolls stratified), luck adjustment against the bot's evaluator, optional truncation (valued by the "
        "evaluator, or exactly by the bear-off tables). Prints the five probabilities (win, win gammon, win "
        "backgammon, lose gammon, lose backgammon), the cubeless equity and, with --cube, the cubeful "
        "equity per cube (with the position's cube and score; a bare Position ID is money, cube centred), "
        "each with its standard error and 95%% confidence interval. The same seed gives the same result "
        "on any number of workers or Ray nodes.",
    )
    rollout.add_argument("position", metavar="POSITION", help="BPN, XGID, GNUbg ID, FIBS board or Position ID")
    rollout.add_argument("--trials", type=count(2), default=1296, metavar="N", help="trials (default 1296)")
    rollout.add_argument("--player", default=DEFAULT_ROLLOUT_PLAYER, metavar="NAME",
                         help=f"the bot that plays, one of gammon's own: NAME[:PLY][:LEVEL] (default {DEFAULT_ROLLOUT_PLAYER})")
    rollout.add_argument("--ply", type=_ply, default=None, metavar="P",
                         help=f"the bot's search depth 0-{MAX_PLY} (default: the player's, 0)")
    rollout.add_argument("--truncate", type=count(1), default=None, metavar="N", help="stop each trial after N turns")
    rollout.add_argument("--cube", action="store_true", help="cubeful: the cube in play, the bot's cube decisions")
    rollout.add_argument("--seed", type=count(0), default=0, metavar="S", help="dice seed (default 0)")
    rollout.add_argument("--se", type=_target, default=None, metavar="TARGET",
                         help="stop once the standard error of the (cubeful) equity is below TARGET")
    rollout.add_argument("--workers", type=count(1), default=None, metavar="N", help="processes (default: every core)")
    rollout.add_argument("--ray", default=None, metavar="auto|ADDRESS",
                         help="run the trials as Ray tasks on a cluster: HOST:PORT as 'ray start --head' prints "
                              "it, or auto (the one running here); RAY_AUTH_MODE=token sends Ray's token; "
                              "pip install gammon[ray]")
    rollout.add_argument("--json", action="store_true",
                         help="one JSON object: trials, probabilities, equity, cubeful_equity, std_error")
    rollout.set_defaults(handler=_rollout)


def _player_name(player: str, ply: int | None) -> str:
    spec = parse_player(player)
    if spec.external or spec.name == "rollout":
        raise RolloutArgumentError(f"--player {player}: rollouts play with one of gammon's own players "
                                   "(random, pubeval, simple, nn), not an engine or a rollout")
    return str(spec if ply is None else dataclasses.replace(spec, ply=ply))


def _rollout(args: argparse.Namespace) -> int:
    from ..rollout import rollout
    from ..workers import available_cores, ray_module

    state = read_state(args.position)
    name = _player_name(args.player, args.ply)
    if args.ray is not None:
        ray_module()  # Ray missing: say how to install it before any work
    workers = args.workers or available_cores()
    result = rollout(state, partial(load_player, name), trials=args.trials, truncate=args.truncate, cube=args.cube,
                     seed=args.seed, se=args.se, workers=workers, ray=args.ray, progress=sys.stderr.isatty())
    if args.json:
        print(json.dumps(result.as_dict()))
        return 0
    what = f"cubeful, {CubeContext.from_state(state).describe()}" if args.cube else "cubeless"
    print(f"{state.position.position_id()}: {state.position.turn.name.lower()} on roll, {result.trials} trials, "
          f"{name}, {what}" + (f", truncated after {args.truncate} turns" if args.truncate else ""))
    print(f"{'':<16}{'mean':>9}{'std err':>10}   95% CI")
    rows = list(zip(("win", "win gammon", "win backgammon", "lose gammon", "lose backgammon"),
                    result.probabilities.as_tuple(), result.std_error["probabilities"], result.ci95["probabilities"]))
    rows.append(("equity", result.equity, result.std_error["equity"], result.ci95["equity"]))
    if result.cubeful_equity is not None:
        rows.append(("cubeful equity", result.cubeful_equity, result.std_error["cubeful_equity"],
                     result.ci95["cubeful_equity"]))
    for label, mean, error, (low, high) in rows:
        print(f"{label:<16}{mean:>+9.4f}{error:>10.4f}   [{low:+.4f}, {high:+.4f}]")
    return 0

"""``gammon engine``: serve a player over UBGI on stdin/stdout."""

from __future__ import annotations

import argparse

from ..engine_server import DEFAULT_PLAYER, serve


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "engine",
        help="run a UBGI engine on stdin/stdout",
        description="Speak UBGI (both the v0.1 setoption and the v0.2 set/get/keys dialects) on stdin/stdout. "
        "The player is any NAME[:PLY][:LEVEL] (nn, pubeval:1, simple:advanced), gnubg:PLY for GNU Backgammon, "
        "or ubgi:CMD for another UBGI engine. See docs/ubgi.md.",
    )
    parser.add_argument("--player", default=DEFAULT_PLAYER,
                        help=f"the player that answers (default {DEFAULT_PLAYER}, at --ply)")
    parser.add_argument("--ply", type=int, default=None, choices=range(4), metavar="0-3",
                        help="search depth (default: the player's, or 2)")
    parser.set_defaults(handler=_engine)


def _engine(args: argparse.Namespace) -> int:
    return serve(args.player, args.ply)

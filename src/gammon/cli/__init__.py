"""The ``gammon`` command: one entry point, one module per group of subcommands.

Each module in :data:`COMMAND_MODULES` has ``register(subparsers)``, which adds its
subcommands with ``set_defaults(handler=...)``; a handler takes the parsed arguments and
returns the exit status.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from ..errors import GammonError

COMMAND_MODULES = [
    "gammon.cli.positions",  # show, convert, moves
    "gammon.cli.play",  # play: a terminal game
    "gammon.cli.bearoff",  # bearoff build / show / query
    "gammon.cli.bots",  # hint, duel, train
    "gammon.cli.cube",  # cube: cube hints
    "gammon.cli.engine",  # engine: UBGI engine on stdin/stdout
    "gammon.cli.ubgi_check",  # ubgi-check: UBGI conformance suite
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gammon", description="Backgammon positions, rules, notations and engines.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name == name:
                continue  # a command group not written yet
            raise
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    try:
        return int(handler(args) or 0)
    except GammonError as error:
        print(f"gammon: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())

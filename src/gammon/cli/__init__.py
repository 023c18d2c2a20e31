"""The ``gammon`` command: one entry point, one module per group of subcommands.

Each module named in :data:`COMMANDS` has ``register(subparsers)``, which adds its
subcommands with ``set_defaults(handler=...)``; a handler takes the parsed arguments and
returns the exit status.

Only the module of the command being run is imported: ``gammon convert`` never loads the
engines, and a command that needs no kernel never loads numba. ``gammon --help`` lists
every command from the table below without importing any.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Iterable

from ..errors import GammonError
from ..extras import missing_extra

#: Every command: the module that registers it and its line in ``gammon --help`` (the same
#: line as the module's ``help=``; tests/test_cli_startup.py keeps the two equal).
COMMANDS: dict[str, tuple[str, str]] = {
    "show": ("gammon.cli.positions", "draw a position"),
    "convert": ("gammon.cli.positions", "rewrite a position in another notation, or a match file in another format"),
    "moves": ("gammon.cli.positions", "list the legal plays of a roll"),
    "play": ("gammon.cli.play", "play backgammon in the terminal against a bot"),
    "bearoff": ("gammon.cli.bearoff", "build and query the bear-off tables"),
    "hint": ("gammon.cli.bots", "rank every legal play of a roll"),
    "duel": ("gammon.cli.bots", "play two players against each other"),
    "train": ("gammon.cli.train", "train an evaluator"),
    "cube": ("gammon.cli.cube", "cube hint: double, take or pass"),
    "rollout": ("gammon.cli.rollout", "roll out a position: play it to the end many times"),
    "analyse": ("gammon.cli.analyse", "judge every decision of a match record (.mat, SGF, .xg)"),
    "engine": ("gammon.cli.engine", "run a UBGI engine on stdin/stdout"),
    "ubgi-check": ("gammon.cli.ubgi_check", "check that an engine speaks UBGI, and to which compliance level"),
    "serve": ("gammon.cli.serve", "run the game server: accounts, matches, bots, ratings"),
    "verify-dice": ("gammon.cli.serve",
                    "regenerate every roll of a finished match from its seeds and replay it through the referee"),
}

#: The command modules, in the order of :data:`COMMANDS`.
COMMAND_MODULES = list(dict.fromkeys(module for module, _ in COMMANDS.values()))


class _Version(argparse.Action):
    """``--version``: the installed distribution's version, looked up only when asked for."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help="print gammon's version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            text = version("gammon")
        except PackageNotFoundError:
            text = "(not installed: run from a source tree)"
        print(f"gammon {text}")
        parser.exit()


def build_parser(commands: Iterable[str] | None = None) -> argparse.ArgumentParser:
    """The ``gammon`` parser with the modules of ``commands`` registered in full (all when None).

    Every other command is a placeholder that only lists its help line.
    """
    wanted = set(COMMANDS) if commands is None else {c for c in commands if c in COMMANDS}
    modules = [m for m in COMMAND_MODULES if any(COMMANDS[c][0] == m for c in wanted)]
    parser = argparse.ArgumentParser(prog="gammon", description="Backgammon positions, rules, notations and engines.")
    parser.add_argument("--version", action=_Version)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in modules:
        importlib.import_module(name).register(subparsers)
    for command, (module, text) in COMMANDS.items():
        if module not in modules:
            subparsers.add_parser(command, help=text, add_help=False)
    return parser


def command_of(argv: list[str]) -> str | None:
    """The command word of ``argv``: its first argument that is not an option (``gammon`` has no
    option taking a value)."""
    return next((word for word in argv if not word.startswith("-")), None)


def main(argv: list[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    command = command_of(argv)
    purpose = f"gammon {command}" if command in COMMANDS else "gammon"
    try:
        parser = build_parser([] if command is None else [command])
        args = parser.parse_args(argv)
        handler = getattr(args, "handler", None)
        if handler is None:
            parser.print_help()
            return 2
        return int(handler(args) or 0)
    except GammonError as error:
        print(f"gammon: {error}", file=sys.stderr)
        return 1
    except ImportError as error:  # an extra that is not installed: one line naming it, no traceback
        missing = missing_extra(error, purpose)
        if missing is None:
            raise
        print(f"gammon: {missing}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())

"""``gammon ubgi-check``: run the UBGI conformance suite against an engine command."""

from __future__ import annotations

import argparse
import json
import sys

from ..conformance import CheckResult, CheckSetupError, run_check


def register(subparsers: argparse._SubParsersAction) -> None:
    check = subparsers.add_parser(
        "ubgi-check",
        help="check that an engine speaks UBGI, and to which compliance level",
        description="Start the engine CMD (a command line; quote it if it has arguments), drive it over UBGI's "
        "raw wire and judge every reply with gammon's rules: handshake, options, positions in every form, whole "
        "games, tricky positions, bad input (level 0); cube, turn and deterministic answers (level 1); info "
        "lines, movetime and stop (level 2). Prints one 'PASS|FAIL|SKIP name: detail' line per check, then "
        "'compliance level: N' (-1: not even level 0) and 'checks: P passed, F failed, S skipped'. "
        "Exit status 0 when every level-0 check passes and the level is at least --require-level, 1 otherwise, "
        "2 when the engine cannot be started.",
    )
    check.add_argument("engine", metavar="CMD", nargs="+", help="the engine's command line, e.g. 'gammon engine'")
    check.add_argument("--games", type=int, default=4, metavar="N",
                       help="whole games the engine plays against itself (default 4)")
    check.add_argument("--seed", type=int, default=0, help="seed of the dice of those games (default 0)")
    check.add_argument("--timeout", type=float, default=10.0, metavar="S",
                       help="seconds to wait for each reply (default 10; until the engine's first search has answered, "
                       "at least 60: engines load and compile then)")
    check.add_argument("--positions", metavar="FILE",
                       help="positions to try instead of the built-in tricky ones, one notation per line")
    check.add_argument("--require-level", type=int, default=0, choices=(0, 1, 2), metavar="N",
                       help="exit 1 unless this compliance level is reached (default 0)")
    check.add_argument("--json", action="store_true", help="print one JSON object instead of lines")
    check.set_defaults(handler=_ubgi_check)


def _ubgi_check(args: argparse.Namespace) -> int:
    command: str | list[str] = args.engine[0] if len(args.engine) == 1 else list(args.engine)
    if args.games < 0 or args.timeout <= 0:
        print("gammon ubgi-check: --games must be >= 0 and --timeout > 0", file=sys.stderr)
        return 2

    def show(result: CheckResult) -> None:
        print(result.line(), flush=True)

    try:
        report = run_check(command, games=args.games, seed=args.seed, timeout=args.timeout,
                           positions=args.positions, on_result=None if args.json else show)
    except CheckSetupError as error:
        print(f"gammon ubgi-check: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report.as_dict()))
    else:
        for line in report.summary_lines():
            print(line)
    return 0 if report.ok(args.require_level) else 1

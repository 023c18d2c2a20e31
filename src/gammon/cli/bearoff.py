"""``gammon bearoff build | show | query``: the bear-off tables from the shell."""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

from ..errors import GammonError
from ..notation import whole_number
from . import batch

#: Counts on a query line: separated by spaces or commas, optionally in brackets.
_SEPARATORS = re.compile(r"[\s,;]+")


class BearoffArgumentError(GammonError, ValueError):
    """A command-line argument or query line that does not parse; the message names it."""


def register(subparsers: argparse._SubParsersAction) -> None:
    group = subparsers.add_parser(
        "bearoff",
        help="build and query the bear-off tables",
        description="Exact bear-off tables: one-sided (rolls to bear off) and two-sided (winning chances).",
    )
    commands = group.add_subparsers(dest="bearoff_command", metavar="SUBCOMMAND")

    build = commands.add_parser(
        "build",
        help="build tables (resumes an interrupted build)",
        description="Build bear-off tables with a progress bar. Without options, the default pair: "
        "the 6-point one-sided and the 6x6 two-sided table. Ctrl-C saves the work done; running the "
        "same command again resumes it.",
    )
    build.add_argument("--onesided", type=int, metavar="P", help="one-sided table over P points (1-10)")
    build.add_argument("--twosided", type=int, metavar="C", help="two-sided table for up to C checkers a side (1-12)")
    build.add_argument("--out", type=Path, metavar="DIR",
                       help="folder for the tables, made if missing (default: the user cache)")
    build.add_argument("--force", action="store_true", help="rebuild tables that are already there")
    build.add_argument("--quiet", action="store_true", help="no progress bar")
    build.set_defaults(handler=_build)

    show = commands.add_parser(
        "show",
        help="expected rolls, distribution and winning chance of a position",
        description="Describe a bear-off position: each side's expected rolls and distribution, and "
        "the winning chance of the side on roll.",
    )
    show.add_argument("position", metavar="POSITION", help="any notation gammon reads (Position ID, XGID, ...)")
    show.add_argument("--tables", type=Path, metavar="DIR", help="read tables from DIR (default: the user cache)")
    show.set_defaults(handler=_show)

    query = commands.add_parser(
        "query",
        help="look up checker counts, one JSON line each",
        description="With --batch, read lines of 6 checker counts (points 1-6, ace point first) or 12 "
        "(the side on roll, then its opponent) from stdin and write one JSON line each, with the line "
        "as input; a bad line gets {error, line, input} and the rest go on; blank lines are skipped. "
        "Without --batch, look up COUNTS.",
    )
    query.add_argument("counts", metavar="COUNT", nargs="*", help="6 or 12 checker counts")
    query.add_argument("--batch", action="store_true", help="read lines from stdin")
    query.add_argument("--tables", type=Path, metavar="DIR", help="read tables from DIR (default: the user cache)")
    query.set_defaults(handler=_query)

    group.set_defaults(handler=lambda args: (group.print_help(), 2)[1])


# -- build -----------------------------------------------------------------------------------
def _build(args: argparse.Namespace) -> int:
    from ..bearoff import defaults, onesided, twosided

    jobs: list[tuple[str, Path, Any]] = []
    if args.out is not None and args.out.exists() and not args.out.is_dir():
        raise BearoffArgumentError(
            f"--out {args.out}: a file, not a folder; --out names the folder the tables go into (made if missing)"
        )
    folder = args.out or defaults.cache_dir()
    if args.onesided is None and args.twosided is None:
        args.onesided, args.twosided = defaults.DEFAULT_POINTS, defaults.DEFAULT_CHECKERS
    if args.onesided is not None:
        if not 1 <= args.onesided <= onesided.MAX_POINTS:
            raise BearoffArgumentError(f"--onesided {args.onesided}: expected 1 to {onesided.MAX_POINTS} points")
        path = folder / onesided.table_name(args.onesided)
        jobs.append(
            (
                f"one-sided {args.onesided}x15",
                path,
                lambda p, progress, n=args.onesided: onesided.build(p, n, progress=progress),
            )
        )
    if args.twosided is not None:
        if not 1 <= args.twosided <= twosided.MAX_CHECKERS:
            raise BearoffArgumentError(f"--twosided {args.twosided}: expected 1 to {twosided.MAX_CHECKERS} checkers")
        path = folder / twosided.table_name(args.twosided)
        jobs.append(
            (
                f"two-sided 6x{args.twosided}",
                path,
                lambda p, progress, n=args.twosided: twosided.build(p, n, progress=progress),
            )
        )
    for label, path, run in jobs:
        with defaults.build_lock(path):
            if path.exists() and not args.force:
                print(f"{label}: {path} is already built ({path.stat().st_size:,} bytes); --force rebuilds it")
                continue
            update, close = defaults.progress_bar(label, disable=True if args.quiet else None)
            began = time.perf_counter()
            try:
                run(path, update)
            except KeyboardInterrupt:
                close()
                print(
                    f"\n{label}: interrupted; the work so far is saved, run the same command to resume", file=sys.stderr
                )
                return 130
            finally:
                close()
            print(f"{label}: {path} ({path.stat().st_size:,} bytes) in {time.perf_counter() - began:.2f} s")
    return 0


# -- tables ----------------------------------------------------------------------------------
def _largest(folder: Path, pattern: str) -> Path | None:
    """The table in ``folder`` matching ``pattern`` (one ``*``) with the largest size number."""
    found = []
    for path in folder.glob(pattern):
        number = path.name[pattern.index("*") : len(path.name) - (len(pattern) - pattern.index("*") - 1)]
        size = whole_number(number)
        if size is not None:
            found.append((size, path))
    return max(found)[1] if found else None


def _evaluator(folder: Path | None):
    """An evaluator over the largest tables built in ``folder`` (default: the cache).

    Without ``--tables``, missing default tables are built on first use; with it, they
    must be there.
    """
    from ..bearoff import BearoffEvaluator, OneSidedTable, TwoSidedTable, defaults, onesided, twosided

    root = folder if folder is not None else defaults.cache_dir()
    one = _largest(root, "onesided-*x15.bearoff") if root.is_dir() else None
    two = _largest(root, "twosided-6x*.bearoff") if root.is_dir() else None
    if folder is not None:
        one = one or folder / onesided.table_name(defaults.DEFAULT_POINTS)
        two = two or folder / twosided.table_name(defaults.DEFAULT_CHECKERS)
    return BearoffEvaluator(
        OneSidedTable(one) if one is not None else None, TwoSidedTable(two) if two is not None else None
    )


def _read_position(text: str):
    from ..position import Position
    from ..state import GameState

    parse = getattr(GameState, "parse", None)
    try:
        if parse is not None:
            return parse(text).position
        return Position(text.strip())
    except GammonError as error:
        raise BearoffArgumentError(f"POSITION {text!r}: {error}") from None


# -- show ------------------------------------------------------------------------------------
def _format_dist(dist: dict[int, float]) -> str:
    return "  ".join(f"{n}: {100 * p:.2f}%" for n, p in sorted(dist.items()) if p >= 5e-5) or "-"


def _show(args: argparse.Namespace) -> int:
    from ..bearoff import FIRST_OFF, counts_of

    position = _read_position(args.position)
    evaluator = _evaluator(args.tables)
    board = position.array()
    try:
        mover, opponent = counts_of(board, evaluator.points)
    except GammonError:
        raise BearoffArgumentError(
            f"POSITION {args.position!r} is not a bear-off position: every checker of both sides must be "
            f"on its points 1-{evaluator.points}, none on the bar"
        ) from None
    table = evaluator.onesided
    names = (f"{position.turn.name.lower()} (on roll)", f"{position.turn.other.name.lower()}")
    out = sys.stdout
    for name, counts in zip(names, (mover, opponent)):
        x = table.index(counts)
        mean = table.mean_rolls(x)
        print(
            f"{name}: points 1-{len(counts)} {' '.join(map(str, counts))}, {sum(counts)} checkers, "
            f"{sum((i + 1) * c for i, c in enumerate(counts))} pips",
            file=out,
        )
        print(f"  expected rolls {mean:.4f} (EPC {mean * 49 / 6:.2f} pips)", file=out)
        print(f"  rolls to bear off:  {_format_dist(table.distribution(x))}", file=out)
        if sum(counts) == 15:
            print(
                f"  rolls to first off: {_format_dist(table.distribution(x, FIRST_OFF))} "
                f"(expected {table.mean_rolls_first_off(x):.4f})",
                file=out,
            )
    result = _position_result(evaluator, mover, opponent)
    method = "exact, two-sided table" if result["method"] == "two-sided" else "one-sided approximation"
    print(
        f"{names[0]} wins {100 * result['p_win']:.2f}% ({method}); cubeless equity {result['cubeless_equity']:+.4f}",
        file=out,
    )
    if result["method"] == "two-sided":
        print(
            f"  money, cube value 1, rolling without doubling: owned {result['cubeful_equity_owned']:+.4f}, "
            f"centred {result['cubeful_equity_centred']:+.4f}, opponent owns {result['cubeful_equity_opponent_owns']:+.4f}",
            file=out,
        )
        print(
            f"  centred cube: {cube_action(result['cubeful_equity_centred'], result['cubeful_equity_opponent_owns'])}",
            file=out,
        )
    else:
        print(
            f"  gammons: wins {100 * result['p_win_gammon']:.2f}%, loses {100 * result['p_lose_gammon']:.2f}%", file=out
        )
    return 0


def cube_action(no_double: float, opponent_owns: float) -> str:
    """Money cube action from the stored values: double when doubling is worth at least rolling."""
    double_take = 2.0 * opponent_owns
    if min(double_take, 1.0) < no_double:
        return "no double"
    return "double, pass" if double_take >= 1.0 else "double, take"


# -- query -----------------------------------------------------------------------------------
def parse_counts(line: str) -> list[int]:
    """Checker counts from a query line: 6 or 12 integers, by spaces or commas, maybe in brackets."""
    text = line.strip().strip("[]()")
    if not text:
        raise BearoffArgumentError("empty line: expected 6 or 12 checker counts")
    tokens = [t for t in _SEPARATORS.split(text) if t]
    counts = []
    for token in tokens:
        # Only ASCII digits: int() would also read "٣" and "1_0"; a minus sign is read to be refused below.
        value = whole_number(token.removeprefix("-"))
        if value is None:
            raise BearoffArgumentError(f"{line.strip()[:200]!r}: counts must be whole numbers")
        counts.append(-value if token.startswith("-") else value)
    if len(counts) not in (6, 12):
        raise BearoffArgumentError(f"{line.strip()[:200]!r}: expected 6 or 12 checker counts, got {len(counts)}")
    for side, part in (("", counts[:6]), ("opponent's ", counts[6:])):
        if any(c < 0 for c in part):
            raise BearoffArgumentError(f"{line.strip()[:200]!r}: {side}counts must not be negative")
        if sum(part) > 15:
            raise BearoffArgumentError(f"{line.strip()[:200]!r}: {side}counts hold {sum(part)} checkers; at most 15")
    if len(counts) == 12:
        # A side with no checker left has borne them all off: that game is over, not a race to ask about.
        for side, part in (("the side on roll", counts[:6]), ("the opponent", counts[6:])):
            if not any(part):
                raise BearoffArgumentError(f"{line.strip()[:200]!r}: {side} has no checkers left, so the game is "
                                           "over; a race needs checkers on both sides")
    return counts


def _onesided_result(table: Any, counts: list[int]) -> dict[str, Any]:
    from ..bearoff import FIRST_OFF

    x = table.index(counts)
    return {
        "counts": counts,
        "mean_rolls": table.mean_rolls(x),
        "dist": {str(n): p for n, p in table.distribution(x).items()},
        "mean_rolls_first_off": table.mean_rolls_first_off(x),
        "dist_first_off": {str(n): p for n, p in table.distribution(x, FIRST_OFF).items()},
    }


def _position_result(
    evaluator: Any, mover: tuple[int, ...] | list[int], opponent: tuple[int, ...] | list[int]
) -> dict[str, Any]:
    """Winning chances of the side on roll: exact from the two-sided table where it covers."""
    import numpy as np

    ts = evaluator.twosided
    mover, opponent = list(mover), list(opponent)
    if ts.covers(mover, opponent):
        cubeless, owned, centred, opponent_owns = ts.equities(mover, opponent)
        return {
            "p_win": (1.0 + cubeless) / 2.0,
            "cubeless_equity": cubeless,
            "cubeful_equity_owned": owned,
            "cubeful_equity_centred": centred,
            "cubeful_equity_opponent_owns": opponent_owns,
            "method": "two-sided",
        }
    board = np.zeros(26, np.int8)
    for p, c in enumerate(mover):
        board[p + 1] = c
    for p, c in enumerate(opponent):
        board[24 - p] = -c
    win, win_gammon, _, lose_gammon, _ = evaluator.on_roll(board).tolist()
    return {
        "p_win": win,
        "cubeless_equity": 2.0 * win - 1.0 + win_gammon - lose_gammon,
        "cubeful_equity_owned": None,
        "cubeful_equity_centred": None,
        "cubeful_equity_opponent_owns": None,
        "p_win_gammon": win_gammon,
        "p_lose_gammon": lose_gammon,
        "method": "one-sided",
    }


def answer(evaluator: Any, line: str) -> dict[str, Any]:
    """The JSON object for one query line's counts; BearoffArgumentError names a bad line."""
    counts = parse_counts(line)
    if len(counts) == 6:
        return _onesided_result(evaluator.onesided, counts)
    result: dict[str, Any] = {"counts": counts}
    result.update(_position_result(evaluator, counts[:6], counts[6:]))
    return result


def _reply(evaluator: Any, number: int, text: str) -> dict[str, Any]:
    """The answer to line ``number`` of a query, an error object for a bad one."""
    try:
        return batch.answer(answer(evaluator, text), text)
    except GammonError as error:
        return batch.error(str(error), number, text)


def run_batch(evaluator: Any, source: IO[bytes] | IO[str] | Iterable[str], sink: IO[str]) -> int:
    """Answer every non-blank line of ``source`` (see :mod:`gammon.cli.batch`); returns how many were bad."""
    return batch.run(source, sink, batch.each_line(lambda number, text: _reply(evaluator, number, text)))


def _query(args: argparse.Namespace) -> int:
    evaluator = _evaluator(args.tables)
    if args.batch:
        if args.counts:
            raise BearoffArgumentError("give counts either as arguments or, with --batch, on stdin")
        run_batch(evaluator, sys.stdin, sys.stdout)
        return 0
    if not args.counts:
        raise BearoffArgumentError("no counts: give 6 or 12 checker counts, or --batch to read lines from stdin")
    result = _reply(evaluator, 1, " ".join(args.counts))  # as the first line of a batch
    print(json.dumps(result))
    return 1 if "error" in result else 0

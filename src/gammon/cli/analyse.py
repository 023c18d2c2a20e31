"""``gammon analyse``: every decision of a match record judged, as a table, JSON or an HTML report."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Iterator
from typing import Any

from ..errors import GammonError, InvalidPlayerError
from ..position import Color


class AnalyseArgumentError(GammonError, ValueError):
    """A command line that asks for what cannot be done (a ply for an engine command, an unwritable report)."""


def register(subparsers: argparse._SubParsersAction) -> None:
    from ..analysis.core import DEFAULT_ANALYST

    command = subparsers.add_parser(
        "analyse",
        help="judge every decision of a match record (.mat, SGF, .xg)",
        description="Read FILE (any match file gammon reads, by its content: GNU Backgammon/Jellyfish .mat and the "
        "sites' .txt exports, SGF, eXtreme Gammon's .xg; what the reader accommodated is told on standard error), "
        "replay it through the referee and judge "
        "every checker play and cube decision with a player (cubeful, at the match score): each decision's "
        "error in equity per cube (EMG), marked doubtful / error / blunder above 0.03 / 0.06 / 0.12 as GNU "
        "Backgammon marks them; per player the checker and cube error totals, the error rates in mEMG, "
        "GNU Backgammon's rating label, luck and the luck-adjusted result. --json writes {players: {NAME: "
        "{checker_decisions, checker_error, checker_error_rate, cube_decisions, cube_error, error_rate, "
        "luck}}, decisions: [{game, move, player, kind, error, mark}]}; --html a self-contained report.",
    )
    command.add_argument("file", metavar="FILE", help="a match file (.mat, .txt, .sgf, .xg)")
    command.add_argument("--player", default=DEFAULT_ANALYST,
                         help=f"the analyst, NAME[:PLY][:LEVEL] (default {DEFAULT_ANALYST}; gnubg:0 asks GNU Backgammon)")
    command.add_argument("--ply", type=int, default=None, metavar="N", help="the analyst's depth (overrides --player's)")
    command.add_argument("--json", action="store_true", help="write the analysis as one JSON object")
    command.add_argument("--html", metavar="OUT", help="write a self-contained HTML report to OUT")
    command.add_argument("--workers", type=int, default=None, metavar="N",
                         help="processes to share the work (default: every core for long matches)")
    command.set_defaults(handler=_analyse)


def analyst_name(player: str, ply: int | None) -> str:
    """``--player`` with ``--ply``'s depth put in."""
    from ..players import parse_player

    spec = parse_player(player)  # checked here, so a bad name is refused before any reading
    if ply is None:
        return player.strip()
    if spec.command:
        raise AnalyseArgumentError(f"--ply does not apply to an engine command ({player!r}): its depth is its own")
    if not 0 <= ply <= 3:
        raise InvalidPlayerError(f"--ply is 0-3, got {ply}")
    return str(dataclasses.replace(spec, ply=ply))


def _progress(results: Iterator[Any], total: int) -> Iterator[Any]:
    from tqdm import tqdm

    return iter(tqdm(results, total=total, unit="decision", desc="analysing", disable=None, file=sys.stderr))


def _analyse(args: argparse.Namespace) -> int:
    from ..analysis import analyse
    from ..analysis.html import report as html_report
    from .records import read_record

    name = analyst_name(args.player, args.ply)
    record = read_record(args.file)
    report = None
    if args.html:  # opened first: an unwritable report is said before the work, not after
        try:
            report = open(args.html, "w", encoding="utf-8")
        except OSError as error:
            raise AnalyseArgumentError(f"cannot write {args.html}: {error.strerror or error}") from None
    try:
        analysis = analyse(record, name, workers=args.workers, progress=_progress)
        if report is not None:
            report.write(html_report(analysis))
    finally:
        if report is not None:
            report.close()
    if args.json:
        json.dump(analysis.as_json(), sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    sides = (analysis.players[Color.WHITE], analysis.players[Color.BLACK])
    rows = [("", *(s.name for s in sides)),
            ("unforced checker plays", *(str(s.checker_decisions) for s in sides)),
            ("checker error EMG (rate mEMG)", *(f"{s.checker_error:.3f} ({s.checker_error_rate:.1f})" for s in sides)),
            ("cube decisions", *(str(s.cube_decisions) for s in sides)),
            ("cube error EMG (rate mEMG)", *(f"{s.cube_error:.3f} ({s.cube_error_rate:.1f})" for s in sides)),
            ("error rate mEMG", *(f"{s.error_rate:.1f}" for s in sides)),
            ("rating", *(s.rating for s in sides)),
            ("luck EMG", *(f"{s.luck:+.3f}" for s in sides)),
            ("luck-adjusted result", *(f"{s.luck_adjusted:+.3f}" for s in sides))]
    print(f"analysed by {analysis.analyst}")
    for row in rows:
        print(f"{row[0]:<31}{row[1]:>24}{row[2]:>24}")
    marked = [d for d in analysis.decisions if d.mark in ("error", "blunder")]
    for decision in marked:
        print(f"game {decision.game} move {decision.move:>3} {decision.player}: {decision.kind} {decision.played!r} "
              f"(best {decision.best!r}) -{decision.error:.3f} {decision.mark}")
    return 0

"""``gammon analyse``: every decision of a match record judged, as a table, JSON, analysed SGF or an HTML report."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Iterator
from typing import IO, Any

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
        "replay it through the referee and judge every checker play and cube decision with a player (cubeful, at "
        "the match score). Printed per player: XG's PR (equity lost per counted decision x 500) and GNU "
        "Backgammon's error rate in mEMG with its rating ladder (--style chooses the headline and the marks), the "
        "marked errors, the luck (its rate, rating and the luck-adjusted result), the cube breakdown and, in a "
        "match, the errors in match winning chances; then the marked decisions. A file that carries an analysis "
        "(XG's .xg, GNU Backgammon's analysed SGF) is shown as it is unless --reanalyse. docs/analysis.md defines "
        "every figure and the --json contract.",
    )
    command.add_argument("file", metavar="FILE", help="a match file (.mat, .txt, .sgf, .xg)")
    command.add_argument("--player", default=None,
                         help=f"the analyst, NAME[:PLY][:LEVEL] (default {DEFAULT_ANALYST}; gnubg:0 asks GNU Backgammon)")
    command.add_argument("--ply", type=int, default=None, metavar="N", help="the analyst's depth (overrides --player's)")
    command.add_argument("--style", choices=("xg", "gnubg"), default="xg",
                         help="the headline and the marks: XG's PR, error from 0.020 and blunder from 0.080 (default), "
                         "or GNU Backgammon's mEMG and ladder, doubtful above 0.03, error above 0.06, blunder above 0.12")
    command.add_argument("--verify", nargs="?", const="deeper", default=None, metavar="PLAYER",
                         help="judge again every decision charged 0.020 EMG or more with PLAYER (default: the analyst "
                         "one ply deeper) and charge its judgement: a noisy analyst's invented errors are cleared")
    command.add_argument("--reanalyse", action="store_true", help="judge a file that carries an analysis again")
    command.add_argument("--json", action="store_true",
                         help="write the analysis as one JSON object: every decision's candidates, probabilities, "
                         "equities and position ids, and each player's figures")
    command.add_argument("--html", metavar="OUT", help="write a self-contained HTML report to OUT")
    command.add_argument("--sgf", metavar="OUT",
                         help="write the match with its analysis as SGF, as GNU Backgammon writes and reads it")
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


def _verifier(analyst: str, verify: str | None) -> str | None:
    """``--verify``'s player: the one named, or (bare ``--verify``) the analyst one ply deeper."""
    from ..analysis.core import deeper
    from ..players import parse_player

    if verify is None:
        return None
    if verify != "deeper":
        return str(parse_player(verify))
    found = deeper(analyst)
    if found is None:
        raise AnalyseArgumentError(f"--verify: {analyst} has no deeper self (an engine command, rollouts or the "
                                   "deepest ply); name the verifier: --verify PLAYER")
    return found


def _progress(results: Iterator[Any], total: int) -> Iterator[Any]:
    from tqdm import tqdm

    return iter(tqdm(results, total=total, unit="decision", desc="analysing", disable=None, file=sys.stderr))


def _open(path: str | None, flag: str) -> IO[str] | None:
    """An output opened before the work, so an unwritable one is said before, not after."""
    if path is None:
        return None
    try:
        return open(path, "w", encoding="utf-8")
    except OSError as error:
        raise AnalyseArgumentError(f"{flag}: cannot write {path}: {error.strerror or error}") from None


def _analyse(args: argparse.Namespace) -> int:
    from ..analysis import DEFAULT_ANALYST, analyse, analysed_sgf, carried, carries_analysis
    from ..analysis.html import report as html_report
    from ..analysis.views import analysis_json
    from .records import read_record

    name = analyst_name(args.player or DEFAULT_ANALYST, args.ply)
    verify = _verifier(name, args.verify)
    record = read_record(args.file)
    outputs = [(_open(args.html, "--html"), html_report), (_open(args.sgf, "--sgf"), analysed_sgf)]
    try:
        if carries_analysis(record) and not args.reanalyse:
            analysis = carried(record).restyled(args.style)
            if args.player or args.ply is not None or args.verify:
                print(f"gammon analyse: {args.file} carries {analysis.analyst}'s analysis, shown as it is "
                      "(--reanalyse judges it again)", file=sys.stderr)
        else:
            analysis = analyse(record, name, workers=args.workers, progress=_progress, style=args.style, verify=verify)
        for handle, write in outputs:
            if handle is not None:
                handle.write(write(analysis))
    finally:
        for handle, _ in outputs:
            if handle is not None:
                handle.close()
    if args.json:
        json.dump(analysis_json(analysis), sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    _table(analysis)
    return 0


def _table(analysis: Any) -> None:
    """The figures side by side, the headline first, then the marked decisions."""
    from ..analysis import XG

    sides = (analysis.players[Color.WHITE], analysis.players[Color.BLACK])
    match = analysis.record.length > 0
    style = analysis.style
    pr = ("PR (XG)", *(f"{s.pr:.1f}" for s in sides))
    memg = ("error rate mEMG (GNU Backgammon)", *(f"{s.error_rate:.1f} {s.rating}" for s in sides))
    rows = [("", *(s.name for s in sides)), *((pr, memg) if style == XG else (memg, pr)),
            ("decisions counted (XG / gnubg)",
             *(f"{s.xg_decisions} / {s.checker_decisions + s.cube_decisions}" for s in sides)),
            ("checker error EMG (rate mEMG)", *(f"{s.checker_error:.3f} ({s.checker_error_rate:.1f})" for s in sides)),
            ("cube error EMG (rate mEMG)", *(f"{s.cube_error:.3f} ({s.cube_error_rate:.1f})" for s in sides))]
    if match:
        rows.append(("errors in MWC", *(f"{100 * s.error_mwc:.2f}%" for s in sides)))
    rows.append((f"marked ({style.name})",
                 *(", ".join(f"{count} {label}" for label, count in s.marks[style.name].items()) for s in sides)))
    rows += [("missed doubles below / above CP",
              *(f"{s.cube['missed_double_below_cp']['count']} / {s.cube['missed_double_above_cp']['count']}"
                for s in sides)),
             ("wrong doubles below DP / above TG",
              *(f"{s.cube['wrong_double_below_dp']['count']} / {s.cube['wrong_double_above_tg']['count']}"
                for s in sides)),
             ("wrong takes / passes", *(f"{s.cube['wrong_take']['count']} / {s.cube['wrong_pass']['count']}"
                                        for s in sides)),
             ("luck EMG (rate mEMG)", *(f"{s.luck:+.3f} ({s.luck_rate:+.1f})" for s in sides)),
             ("luck rating", *(s.luck_rating for s in sides)),
             ("rolls very lucky / lucky", *(f"{s.luck_marks['very lucky']} / {s.luck_marks['lucky']}" for s in sides)),
             ("rolls unlucky / very unlucky",
              *(f"{s.luck_marks['unlucky']} / {s.luck_marks['very unlucky']}" for s in sides)),
             ("result", *((f"{100 * s.result:+.1f}%" if match else f"{s.result:+.3f}") for s in sides)),
             ("luck-adjusted result", *((f"{100 * s.luck_adjusted:+.1f}%" if match else f"{s.luck_adjusted:+.3f}")
                                        for s in sides))]
    if analysis.source is not None:
        print(f"the file's own analysis, by {analysis.source}")
    else:
        print(f"analysed by {analysis.analyst}")
    if analysis.verifier is not None:
        from ..analysis.core import VERIFY_AT

        checked = [d for d in analysis.decisions if d.verified is not None]
        cleared = sum(1 for d in checked if d.error < VERIFY_AT)
        print(f"verified by {analysis.verifier}: {len(checked)} decisions charged {VERIFY_AT:.3f} or more judged "
              f"again, {cleared} of them cleared")
    for row in rows:
        print(f"{row[0]:<34}{row[1]:>24}{row[2]:>24}")
    for decision in analysis.decisions:
        if decision.mark in (None, "doubtful") or not decision.counted(style):
            continue
        weak = f" (a {decision.rare_kind} position: the net judges these worst)" if decision.weak_judge else ""
        print(f"game {decision.game} move {decision.move:>3} {decision.player}: {decision.kind} {decision.played!r} "
              f"(best {decision.best!r}) -{decision.error:.3f} {decision.mark}{weak}")

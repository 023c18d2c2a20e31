"""An analysis as plain data: ``gammon analyse --json`` and the site's analysis page read the same.

One view (:func:`analysis_json`), as lila keeps its ``JsonView`` beside the domain: every
decision with its candidates (equity, match winning chance, probabilities, depth), its marks in
both styles, its luck and the position's ids; each player's figures (:mod:`.figures`); the
course of the match. docs/analysis.md describes every field.
"""

from __future__ import annotations

from typing import Any

from ..errors import GammonError
from ..evaluation import FIELDS
from ..position import Color
from ..state import GameState
from .core import Analysis, Candidate, Decision
from .figures import STYLES, luck_mark

__all__ = ["FORMAT", "analysis_json", "board_json", "decision_json", "position_ids"]

#: The version of this view: 2 since the figures players quote (issue 39); older views had no ``format``.
FORMAT = 2


def position_ids(state: GameState) -> dict[str, str | None]:
    """The position's ids: ``xgid`` (XGID) and ``gnubg`` (GNU Backgammon's ``POSID:MATCHID``), each
    read back by :meth:`GameState.parse`; None for an id that cannot carry the state (a GNU
    Backgammon id of a beavered cube)."""
    ids: dict[str, str | None] = {}
    for key, writer in (("xgid", state.xgid), ("gnubg", state.gnubg_id)):
        try:
            ids[key] = writer()
        except (GammonError, ValueError):
            ids[key] = None
    return ids


def board_json(state: GameState) -> dict[str, Any]:
    """The checkers as the web client draws them: each point in white's numbering, positive for
    white's checkers and negative for black's, and each side's bar and borne-off count."""
    position = state.position
    white, black = position.checkers(Color.WHITE), position.checkers(Color.BLACK)
    return {"points": [white[p - 1] - black[24 - p] for p in range(1, 25)],
            "bar": {"white": position.bar(Color.WHITE), "black": position.bar(Color.BLACK)},
            "off": {"white": position.borne_off(Color.WHITE), "black": position.borne_off(Color.BLACK)},
            "cube": state.cube, "cube_owner": None if state.cube_owner is None else state.cube_owner.name.lower()}


def _candidate(decision: Decision, candidate: Candidate, best: float) -> dict[str, Any]:
    """One option; ``loss`` is what it gives up against the best (for a double: against the
    better of no double and doubling, the opponent answering as is best for him)."""
    p = candidate.probabilities
    mwc = decision.mwc(candidate.equity)
    return {"play": candidate.play, "equity": round(candidate.equity, 6), "loss": round(best - candidate.equity, 6),
            "mwc": None if mwc is None else round(mwc, 6), "ply": candidate.ply, "judge": candidate.judge,
            "probabilities": None if p is None else {k: round(v, 6) for k, v in zip(FIELDS, p.as_tuple())}}


def decision_json(decision: Decision) -> dict[str, Any]:
    """One decision as the view gives it."""
    state = decision.state
    best = max((c.equity for c in decision.candidates), default=0.0)
    if decision.cube is not None and decision.cube.answer is None:
        best = max(decision.cube.no_double, decision.cube.doubling)
    p = decision.probabilities
    return {
        "game": decision.game, "move": decision.move, "index": decision.index, "player": decision.player,
        "color": decision.color.name.lower(), "kind": decision.kind,
        "dice": list(state.dice) if decision.kind == "checker" and state.dice else None,
        "played": decision.played, "best": decision.best, "forced": decision.forced,
        "error": round(decision.error, 6),
        "error_mwc": None if decision.error_mwc is None else round(decision.error_mwc, 6),
        "mark": decision.mark, "marks": {name: style.mark(decision.error) for name, style in STYLES.items()},
        "counted": {name: decision.counted(style) for name, style in STYLES.items()},
        "luck": None if decision.luck is None else round(decision.luck, 6),
        "luck_mark": None if decision.luck is None else luck_mark(decision.luck),
        "ply": decision.ply,
        "verified": None if decision.verified is None else round(decision.verified, 6),
        "rare_kind": decision.rare_kind, "weak_judge": decision.weak_judge,
        "candidates": [_candidate(decision, c, best) for c in decision.candidates],
        "probabilities": None if p is None else {k: round(v, 6) for k, v in zip(FIELDS, p.as_tuple())},
        "ids": position_ids(state), "board": board_json(state),
        "score": list(state.score), "cube": state.cube,
    }


def analysis_json(analysis: Analysis) -> dict[str, Any]:
    """The whole analysis (see the module)."""
    record = analysis.record
    match = record.length > 0
    players = {}
    for color in (Color.WHITE, Color.BLACK):
        figures = analysis.players[color].as_json()
        if not match:  # errors in match winning chances are a match's
            for key in ("error_mwc", "checker_error_mwc", "cube_error_mwc"):
                figures[key] = None
        players[analysis.players[color].name] = figures
    return {
        "format": FORMAT,
        "analyst": analysis.analyst, "verifier": analysis.verifier, "source": analysis.source,
        "style": analysis.style.name,
        "match": {"white": record.white, "black": record.black, "length": record.length, "games": len(record.games)},
        "players": players,
        "decisions": [decision_json(d) for d in analysis.decisions],
        "course": [{"game": game, "move": move, "equity": round(equity, 6), "mwc": None if mwc is None else round(mwc, 6)}
                   for game, move, equity, mwc in analysis.course],
    }

"""An analysis a file carries, read as it is; and gammon's analysis written into SGF as GNU Backgammon reads it.

A record keeps two kinds of analysis it was given (:mod:`gammon.record`): eXtreme Gammon's, read
from an ``.xg`` file into :attr:`GameRecord.analysis <gammon.record.GameRecord>` (a
:class:`~gammon.record.fields.DecisionAnalysis` per decision), and GNU Backgammon's SGF
properties, kept as each action's notes: ``A`` (the candidate plays, the one played first by
its index; each ``LETTERS E ver 3`` then five probabilities, the cubeful equity in EMG and the
evaluation's settings), ``DA`` (the cube before that roll, or at a double or its answer: the
settings, then for no double and for double/take five probabilities, the cubeless equity and
the cubeful one, EMG in money and match winning chance in a match; passing is worth the cube)
and ``LU`` (the roll's luck, EMG). :func:`carried` turns either into an :class:`Analysis`, the
file's analyst named, nothing judged again; :func:`analysed_sgf` writes an analysis back as those
properties, so GNU Backgammon (``load match``) shows gammon's analysis and its statistics.

SGF points are letters in GNU Backgammon's player 0's numbering (gammon's black): ``a`` its
1-point to ``x`` its 24-point, ``y`` the bar, ``z`` off (as :mod:`gammon.record.sgf` reads a move).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ..cube.met import mwc_to_equity
from ..errors import GammonError
from ..evaluation import CubeDecision, Probabilities
from ..match import ActionKind
from ..play import BAR, OFF, Play
from ..position import Color
from ..record import MatchRecord
from ..record.fields import Candidate as FileCandidate
from ..record.fields import DecisionAnalysis, GameRecord, Properties
from ..record.sgf import letter_of, point_of
from ..state import GameState
from .core import Analysis, Candidate, Decision, _stakes, _Task, _tasks, summarised
from .figures import GNUBG, Style, luck_mark

__all__ = ["analysed_sgf", "carried", "carries_analysis"]

_ANALYSIS = ("A", "DA", "LU")  # the properties of an analysis (GNU Backgammon's marks are dropped with them)
_MARKS = ("BM", "DM", "TE", "IT", "GB", "GW", "MR", "DO")


def carries_analysis(record: MatchRecord) -> bool:
    """Whether the file the record was read from carried an analysis (XG's, or GNU Backgammon's SGF)."""
    return any(game.analysis or any(name in ("A", "DA") for props in game.notes.values() for name, _ in props)
               for game in record.games)


def _analyst(record: MatchRecord) -> str:
    for game in record.games:
        for found in game.analysis.values():
            return found.analyst
        program = dict(game.properties).get("AP")
        if program:
            return program[0].replace(":", " ")
    return "gammon"


# -- reading ------------------------------------------------------------------------------------
def _steps(letters: str, color: Color) -> str:
    steps = []
    for k in range(0, len(letters) - 1, 2):
        source, target = (point_of(letters[k], color, "an analysed move", letters),
                          point_of(letters[k + 1], color, "an analysed move", letters))
        steps.append(f"{'bar' if source == BAR else source}/{'off' if target == OFF else target}")
    return " ".join(steps)


def _numbers(words: list[str]) -> list[float]:
    return [float(word) for word in words]


def _gnubg_checker(props: Mapping[str, tuple[str, ...]], color: Color, analyst: str) -> DecisionAnalysis | None:
    """GNU Backgammon's ``A`` and ``LU`` of a play as the file's analysis (None: neither)."""
    luck = float(props["LU"][0]) if "LU" in props else None
    values = props.get("A")
    if not values:
        return None if luck is None else DecisionAnalysis("checker", (), None, None, analyst, luck)
    candidates = []
    for value in values[1:]:
        words = value.split()
        if len(words) < 10 or words[1] != "E":  # a rollout's entry: not read
            continue
        probabilities = _numbers(words[4:9])
        depth = words[10].rstrip("C") + "-ply" if len(words) > 10 else ""
        candidates.append(FileCandidate(_steps(words[0], color), float(words[9]),
                                        (probabilities[0], probabilities[1], probabilities[2], probabilities[3],
                                         probabilities[4]), depth))
    played = int(values[0]) if values[0].strip().isdigit() and int(values[0]) < len(candidates) else None
    error = None if played is None or not candidates else max(0.0, candidates[0].equity - candidates[played].equity)
    return DecisionAnalysis("checker", tuple(candidates), played, error, analyst, luck)


def _gnubg_cube(value: str, state: GameState) -> CubeDecision | None:
    """GNU Backgammon's ``DA`` as the doubler's three equities (EMG)."""
    words = value.split()
    try:
        numbers = _numbers(words[-14:])
    except ValueError:
        return None
    if len(numbers) < 14 or words[0] != "E":
        return None
    nd, dt = numbers[6], numbers[13]
    stakes = _stakes(state)
    if stakes is not None:  # a match: match winning chances, as EMG at this cube
        nd, dt = float(mwc_to_equity(nd, *stakes)), float(mwc_to_equity(dt, *stakes))
    return CubeDecision.from_equities(nd, dt, 1.0)


def _file_cube(found: DecisionAnalysis) -> CubeDecision | None:
    """A file's cube analysis of the doubler's turn as its three equities (None: not all three)."""
    values = {c.action: c.equity for c in found.candidates}
    if found.kind != "cube" or not {"no double", "double/take", "double/pass"} <= set(values):
        return None
    return CubeDecision.from_equities(values["no double"], values["double/take"], values["double/pass"])


def _depth(text: str) -> int | None:
    head = text.split("-", 1)[0]
    return int(head) if head.isdigit() else None


def _checker_result(task: _Task, found: DecisionAnalysis | None) -> dict[str, Any] | None:
    state = task.state
    assert state.dice is not None and task.play is not None
    legal = state.legal_plays()
    forced = len(legal) == 1
    played_text = str(task.play) or "(no move)"
    luck = None if found is None else found.luck
    if found is None or found.error is None or not found.candidates:
        if not forced and (found is None or found.error is None):
            return None  # a play the file did not analyse: not judged
        candidate = Candidate(played_text, 0.0)
        return {"best": 0.0, "played": 0.0, "played_text": played_text, "best_text": played_text,
                "candidates": (candidate,), "forced": forced, "stakes": _stakes(state), "luck": luck, "ply": None}
    candidates = []
    for option in found.candidates:
        try:
            text = str(legal.find(option.action)) if option.action else "(no move)"
        except GammonError:
            text = option.action
        p = option.probabilities
        candidates.append(Candidate(text or "(no move)", option.equity,
                                    None if p is None else Probabilities(*(min(1.0, max(0.0, x)) for x in p)),
                                    _depth(option.depth)))
    best = candidates[0].equity
    played = best - found.error
    if found.played is not None and found.played < len(candidates):
        candidates[found.played] = dataclasses.replace(candidates[found.played], play=played_text)
    else:
        candidates.append(Candidate(played_text, played))
    return {"best": best, "played": played, "played_text": played_text, "best_text": candidates[0].play,
            "candidates": tuple(candidates), "forced": forced, "stakes": _stakes(state), "luck": luck,
            "ply": candidates[0].ply}


def _checker_found(game: GameRecord, index: int, color: Color, analyst: str) -> DecisionAnalysis | None:
    """The file's analysis of the play at action ``index``: XG's, else GNU Backgammon's notes."""
    if index in game.analysis:
        return game.analysis[index]
    return _gnubg_checker(dict(game.notes.get(index, ())), color, analyst)


def _cube_found(game: GameRecord, task: _Task) -> CubeDecision | None:
    """The file's analysis of a doubler's turn: XG's (on the roll, or the double), else GNU
    Backgammon's ``DA`` (on the play after the roll, or on the double)."""
    found = game.analysis.get(task.index)
    if found is not None:
        return _file_cube(found)
    at = task.index if task.doubled else task.index + 1
    value = dict(game.notes.get(at, ())).get("DA")
    return _gnubg_cube(value[0], task.state) if value else None


def carried(record: MatchRecord, style: Style = GNUBG) -> Analysis:
    """The analysis the record's file carried, shown as it is (see the module); decisions it did
    not analyse are left out."""
    analyst = _analyst(record)
    tasks, judged = [], []
    for task in _tasks(record):
        game = record.games[task.game - 1]
        result: dict[str, Any] | None
        if task.kind == "checker":
            result = _checker_result(task, _checker_found(game, task.index, task.color, analyst))
        else:
            decision = _cube_found(game, task)
            result = None if decision is None else {"decision": decision, "stakes": _stakes(task.state),
                                                    "probabilities": None}
        if result is not None:
            tasks.append(task)
            judged.append(result)
    return summarised(record, analyst, tasks, judged, style=style, source=analyst)


# -- writing ------------------------------------------------------------------------------------
def _letters(play: Play, color: Color) -> str:
    return "".join(letter_of(m.source, color) + letter_of(m.target, color) for m in play.moves)


def _settings(ply: int | None) -> str:
    return f"{ply or 0}C"


def _a_property(decision: Decision) -> tuple[str, tuple[str, ...]] | None:
    state = decision.state
    assert state.dice is not None
    legal = state.legal_plays()
    entries, played = [], None
    for candidate in decision.candidates:
        try:
            play = legal.find(candidate.play) if candidate.play != "(no move)" else legal[0]
        except GammonError:
            continue
        if candidate.play == decision.played:
            played = len(entries)
        p = candidate.probabilities or Probabilities(0.5)
        numbers = " ".join(f"{x:.6f}" for x in (*p.as_tuple(), candidate.equity))
        entries.append(f"{_letters(play, decision.color)} E ver 3 {numbers} {_settings(candidate.ply)} 0 1 0.000000 1")
    if played is None or not entries:
        return None
    return "A", (str(played), *entries)


def _da_property(decision: Decision) -> tuple[str, tuple[str, ...]] | None:
    cube = decision.cube
    if cube is None:
        return None
    p = decision.probabilities or Probabilities(0.5)
    nd, dt = cube.no_double, cube.double_take
    if decision.stakes is not None:  # a match: GNU Backgammon writes match winning chances
        nd, dt = decision.mwc(nd) or 0.0, decision.mwc(dt) or 0.0
    rows = [" ".join(f"{x:.6f}" for x in (*p.as_tuple(), p.equity, cubeful)) for cubeful in (nd, dt)]
    return "DA", (f"E ver 3 {_settings(decision.ply)} 1 0.000000 1 {rows[0]} {rows[1]}",)


def _notes(game: GameRecord, decisions: list[Decision]) -> dict[int, Properties]:
    notes: dict[int, list[tuple[str, tuple[str, ...]]]] = {}
    for index, props in game.notes.items():  # what is not an analysis stays (gammon's own, another's)
        kept = [p for p in props if p[0] not in _ANALYSIS + _MARKS]
        if kept:
            notes[index] = kept
    for decision in decisions:
        if decision.kind == "checker":
            added = [p for p in (None if decision.forced else _a_property(decision),) if p is not None]
            if decision.luck is not None:
                added.append(("LU", (f"{decision.luck:.5f}",)))
                lucky = luck_mark(decision.luck)
                if lucky is not None:  # GNU Backgammon's luck marks: good for the roller (GB: SGF's B), or bad
                    good = decision.color if "unlucky" not in lucky else decision.color.other
                    added.append((f"G{'B' if good == Color.WHITE else 'W'}", ("2" if "very" in lucky else "1",)))
            notes.setdefault(decision.index, []).extend(added)
            continue
        if decision.cube is None or decision.cube.answer is not None:
            continue  # GNU Backgammon reads a double's analysis from the double's node
        action = game.actions[decision.index]
        at = decision.index if action.kind == ActionKind.DOUBLE else decision.index + 1  # a no double: the play's node
        prop = _da_property(decision)
        if prop is not None and at < len(game.actions):
            notes.setdefault(at, []).insert(0, prop)
    return {index: tuple(props) for index, props in notes.items() if props}


def analysed_sgf(analysis: Analysis) -> str:
    """The match as SGF with the analysis as GNU Backgammon's properties (``A``, ``DA``, ``LU``),
    under gammon's name (``AP[gammon]``)."""
    record = analysis.record
    games = []
    for number, game in enumerate(record.games, 1):
        mine = [d for d in analysis.decisions if d.game == number]
        properties = tuple(p for p in game.properties if p[0] not in ("AP", "GS"))  # the statistics are the file's
        games.append(dataclasses.replace(game, notes=_notes(game, mine), properties=properties, analysis={}))
    return dataclasses.replace(record, games=tuple(games)).sgf()

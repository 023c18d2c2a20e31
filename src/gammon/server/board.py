"""The board as the web client shows it: the SVG picture, the points under it, and where a
checker may go next, with the checker moves entered so far and not yet sent.

The rules stay in :class:`~gammon.match.Match`: the moves are entered on a copy of the
committed match (``move``, as the terminal enters them), so the page never decides what is
legal. A finished match's replay asks for the board after any of its events. :func:`board`
takes plain values (a state, the play to draw), so it runs in a job's process
(:mod:`gammon.server.replays`), never on the event loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import GammonError
from ..events import ActionKind
from ..match import Action, Match
from ..play import OFF, Play
from ..position import Color
from ..state import GameState
from ..svg import board_svg, point_boxes
from .errors import Unprocessable
from .matches.live import side_name

MAX_STEPS = 8


def _steps(text: str) -> list[tuple[int, int]]:
    """The checker moves typed so far (``13/8,8/5``, ``bar/22*``), read by the one move-text reader."""
    try:
        play = Play.parse(text.replace(",", " "))
    except GammonError as error:
        raise Unprocessable(f"moves: expected checker moves such as 13/8,8/5 (bar and off allowed): {error}") from None
    if len(play.moves) > MAX_STEPS:
        raise Unprocessable(f"moves: at most {MAX_STEPS} checker moves, got {len(play.moves)}")
    return [(move.source, move.target) for move in play.moves]


def last_shown(history: Sequence[Action]) -> Action | None:
    """The action a board draws with: the last play of the game (as arrows), or the game's start (none)."""
    return next((action for action in reversed(history) if action.kind in (ActionKind.PLAY, ActionKind.NEW_GAME)), None)


def board(state: GameState, last: Action | None, crawford: bool, view: Color, moves: str = "") -> dict[str, Any]:
    """The picture and the grid of the board in ``state`` from ``view``'s side, ``last``
    (:func:`last_shown`) drawn as arrows (see the module)."""
    mirror = Match.from_state(state, crawford=crawford)
    entered: list[str] = []
    if moves:
        if state.dice is None or mirror.to_act is None:
            raise Unprocessable("moves: there is no roll to play")
        for source, target in _steps(moves):
            try:
                path = mirror.move(source, target)
            except GammonError as error:
                raise Unprocessable(f"moves: {error}") from None
            entered.extend(str(step) for step in path)
    shown = mirror.current_state
    position = shown.position
    mover = mirror.to_act
    legal_count = len(mirror.legal_plays[0].moves) if state.dice is not None and mover is not None else 0
    complete = legal_count > 0 and len(mirror.pending_moves) == legal_count
    # the grid speaks the viewer's numbering: only the side to act is offered moves
    next_moves = mirror.next_moves() if mover == view and not complete else {}
    theirs = position.checkers(view.other)
    cells = []
    for point in range(1, 25):
        mine, other = position.checkers(view)[point - 1], theirs[24 - point]
        cells.append({"point": point, "color": side_name(view) if mine else side_name(view.other) if other else None,
                      "count": mine or other})
    drawn = last is not None and last.kind == ActionKind.PLAY and last.play is not None and bool(last.play.moves)
    arrows = drawn and last is not None and not mirror.pending_moves  # the last play, unless moves are being entered
    return {
        "svg": board_svg(shown, orientation=view, size=672, title=None, play=last.play if arrows and last else None,
                         mover=last.color if arrows and last else None),
        "last_play": {"color": side_name(last.color), "play": str(last.play)} if drawn and last is not None else None,
        "boxes": point_boxes(),
        "cells": cells,
        "bar": {side_name(c): position.bar(c) for c in Color},
        "off": {side_name(c): position.borne_off(c) for c in Color},
        "pips": {side_name(c): position.pip_count(c) for c in Color},
        "moves": entered,
        "pending": str(Play(tuple(mirror.pending_moves))) if mirror.pending_moves else "",
        "complete": complete,
        "remaining": list(mirror.remaining_dice) if state.dice is not None and mover is not None else [],
        "next": {str(source): sorted(targets, key=lambda t: (not (t != OFF and theirs[24 - t] == 1), -t))
                 for source, targets in next_moves.items()},  # blots first
        "forced": legal_count > 0 and not mirror.pending_moves and len(mirror.legal_plays) == 1,
    }

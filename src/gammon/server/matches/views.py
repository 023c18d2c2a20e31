"""What clients see of a match: JSON views apart from the domain (the API's shapes, docs/server.md).

Every event is told by the one narrator (:mod:`gammon.narration`) to whoever asks: a player
hears "you" and every play in their own numbering, a spectator each play in its mover's.
"""

from __future__ import annotations

from typing import Any

from ...errors import GammonError
from ...events import event_from_data
from ...narration import Narrator
from ...position import Color
from . import clock
from .fair_dice import drawn_seed
from .live import LiveMatch, side_name, written
from .rules import available_actions
from .store import UNPLAYED, EventRow, MatchInfo


def narrator_for(live: LiveMatch, viewer: Color | None) -> Narrator:
    return Narrator(live.names, viewer, verbose=live.info.options.get("verbose", False))


def event_view(row: EventRow, narrator: Narrator) -> dict[str, Any]:
    """One event as the API shows it, its sentence told for ``narrator``'s listener."""
    try:
        description = narrator.tell(event_from_data(row.kind, row.game, row.color, row.data))
    except (GammonError, TypeError, ValueError):  # an event written before typed events: its own sentence
        description = row.description
    return {"seq": row.seq, "game": row.game, "kind": row.kind, "color": row.color, "action": row.action,
            "data": row.data, "description": description, "at": row.at.isoformat() + "Z"}


def match_view(live: LiveMatch, viewer: Color | None = None, *, history: list[EventRow] | None = None,
               events: list[EventRow] | None = None,
               ratings: dict[int, tuple[float, float]] | None = None) -> dict[str, Any]:
    """The match as ``GET /api/matches/{id}`` shows it; ``history`` (events asked for) and
    ``events`` (those an action caused) only when given; ``ratings`` (each player's rating
    before and after, by account) once a rated match is over."""
    out = dict(live.cached("view", lambda: _state_view(live)))
    out["you"] = side_name(viewer)
    info = live.info
    if ratings:
        out["ratings"] = {side: {"before": round(ratings[seat.id][0], 2), "after": round(ratings[seat.id][1], 2)}
                          for side, seat in (("white", info.white), ("black", info.black)) if seat.id in ratings}
    narrator = narrator_for(live, viewer)
    if history is not None:
        out["history"] = [event_view(row, narrator) for row in history]
    if events is not None:
        out["events"] = [event_view(row, narrator) for row in events]
    return out


def _state_view(live: LiveMatch) -> dict[str, Any]:
    """What everyone sees of the match at this version (made once a version: the match never changes in place)."""
    info = live.info
    out: dict[str, Any] = {
        "id": info.id, "status": info.status, "players": {"white": info.white.name, "black": info.black.name},
        "bots": {"white": info.white.is_bot, "black": info.black.is_bot},
        "length": info.length, "options": info.options, "score": {"white": info.score_white, "black": info.score_black},
        "game": info.game_number, "version": info.version, "last_seq": info.next_seq - 1,
        "winner": info.name_of(info.winner_id), "rated": info.rated, "ratings": None, "crawford": False,
        "to_act": None, "dice": None,
        "cube": {"value": 1, "owner": None, "offered": False}, "resignation": None, "gnubg_id": None, "bpn": None,
        "pips": None, "actions": [], "legal": [], "you": None,
        "dice_proof": dice_proof(info), "digest": info.digest, "clock": clock.view(info.clock, info.options.get("clock")),
    }
    match = live.match
    if match is not None:
        state = match.state
        to_act = None if match.game_over or info.status != "playing" else match.to_act
        actions = [str(word) for word in available_actions(match)] if info.status == "playing" else []
        out.update(
            crawford=state.crawford, to_act=side_name(to_act), dice=list(state.dice) if state.dice else None,
            cube={"value": state.cube, "owner": side_name(state.cube_owner), "offered": state.double_offered},
            resignation=({"by": side_name(state.position.turn), "value": int(state.resignation)}
                         if state.resignation is not None else None),
            gnubg_id=written(state.gnubg_id), bpn=written(state.bpn), actions=actions,
            pips={"white": state.position.pip_count(Color.WHITE), "black": state.position.pip_count(Color.BLACK)},
        )
        if "play" in actions:
            out["legal"] = [str(play) for play in match.legal_plays]
    return out


def dice_proof(info: MatchInfo) -> dict[str, Any]:
    """What anyone may check the dice by: the scheme, the commitment, both sides' seeds (``drawn``:
    the sides whose seed the server drew from its commitment, having sent none), the seed once revealed."""
    revealed = info.status == "finished" or info.status in UNPLAYED
    seeds = {"challenger": info.challenger_seed, "opponent": info.opponent_seed}
    return {"scheme": info.dice_scheme, "commitment": info.commitment, "challenger_seed": info.challenger_seed,
            "opponent_seed": info.opponent_seed, "seed": info.seed if revealed else None,
            "drawn": [side for side, seed in seeds.items() if seed is not None and seed == drawn_seed(info.commitment, side)]}


def summary(info: MatchInfo) -> dict[str, Any]:
    """A match in lists: who, how long, where it stands."""
    return {"id": info.id, "status": info.status, "players": {"white": info.white.name, "black": info.black.name},
            "bots": {"white": info.white.is_bot, "black": info.black.is_bot},
            "length": info.length, "options": info.options,
            "score": {"white": info.score_white, "black": info.score_black},
            "winner": info.name_of(info.winner_id), "to_act": info.name_of(info.to_act_id),
            "updated": info.updated.isoformat() + "Z"}

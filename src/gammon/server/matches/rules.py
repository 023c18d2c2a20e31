"""The server's own rules around the referee: a match's options, what the side to act may do,
and what is done for a player by itself (play by mail's modes, rolls nobody can play)."""

from __future__ import annotations

from typing import Any

from ...match import Match, PlayerAction
from ...play import OFF, Play
from ...referee import CubeState, beaver_refusal
from ...variant import Variant, VariantError
from ..errors import Unprocessable

#: A match's switches and their defaults (docs/server.md); besides them, ``variant`` and ``clock``.
OPTIONS: dict[str, bool] = {"crawford": True, "jacoby": False, "beavers": False, "hints": False,
                            "cube_hints": False, "verbose": False}
MAX_LENGTH = 25
MAX_DELAY = 120  #: seconds a move may take before the reserve runs
MAX_RESERVE = 4 * 3600  #: seconds of a player's reserve for the whole match

#: A mover's modes in a match played by mail. Manual off (the default): the server rolls for
#: you when you have nothing else to decide (you double only in manual mode). Greedy on: a
#: bear-off that uses every die is made for you. In both, a forced play is made for you.
MAIL_MODES = {"greedy": False, "manual": False}
#: The modes of a seat that has never chosen any, in a match begun by the API: nothing automatic.
API_MODES = {"greedy": False, "manual": True}


def check_options(length: object, options: object) -> tuple[int, dict[str, Any]]:
    """The match length and every option, each checked, with the defaults filled in: the
    switches, the rule ``variant`` (as :class:`~gammon.variant.Variant` names it) and the
    ``clock`` (``{"delay": s, "reserve": s}``, or null for none)."""
    if isinstance(length, bool) or not isinstance(length, int) or not 0 <= length <= MAX_LENGTH:
        raise Unprocessable(f"length: expected a whole number of points from 0 (money game) to {MAX_LENGTH}, got {length!r}")
    options = {} if options is None else options
    if not isinstance(options, dict):
        raise Unprocessable("options: expected an object such as {\"crawford\": true, \"hints\": false}")
    known = (*OPTIONS, "variant", "clock")
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise Unprocessable(f"options: unknown {', '.join(map(repr, unknown))}; expected some of {', '.join(known)}")
    for key, value in options.items():
        if key in OPTIONS and not isinstance(value, bool):
            raise Unprocessable(f"options.{key}: expected true or false, got {value!r}")
    chosen: dict[str, Any] = {**OPTIONS, **options}
    if length and (chosen["jacoby"] or chosen["beavers"]):
        raise Unprocessable("options: jacoby and beavers are money-game rules (length 0)")
    chosen["variant"] = _variant(options.get("variant", "standard"))
    chosen["clock"] = _clock(options.get("clock"))
    return length, chosen


def _variant(value: object) -> str:
    if not isinstance(value, str) or len(value) > 40:
        raise Unprocessable("options.variant: expected 'standard', 'nackgammon', 'two-move-doubles' or both, "
                            f"comma-separated, got {value!r}")
    try:
        return str(Variant.parse(value))
    except VariantError as error:
        raise Unprocessable(f"options.{error}") from None


def _clock(value: object) -> dict[str, int] | None:
    if value is None:
        return None
    shape = f"expected null (no clock) or {{\"delay\": 0-{MAX_DELAY}, \"reserve\": 1-{MAX_RESERVE}}} in seconds"
    if not isinstance(value, dict) or set(value) != {"delay", "reserve"}:
        raise Unprocessable(f"options.clock: {shape}, got {value!r}")
    for key, top, bottom in (("delay", MAX_DELAY, 0), ("reserve", MAX_RESERVE, 1)):
        number = value[key]
        if isinstance(number, bool) or not isinstance(number, int) or not bottom <= number <= top:
            raise Unprocessable(f"options.clock.{key}: {shape}, got {number!r}")
    return {"delay": value["delay"], "reserve": value["reserve"]}


def variant_of(options: dict[str, Any]) -> Variant:
    """The rules a match is played under (matches made before variants: the standard game)."""
    return Variant.parse(options.get("variant") or "standard")


def available_actions(match: Match) -> list[PlayerAction]:
    """The actions open to the side to act now (empty when nobody is to act)."""
    if match.to_act is None or match.game_over:
        return []
    state = match.state
    if state.double_offered:
        actions = [PlayerAction.TAKE, PlayerAction.DROP]
        if beaver_refusal(CubeState(state.cube, state.cube_owner), beavers=state.beavers,
                          cube_limit=state.cube_limit) is None:
            actions.insert(1, PlayerAction.BEAVER)
        return actions
    if state.resignation is not None:
        return [PlayerAction.ACCEPT, PlayerAction.REJECT]
    if state.dice is None:
        if match.can_double():
            return [PlayerAction.ROLL, PlayerAction.DOUBLE, PlayerAction.RESIGN]
        return [PlayerAction.ROLL, PlayerAction.RESIGN]
    return [PlayerAction.PLAY, PlayerAction.RESIGN]


def automatic_action(match: Match, modes: dict[str, bool] | None) -> Play | PlayerAction | None:
    """What the server does for the side to act by itself: a roll nobody can play is passed
    for anyone; by mail (``modes`` given), a roll (manual off), a forced or greedy play."""
    state = match.state
    if match.to_act is None or state.double_offered or state.resignation is not None or match.game_over:
        return None
    if state.dice is not None:
        legal = match.legal_plays
        if len(legal) == 1 and not legal[0].moves:
            return legal[0]
    if modes is None:
        return None
    if state.dice is None:
        return None if modes["manual"] else PlayerAction.ROLL
    legal = match.legal_plays
    if len(legal) == 1:
        return legal[0]
    if modes["greedy"]:
        dice_used = 4 if state.dice[0] == state.dice[1] else 2
        clearing = [play for play in legal
                    if len(play.moves) == dice_used and all(move.target == OFF for move in play.moves)]
        if len(clearing) == 1:
            return clearing[0]
    return None


def modes_of(pbm_modes: dict[str, Any] | None, side: str | None) -> dict[str, bool] | None:
    """A seat's play-by-mail modes (None: a match played through the API, nothing automatic)."""
    if pbm_modes is None or side is None:
        return None
    return pbm_modes.get(side)

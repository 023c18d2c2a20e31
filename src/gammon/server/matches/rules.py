"""The server's own rules around the referee: a match's options, what the side to act may do,
and what is done for a player by itself (play by mail's modes, rolls nobody can play)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...match import Match, PlayerAction
from ...play import OFF, Play
from ...position import Color
from ...referee import CubeState, beaver_refusal
from ...variant import Variant, VariantError
from ..errors import Unprocessable

if TYPE_CHECKING:  # the terminal reads the terms without the server's packages
    from .store import Seat

#: A match's switches and their defaults (docs/server.md); besides them, ``variant``, ``clock`` and ``rated``.
OPTIONS: dict[str, bool] = {"crawford": True, "jacoby": False, "beavers": False, "hints": False,
                            "cube_hints": False, "verbose": False}
MAX_LENGTH = 25
MAX_DELAY = 120  #: seconds a move may take before the reserve runs
MAX_RESERVE = 4 * 3600  #: seconds of a player's reserve for the whole match
#: The least reserve of a rated match. A person needs time to see that the match has begun, to
#: read each position and to get over a reconnection; a script needs none. Under a minute a
#: script beats a person on time rather than on play (the 1-second reserve of issue 36 won
#: every rated match accepted), and a minute is more than one page reload, one reconnection on
#: a mobile network and a few slow reads of the board use up together.
MIN_RATED_RESERVE = 60

#: A mover's modes in a match played by mail. Manual off (the default): the server rolls for
#: you when you have nothing else to decide (you double only in manual mode). Greedy on: a
#: bear-off that uses every die is made for you. In both, a forced play is made for you.
MAIL_MODES = {"greedy": False, "manual": False}
#: The modes of a seat that has never chosen any, in a match begun by the API: nothing automatic.
API_MODES = {"greedy": False, "manual": True}


def check_options(length: object, options: object) -> tuple[int, dict[str, Any]]:
    """The match length and every option, each checked, with the defaults filled in: the
    switches, the rule ``variant`` (as :class:`~gammon.variant.Variant` names it), the
    ``clock`` (``{"delay": s, "reserve": s}``, or null for none) and ``rated`` (whether the
    result may move ratings: by default every match of a length, never a money game)."""
    if isinstance(length, bool) or not isinstance(length, int) or not 0 <= length <= MAX_LENGTH:
        raise Unprocessable(f"length: expected a whole number of points from 0 (money game) to {MAX_LENGTH}, got {length!r}")
    options = {} if options is None else options
    if not isinstance(options, dict):
        raise Unprocessable("options: expected an object such as {\"crawford\": true, \"hints\": false}")
    known = (*OPTIONS, "variant", "clock", "rated")
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
    chosen["rated"] = _rated(length, options.get("rated"), chosen["clock"])
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


def _rated(length: int, value: object, clock: dict[str, int] | None) -> bool:
    if value is None:
        value = bool(length)
    if not isinstance(value, bool):
        raise Unprocessable(f"options.rated: expected true or false, got {value!r}")
    if value and not length:
        raise Unprocessable("options.rated: a money game (length 0) is never rated; leave rated out or false")
    if value and clock is not None and clock["reserve"] < MIN_RATED_RESERVE:
        raise Unprocessable(f"options.clock.reserve: a rated match needs a reserve of {MIN_RATED_RESERVE}-{MAX_RESERVE} "
                            f"seconds, got {clock['reserve']}; a shorter clock is for unrated play "
                            "(options.rated false, or a money game)")
    return value


def unrated_because(options: dict[str, Any], white: Seat, black: Seat) -> str | None:
    """Why a match between these players is never rated, whatever it asks: engine hints are on
    between two people (a person helped by the engine is not measured against the other); None when
    nothing stands in the way. Against a bot hints change nothing: a bot's rating is not a person's."""
    if not white.is_bot and not black.is_bot and (options.get("hints") or options.get("cube_hints")):
        return "engine hints are on (a match between people with hints is unrated)"
    return None


def fair_options(options: dict[str, Any], white: Seat, black: Seat, asked_rated: object) -> dict[str, Any]:
    """The options of a match about to be made, unrated where it cannot be rated (:func:`unrated_because`);
    422 when it was asked for rated in so many words, so nobody is surprised after it starts."""
    why = unrated_because(options, white, black)
    if why is None or not options.get("rated"):
        return options
    if asked_rated is True:
        raise Unprocessable(f"options.rated: this match cannot be rated: {why}; leave rated out or false, or turn "
                            "the hints off")
    return {**options, "rated": False}


def rated_play(length: int, options: dict[str, Any]) -> bool:
    """Whether a match may move ratings (matches made before ``rated`` existed: every match of a length)."""
    return bool(length) and bool(options.get("rated", True))


def match_words(length: int, variant: str = "standard") -> str:
    """A match's length and variant in words: "a 3-point match of nackgammon", "a money game"."""
    what = f"a {length}-point match" if length else "a money game"
    return what if variant == "standard" else f"{what} of {variant.replace(',', ' with ').replace('-', ' ')}"


def terms(length: int, options: dict[str, Any]) -> str:
    """What a player agrees to by accepting, in words: length, variant, clock, rated or not, and the
    engine's help when it is on.

    >>> terms(3, {"variant": "nackgammon", "clock": {"delay": 12, "reserve": 300}, "rated": True})
    'a 3-point match of nackgammon, 12 s a move + 5:00 in reserve, rated'
    >>> terms(0, {"variant": "standard", "clock": None, "rated": False})
    'a money game, no clock, unrated'
    >>> terms(5, {"clock": None, "rated": False, "hints": True, "cube_hints": True})
    'a 5-point match, no clock, unrated, engine hints and cube hints on'
    """
    what = match_words(length, options.get("variant") or "standard")
    rule = options.get("clock")
    if rule:
        minutes, seconds = divmod(int(rule["reserve"]), 60)
        what += f", {rule['delay']} s a move + {minutes}:{seconds:02d} in reserve"
    else:
        what += ", no clock"
    what += ", rated" if rated_play(length, options) else ", unrated"
    helps = [word for key, word in (("hints", "engine hints"), ("cube_hints", "cube hints")) if options.get(key)]
    return what + (f", {' and '.join(helps)} on" if helps else "")


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
        dice_used = len(state.variant.moves_of(*state.dice))  # a double is two moves in two-move doubles
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


def forfeited_score(white: int, black: int, length: int, loser: Color) -> tuple[int, int]:
    """The final score (white, black) of a match ``loser`` lost on time or by staying away: the
    other side's raised to the match length (a money game's stays as it was)."""
    if loser == Color.BLACK:
        return max(white, length), black
    return white, max(black, length)

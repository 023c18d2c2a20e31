"""Checking a finished match's dice: every roll regenerated, the match replayed through the referee.

:func:`verify_match` takes a match as ``GET /api/matches/{id}?history=all`` shows it and says
what it proved (:class:`Verified`), or refuses with :class:`~.fair_dice.DiceProofError`:

- the record is whole: the match is finished, its events run 0, 1, 2, ... to the last one it
  counts, their digest chain ends in the published ``digest``, the last event is the match's
  end, and the status, score and winner are the ones the events give;
- the scheme is the one the match was made under: from scheme 3 the commitment names it, and so
  does the challenge (the first event, inside the digest), so a scheme changed later matches
  neither; a scheme-1 record carrying players' seeds or a named scheme is refused;
- the revealed seed is the one committed to, and each side's seed is known as sent by that
  player or drawn by the server from its commitment (a bot's must be drawn so);
- the whole history replays through :class:`~gammon.match.Match` under the match's variant,
  every roll drawn afresh from the key in order: each opening roll, roll, play, cube action,
  result and the end (by the rules, or a player's time running out) the one the referee and the
  dice give.

What the record cannot show is said too (:attr:`Verified.unproved`): that a player's seed was
sent after the commitment was shown (only that player saw it: ``shown`` checks the commitment
their client was given), and that a clock that ended the match was honest.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...errors import GammonError
from ...match import Action, ActionKind, Match
from ...position import Color
from ...referee import opening_roll
from .fair_dice import SCHEME, SIDES, CommittedDice, DiceProofError, checked_key, drawn_seed
from .live import chain, first_state
from .rules import forfeited_score

_COLORS = {"white": Color.WHITE, "black": Color.BLACK}
_SEATS = {"challenger": "white", "opponent": "black"}  #: the challenger plays white
_NOT_GAME = ("challenge", "accept_challenge", "mode")  #: events with nothing to replay


@dataclass(frozen=True, slots=True)
class Verified:
    """What :func:`verify_match` proved of a match (``proved``) and what no record can (``unproved``)."""

    match_id: Any
    rolls: int  #: rolls regenerated (each opening roll counts one)
    scheme: int
    drawn: tuple[str, ...]  #: the sides ("challenger", "opponent") whose seed the server drew from its commitment
    proved: tuple[str, ...]
    unproved: tuple[str, ...]

    def report(self) -> str:
        """The lines ``gammon verify-dice`` prints."""
        lines = [f"match {self.match_id}: verified under dice scheme {self.scheme}", "proved:"]
        lines += [f"  - {line}" for line in self.proved]
        lines += ["not proved (no record can show it):"] + [f"  - {line}" for line in self.unproved]
        return "\n".join(lines)


def verify_match(data: Mapping[str, Any], *, shown: str | None = None) -> Verified:
    """Check a finished match's record (see the module). ``shown``: the commitment the checker's
    client was given before it sent its seed; the match's must be the same."""
    proof = _field(data, "dice_proof", dict)
    history = _field(data, "history", list)
    status = data.get("status")
    if status != "finished":
        raise DiceProofError(f"status: match {data.get('id')} is {status}, not finished: verify-dice checks a finished "
                             "match (the server reveals its seed when the match ends)")
    scheme = proof.get("scheme")
    if isinstance(scheme, bool) or not isinstance(scheme, int):
        raise DiceProofError(f"dice_proof.scheme: expected a number, got {str(scheme)[:70]!r}")
    committed = str(proof.get("commitment"))
    if shown is not None and shown.strip().lower() != committed:
        raise DiceProofError(f"dice_proof.commitment: the match shows {committed[:70]}, not {shown[:70]}, the one "
                             "you were shown before you sent your seed")
    if not proof.get("seed"):
        raise DiceProofError(f"dice_proof.seed: match {data.get('id')} is finished but its seed is not revealed")
    _check_numbering(data, history, scheme)
    _check_challenge(history, scheme, committed)
    seeds = {"challenger": proof.get("challenger_seed"), "opponent": proof.get("opponent_seed")}
    key = checked_key(str(proof["seed"]), committed, seeds["challenger"], seeds["opponent"], scheme=scheme)
    drawn = tuple(side for side in SIDES if seeds[side] is not None and seeds[side] == drawn_seed(committed, side))
    players, bots = _mapping(data, "players"), _mapping(data, "bots")
    if scheme >= SCHEME:
        for side in SIDES:
            if bots.get(_SEATS[side]) and side not in drawn:
                raise DiceProofError(f"dice_proof.{side}_seed: {_SEATS[side]} is a bot, and its seed is not the one "
                                     "drawn from the commitment: the server could have chosen it after seeing the "
                                     "other side's")
    rolls, ending, on_time = _replay(data, history, key)
    who = {side: str(players.get(_SEATS[side]) or _SEATS[side]) for side in SIDES}
    proved, unproved = _statements(scheme, committed, seeds, drawn, who, bots)
    proved.insert(0, f"{rolls} rolls regenerated in order from the dice key, and all {len(history)} events replayed "
                     f"through the referee to the published end: {ending}")
    if on_time:
        unproved.append("that the time really ran out: the clock is the server's word, the dice cannot show it")
    return Verified(data.get("id"), rolls, scheme, drawn, tuple(proved), tuple(unproved))


def _statements(scheme: int, committed: str, seeds: dict[str, Any], drawn: tuple[str, ...], who: dict[str, str],
                bots: dict[str, Any]) -> tuple[list[str], list[str]]:
    """What the seeds prove, in words, and what they leave open."""
    if scheme == 1:
        return ([f"scheme 1 (made before players' seeds existed): the server's seed, committed to as {committed}, "
                 "is the whole dice key, so the dice were fixed when that commitment was shown"],
                ["that the server did not choose the dice: under scheme 1 its seed alone decides them"])
    how = ("SHA-256 of \"gammon-dice-3|\" and the seed: the commitment names its scheme" if scheme >= 3
           else "SHA-256 of the seed alone: scheme 2 commitments do not name their scheme")
    proved = [f"the server's revealed seed is the one committed to from the challenge on ({how}): {committed}"]
    unproved: list[str] = []
    sent = [side for side in SIDES if side not in drawn]
    for side in SIDES:
        label = f"{who[side]} ({side}, {_SEATS[side]})"
        if side in drawn:
            kind = "a bot's" if bots.get(_SEATS[side]) else "none was sent"
            proved.append(f"{label}: seed {seeds[side]} drawn by the server from its commitment ({kind}), so fixed "
                          "before anyone's seed was sent")
        else:
            proved.append(f"{label}: seed {seeds[side]!r}" + (" sent by that player" if scheme >= 3 else ""))
    if not sent:
        proved.append("no player sent a seed: the server's seed alone decides the dice, fixed when the commitment "
                      "was shown")
        unproved.append("that the server did not choose the dice: no player's seed was mixed in")
        return proved, unproved
    if scheme < 3:
        proved.append("the dice key mixes the server's seed with both sides' seeds")
        unproved.append("which seeds the players sent: under scheme 2 the server drew a missing seed (a bot's too) at "
                        "random after seeing the other, so where neither player sent one it may have chosen the dice")
        return proved, unproved
    proved.append("the dice key mixes the server's seed with " + " and ".join(f"{who[side]}'s" for side in sent)
                  + ": the server could not choose the dice without a seed it saw only after committing, and no "
                    "player could without the server's seed, secret until the end")
    for side in sent:
        unproved.append(f"that {who[side]} sent their seed only after being shown the commitment {committed[:16]}...: "
                        f"only {who[side]} saw it (gammon verify-dice --commitment HEX checks the one their client "
                        "was given)")
    return proved, unproved


def _replay(data: Mapping[str, Any], history: list[Any], key: bytes) -> tuple[int, str, bool]:
    """Every event through the referee with the dice drawn afresh: the rolls drawn, how the match
    ended (in words), and whether a clock (or a player's absence) ended it."""
    options = data.get("options")
    length = data.get("length")
    if not isinstance(options, dict) or isinstance(length, bool) or not isinstance(length, int) or length < 0:
        raise DiceProofError("options, length: expected the match as GET /api/matches/ID?history=all gives it")
    try:
        start = first_state(length, options)
    except GammonError as error:
        raise DiceProofError(f"options: {error}") from None
    dice = CommittedDice(key)
    match = Match.from_state(start, dice=dice, crawford=bool(options.get("crawford", True)))
    challenger_first = False
    rolls = 0
    lost: tuple[Color, bool] | None = None  # who lost on time (and whether by staying away)
    end: Mapping[str, Any] | None = None
    for event in history:
        kind, where = event.get("kind"), f"event {event.get('seq')}"
        info = event.get("data") or {}
        if end is not None:
            raise DiceProofError(f"{where}: a {kind} after the match ended")
        if lost is not None and kind != "match_over":
            raise DiceProofError(f"{where}: a {kind} after {lost[0].name.lower()} lost on time")
        try:
            if kind == "challenge":
                challenger_first = bool(info.get("challenger_first"))
            elif kind in _NOT_GAME:
                continue
            elif kind == "opening":
                first, second = opening_roll(dice)
                if event.get("game") == 1 and challenger_first:
                    first, second = max(first, second), min(first, second)
                winner = Color.WHITE if first > second else Color.BLACK
                want = (_COLORS.get(str(event.get("color"))), int(info.get("white_die", 0)), int(info.get("black_die", 0)))
                if want != (winner, first, second):
                    raise DiceProofError(f"{where}: the seed gives the opening roll {first} (white) and {second} "
                                         f"(black), so {winner.name.lower()} opens; the record says "
                                         f"{want[1]} and {want[2]}, {event.get('color')} opens")
                match.apply(Action(ActionKind.OPENING_ROLL, winner, dice=(max(first, second), min(first, second))))
                rolls += 1
            elif kind == "roll":
                color = _COLORS.get(str(event.get("color")))
                if color is None or color != match.to_act:
                    raise DiceProofError(f"{where}: a roll by {event.get('color')}, but {match.to_act} is to roll")
                rolled = match.roll(color)
                recorded = tuple(int(d) for d in info.get("dice", ()))
                if recorded != rolled:
                    raise DiceProofError(f"{where}: the seed gives {rolled[0]}-{rolled[1]}, the record says {recorded}")
                rolls += 1
            elif kind == "new_game":
                match.apply(Action(ActionKind.NEW_GAME))
            elif kind == "game_over":
                _check_result(match, event, where)
            elif kind == "timeout":
                color = _COLORS.get(str(event.get("color")))
                if color is None or match.game_over or color != match.to_act:
                    raise DiceProofError(f"{where}: {event.get('color')} ran out of time, but "
                                         f"{match.to_act.name.lower() if match.to_act is not None else 'nobody'} "
                                         "was to act")
                lost = (color, bool(info.get("left")))
            elif kind == "match_over":
                end = event
            elif kind == "decline":
                raise DiceProofError(f"{where}: a declined invitation in a finished match")
            else:
                if not event.get("action"):
                    raise DiceProofError(f"{where}: a {kind} without its action")
                match.apply(Action.from_text(str(event["action"])))
        except (GammonError, TypeError, ValueError) as error:
            if isinstance(error, DiceProofError):
                raise
            raise DiceProofError(f"{where}: the referee refuses it: {error}") from None
    if end is None:
        raise DiceProofError("the record ends before the match does: its last event is not the match's end "
                             "(events missing at the end?)")
    return rolls, _check_end(data, match, end, lost), lost is not None


def _check_end(data: Mapping[str, Any], match: Match, end: Mapping[str, Any], lost: tuple[Color, bool] | None) -> str:
    """The match's end as the rules (or the clock) give it must be the one published; in words."""
    length = int(data["length"])
    white, black = match.score[Color.WHITE], match.score[Color.BLACK]
    points = 0
    winner: Color | None
    if lost is not None:
        winner = lost[0].other
        white, black = forfeited_score(white, black, length, lost[0])
        how = f"{lost[0].name.lower()} {'stayed away' if lost[1] else 'ran out of time'}"
    elif match.is_over:
        winner = match.winner
        how = "won by the rules"
    elif length == 0 and match.game_over and match.result is not None:
        winner, points = match.result.winner, match.result.points
        how = f"the money game won for {points}"
    else:
        raise DiceProofError(f"event {end.get('seq')}: the match is over, but the replay ends {white}-{black} "
                             "(white-black) with the match not won: events are missing")
    assert winner is not None
    info = end.get("data") or {}
    if (end.get("color"), info.get("score"), info.get("points", 0)) != (winner.name.lower(), [white, black], points):
        raise DiceProofError(f"event {end.get('seq')}: the replay gives {winner.name.lower()} the match, "
                             f"{white}-{black} (white-black); the record says {end.get('color')}, {info.get('score')}")
    score = data.get("score") or {}
    if (score.get("white"), score.get("black")) != (white, black):
        raise DiceProofError(f"score: the replay ends {white}-{black} (white-black), the record says "
                             f"{score.get('white')}-{score.get('black')}")
    name = _mapping(data, "players").get(winner.name.lower())
    if "winner" in data and data.get("winner") != name:
        raise DiceProofError(f"winner: the replay gives the match to {name}, the record to {data.get('winner')}")
    return f"{winner.name.lower()} ({name}) wins {white}-{black} (white-black): {how}"


def _mapping(data: Mapping[str, Any], name: str) -> dict[str, Any]:
    value = data.get(name)
    return value if isinstance(value, dict) else {}


def _field(data: Mapping[str, Any], name: str, kind: type) -> Any:
    value = data.get(name)
    if not isinstance(value, kind):
        raise DiceProofError(f"{name}: expected the match as GET /api/matches/ID?history=all gives it")
    return value


def _check_numbering(data: Mapping[str, Any], history: list[Any], scheme: int) -> None:
    """Events numbered 0, 1, 2, ... to the last one the match counts, and their digest chain (from
    scheme 2, which came with it, always published)."""
    for number, event in enumerate(history):
        if not isinstance(event, dict) or event.get("seq") != number:
            raise DiceProofError(f"event {number}: missing or out of order (events must run 0, 1, 2, ...)")
    last = data.get("last_seq")
    if last != len(history) - 1:
        raise DiceProofError(f"last_seq: the match has events up to {last}, the record {len(history) - 1}")
    published = data.get("digest")
    if published is None and scheme < 2:
        return
    digest = digest_of(history)
    if published != digest:
        raise DiceProofError(f"digest: the events' digest is {digest}, the match published {published}: an event "
                             "was changed, added or taken away")


def _check_challenge(history: list[Any], scheme: int, committed: str) -> None:
    """The challenge, the first event, names the scheme and commitment the match was made under
    (from scheme 3): a record that claims another was changed after the match was made."""
    first = history[0] if history else {}
    if first.get("kind") != "challenge":
        raise DiceProofError("event 0: expected the challenge that made the match")
    named = (first.get("data") or {}).get("dice")
    if named is None and scheme < SCHEME:
        return
    if not isinstance(named, dict) or (named.get("scheme"), named.get("commitment")) != (scheme, committed):
        made = f"scheme {named.get('scheme')} with commitment {named.get('commitment')}" if isinstance(named, dict) \
            else "no named scheme"
        raise DiceProofError(f"dice_proof.scheme: the challenge (event 0) made the match under {made}; the record "
                             f"now claims scheme {scheme} with commitment {committed}: its scheme was changed")


def digest_of(history: list[Mapping[str, Any]]) -> str | None:
    """The digest chain of a history as published (for tests and tools)."""
    digest = None
    for event in history:
        digest = chain(digest, {key: event.get(key) for key in ("seq", "game", "kind", "color", "action", "data")})
    return digest


def _check_result(match: Match, event: Mapping[str, Any], where: str) -> None:
    result = match.result
    info = event.get("data") or {}
    if result is None:
        raise DiceProofError(f"{where}: a game over, but the replayed game is not over")
    if event.get("color") != result.winner.name.lower() or int(info.get("points", -1)) != result.points:
        raise DiceProofError(f"{where}: the replay gives {result}, the record says {event.get('color')} wins "
                             f"{info.get('points')}")

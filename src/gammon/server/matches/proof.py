"""Checking a finished match's dice: every roll regenerated, the match replayed through the referee.

:func:`verify_match` takes a match as ``GET /api/matches/{id}?history=all`` shows it. It
checks the revealed server seed against the commitment shown from the start, derives the
dice key with both players' seeds (:mod:`~gammon.server.matches.fair_dice`), then replays
the whole history through :class:`~gammon.match.Match` while drawing every roll afresh
from the key in order: each opening roll, roll, play, cube action and result must be the
one the referee and the dice give. Events must run without a gap and, where the record
carries it, their digest chain must end in the published ``digest``. So a changed roll, a
roll deleted or relabelled, a changed opener or a changed play is refused, and so is a
record that stops before the end it claims.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import GammonError
from ...match import Action, ActionKind, Match
from ...position import Color
from ...referee import opening_roll
from ...state import GameState, GameStatus
from .fair_dice import CommittedDice, DiceProofError, commitment, dice_key
from .live import chain

_SIDES = {"white": Color.WHITE, "black": Color.BLACK}


def verify_match(data: Mapping[str, Any]) -> int:
    """Check a finished match's record (see the module); the number of rolls regenerated."""
    proof = _field(data, "dice_proof", dict)
    history = _field(data, "history", list)
    seed_hex = proof.get("seed")
    if not seed_hex:
        raise DiceProofError(f"match {data.get('id')} is {data.get('status')}: its seed is revealed when it ends")
    try:
        seed = bytes.fromhex(str(seed_hex))
    except ValueError:
        raise DiceProofError(f"dice_proof.seed: expected 64 hex digits, got {str(seed_hex)[:70]!r}") from None
    if commitment(seed) != proof.get("commitment"):
        raise DiceProofError(f"the seed's SHA-256 is {commitment(seed)}, not the commitment {proof.get('commitment')}")
    scheme = int(proof.get("scheme") or 1)
    key = dice_key(seed, proof.get("challenger_seed"), proof.get("opponent_seed"), scheme=scheme)
    _check_numbering(data, history)
    options = data.get("options") or {}
    length = int(data.get("length") or 0)
    start = GameState(match_length=length, jacoby=bool(options.get("jacoby")), beavers=bool(options.get("beavers")),
                      status=GameStatus.NONE)
    dice = CommittedDice(key)
    match = Match.from_state(start, dice=dice, crawford=bool(options.get("crawford", True)))
    challenger_first = False
    rolls = 0
    for event in history:
        kind, where = event.get("kind"), f"event {event.get('seq')}"
        info = event.get("data") or {}
        try:
            if kind == "challenge":
                challenger_first = bool(info.get("challenger_first"))
            elif kind == "opening":
                first, second = opening_roll(dice)
                if event.get("game") == 1 and challenger_first:
                    first, second = max(first, second), min(first, second)
                winner = Color.WHITE if first > second else Color.BLACK
                want = (_SIDES[str(event.get("color"))] if event.get("color") in _SIDES else None,
                        int(info.get("white_die", 0)), int(info.get("black_die", 0)))
                if want != (winner, first, second):
                    raise DiceProofError(f"{where}: the seed gives the opening roll {first} (white) and {second} "
                                         f"(black), so {winner.name.lower()} opens; the record says "
                                         f"{want[1]} and {want[2]}, {event.get('color')} opens")
                match.apply(Action(ActionKind.OPENING_ROLL, winner, dice=(max(first, second), min(first, second))))
                rolls += 1
            elif kind == "roll":
                color = _SIDES.get(str(event.get("color")))
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
            elif kind in ("challenge", "accept_challenge", "decline", "mode", "match_over", "timeout"):
                continue
            else:
                if not event.get("action"):
                    raise DiceProofError(f"{where}: a {kind} without its action")
                match.apply(Action.from_text(str(event["action"])))
        except GammonError as error:
            if isinstance(error, DiceProofError):
                raise
            raise DiceProofError(f"{where}: the referee refuses it: {error}") from None
    finished = match.is_over or (length == 0 and match.game_over)
    if data.get("status") == "finished" and not finished:
        raise DiceProofError("the record ends before the match does")
    score = data.get("score") or {}
    if (score.get("white"), score.get("black")) != (match.score[Color.WHITE], match.score[Color.BLACK]):
        raise DiceProofError(f"the replay ends {match.score[Color.WHITE]}-{match.score[Color.BLACK]} (white-black), "
                             f"the record says {score.get('white')}-{score.get('black')}")
    return rolls


def _field(data: Mapping[str, Any], name: str, kind: type) -> Any:
    value = data.get(name)
    if not isinstance(value, kind):
        raise DiceProofError(f"{name}: expected the match as GET /api/matches/ID?history=all gives it")
    return value


def _check_numbering(data: Mapping[str, Any], history: list[Any]) -> None:
    """Events numbered 0, 1, 2, ... to the last one the match counts, and (when given) the digest chain."""
    for number, event in enumerate(history):
        if not isinstance(event, dict) or event.get("seq") != number:
            raise DiceProofError(f"event {number}: missing or out of order (events must run 0, 1, 2, ...)")
    digest = digest_of(history)
    last = data.get("last_seq")
    if last is not None and last != len(history) - 1:
        raise DiceProofError(f"the match has events up to {last}, the record {len(history) - 1}")
    published = data.get("digest")
    if published is not None and published != digest:
        raise DiceProofError(f"the events' digest is {digest}, the match published {published}: an event was changed")


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


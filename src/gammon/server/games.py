"""Matches on the server: challenges, and every action applied through the referee in one transaction.

A match's truth is its event log. Each request loads the match (the current game is
replayed through :class:`~gammon.match.Match` from the snapshot taken at its start), applies
the action, lets the server do what follows by itself (a game's next opening roll, a roll
that cannot be played), appends the new events and moves the match row's ``version`` on,
all in one transaction: a submission made against an old version changes nothing (409).
"""

from __future__ import annotations

import dataclasses
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session as DbSession
from sqlalchemy.orm.attributes import set_committed_value

from ..errors import GammonError, IllegalActionError
from ..match import Action, ActionKind, GameResult, Match
from ..play import OFF, Play, effects_text
from ..position import Color
from ..referee import beaver_refusal, CubeState, opening_roll, opening_winner
from ..state import GameState, GameStatus, Resignation
from .dice import CommittedDice, commitment, dice_of, new_seed
from .errors import Conflict, Forbidden, NotFound, Unprocessable
from .models import Event, MatchRow, RatingChange, User, utcnow
from .ratings import rating_change

OPTIONS: dict[str, bool] = {"crawford": True, "jacoby": False, "beavers": False, "hints": False,
                            "cube_hints": False, "verbose": False}
MAX_LENGTH = 25
ACTIONS = ("roll", "play", "double", "take", "drop", "beaver", "resign", "accept", "reject")
RESIGNATION_WORDS = {Resignation.SINGLE: "a single game", Resignation.GAMMON: "a gammon",
                     Resignation.BACKGAMMON: "a backgammon"}


def check_options(length: object, options: object) -> tuple[int, dict[str, bool]]:
    """The match length and every option, each checked, with the defaults filled in."""
    if isinstance(length, bool) or not isinstance(length, int) or not 0 <= length <= MAX_LENGTH:
        raise Unprocessable(f"length: expected a whole number of points from 0 (money game) to {MAX_LENGTH}, got {length!r}")
    options = {} if options is None else options
    if not isinstance(options, dict):
        raise Unprocessable("options: expected an object such as {\"crawford\": true, \"hints\": false}")
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise Unprocessable(f"options: unknown {', '.join(map(repr, unknown))}; expected some of {', '.join(OPTIONS)}")
    for key, value in options.items():
        if not isinstance(value, bool):
            raise Unprocessable(f"options.{key}: expected true or false, got {value!r}")
    chosen = {**OPTIONS, **options}
    if length and (chosen["jacoby"] or chosen["beavers"]):
        raise Unprocessable("options: jacoby and beavers are money-game rules (length 0)")
    return length, chosen


def color_name(color: Color) -> str:
    return color.name.lower()


# -- loading a match ----------------------------------------------------------------------------
class _Cache:
    """Matches as last committed, by id and version, so a request rarely replays a game."""

    def __init__(self, size: int = 256) -> None:
        self._items: OrderedDict[int, tuple[int, Match]] = OrderedDict()
        self._lock = threading.Lock()
        self.size = size

    def take(self, match_id: int, version: int) -> Match | None:
        with self._lock:
            item = self._items.get(match_id)
            if item is None or item[0] != version:
                return None
            del self._items[match_id]  # the taker may change it: nobody else gets the same object
        return item[1]

    def put(self, match_id: int, version: int, match: Match) -> None:
        with self._lock:
            self._items[match_id] = (version, match)
            while len(self._items) > self.size:
                self._items.popitem(last=False)


_cache = _Cache()


def start_state(row: MatchRow) -> GameState:
    """The state before the current game's opening roll, from the snapshot taken when it began."""
    start = row.game_start
    score = [0, 0]
    score[Color.WHITE], score[Color.BLACK] = start["white"], start["black"]
    return GameState(match_length=row.length, score=tuple(score), crawford=start["crawford"],
                     jacoby=row.options["jacoby"], beavers=row.options["beavers"], status=GameStatus.NONE)


def load(db: DbSession, row: MatchRow) -> Match:
    """The match as committed: the current game replayed from its start (checked by the referee)."""
    match = _cache.take(row.id, row.version)
    if match is None:
        lines = db.scalars(select(Event.action).where(Event.match_id == row.id, Event.game == row.game_number,
                                                      Event.seq < row.next_seq, Event.action.is_not(None))
                           .order_by(Event.seq)).all()
        match = Match.replay(lines, start_state(row), crawford=row.options["crawford"])
        match.game_number = row.game_number
    match.dice = CommittedDice(bytes.fromhex(row.seed), row.rolls_drawn)
    return match


def full_match(db: DbSession, row: MatchRow, upto: int | None = None) -> Match:
    """Every game of the match replayed from the first (for records); with ``upto``, its events
    numbered up to that one only (a replay's step)."""
    first = GameState(match_length=row.length, jacoby=row.options["jacoby"], beavers=row.options["beavers"],
                      status=GameStatus.NONE)
    match = Match.from_state(first, crawford=row.options["crawford"])
    last = row.next_seq - 1 if upto is None else min(upto, row.next_seq - 1)
    for kind, line in db.execute(select(Event.kind, Event.action).where(Event.match_id == row.id,
                                                                       Event.seq <= last)
                                 .order_by(Event.seq)).all():
        if line is not None:
            match.apply(Action.from_text(line))
        elif kind == "new_game":
            match.new_game()
    return match


# -- what a player may do ---------------------------------------------------------------------
def available_actions(match: Match) -> list[str]:
    """The actions open to the side to act now (empty when nobody is to act)."""
    if match.to_act is None or match.game_over:
        return []
    state = match.state
    if state.double_offered:
        actions = ["take", "drop"]
        if beaver_refusal(CubeState(state.cube, state.cube_owner), beavers=state.beavers,
                          cube_limit=state.cube_limit) is None:
            actions.insert(1, "beaver")
        return actions
    if state.resignation is not None:
        return ["accept", "reject"]
    if state.dice is None:
        return ["roll", "double", "resign"] if match.can_double() else ["roll", "resign"]
    return ["play", "resign"]


# -- the service ----------------------------------------------------------------------------
@dataclasses.dataclass
class Outcome:
    """What a request changed: the match row, the match, and whether a bot is now to act."""

    row: MatchRow
    match: Match | None
    bot_to_act: bool = False


class _Recorder:
    """Appends the events of each step (the actions it added to the match's history, a game's
    end, the match's end), with their one-sentence descriptions."""

    def __init__(self, db: DbSession, row: MatchRow, match: Match, next_seq: int) -> None:
        self.db, self.row, self.match = db, row, match
        self.seq = next_seq
        self.seen = len(match.history)
        self.results = len(match.results)
        self.names = {Color.WHITE: row.white.name, Color.BLACK: row.black.name}
        self.verbose = row.options["verbose"]
        self.events: list[Event] = []
        self.game_start: dict[str, Any] | None = None  #: the snapshot of a game begun in this request

    def add(self, kind: str, description: str, color: Color | None = None, action: str | None = None,
            **data: Any) -> None:
        event = Event(match_id=self.row.id, seq=self.seq, game=self.match.game_number, kind=kind,
                      color=color_name(color) if color is not None else None, action=action, data=data,
                      description=description)
        self.seq += 1
        self.events.append(event)

    def step(self, before: GameState) -> None:
        """Record what the last step did; ``before`` is the committed state it started from."""
        match = self.match
        dice: CommittedDice = match.dice  # type: ignore[assignment]
        numbers = dice.take_used()
        for action in match.history[self.seen:]:
            self._action(action, before, numbers)
            before = match.state
        self.seen = len(match.history)
        if len(match.results) > self.results:
            self.results = len(match.results)
            self._result(match.results[-1])

    def _action(self, action: Action, before: GameState, numbers: list[int]) -> None:
        name = self.names[action.color] if action.color is not None else ""
        kind, line = action.kind, str(action)
        if kind == ActionKind.OPENING_ROLL:
            seed = bytes.fromhex(self.row.seed)
            draws = [dice_of(seed, n)[0] for n in numbers]
            white, black = draws[-2], draws[-1]
            hi, lo = action.dice  # type: ignore[misc]
            ties = len(draws) // 2 - 1
            again = f" after {ties} tie{'s' if ties != 1 else ''}" if ties else ""
            text = (f"Game {self.match.game_number}: {self.names[Color.WHITE]} rolls {white} and "
                    f"{self.names[Color.BLACK]} rolls {black}{again}; {name} plays first with {hi}-{lo}.")
            self.add("opening", text, action.color, line, dice=[hi, lo], numbers=numbers, draws=draws,
                     white_die=white, black_die=black)
        elif kind == ActionKind.ROLL:
            d1, d2 = action.dice  # type: ignore[misc]
            self.add("roll", f"{name} rolls {d1}-{d2}.", action.color, line, dice=[d1, d2], numbers=numbers)
        elif kind == ActionKind.PLAY:
            play = action.play or Play()
            self.add("play", self._play_text(name, play, before), action.color, line, play=str(play) if play.moves else "",
                     hits=int(sum(move.hit for move in play.moves)),
                     borne_off=int(sum(move.target == 0 for move in play.moves)))
        elif kind == ActionKind.DOUBLE:
            self.add("double", f"{name} doubles to {before.cube * 2}.", action.color, line, cube=before.cube * 2)
        elif kind in (ActionKind.TAKE, ActionKind.BEAVER):
            cube = self.match.state.cube
            verb = "takes" if kind == ActionKind.TAKE else "beavers"
            self.add(kind.value, f"{name} {verb}: the cube is at {cube}, owned by {name}.", action.color, line, cube=cube)
        elif kind == ActionKind.DROP:
            self.add("drop", f"{name} drops the double.", action.color, line)
        elif kind == ActionKind.RESIGN:
            resignation = action.resignation or Resignation.SINGLE
            self.add("resign", f"{name} offers to resign {RESIGNATION_WORDS[resignation]}.", action.color, line,
                     value=int(resignation))
        elif kind == ActionKind.ACCEPT:
            self.add("accept", f"{name} accepts the resignation.", action.color, line)
        elif kind == ActionKind.REJECT:
            self.add("reject", f"{name} rejects the resignation: play goes on.", action.color, line)
        elif kind == ActionKind.NEW_GAME:
            self.add("new_game", f"Game {self.match.game_number} begins.", None, None)

    def _play_text(self, name: str, play: Play, before: GameState) -> str:
        if not play.moves:
            return f"{name} cannot move."
        text = f"{name} plays {play}"
        effects = effects_text(play)
        if effects:
            text += ", " + effects
        if self.verbose:
            state = self.match.state
            mover = before.position.turn
            pips = state.position.pip_count(mover), state.position.pip_count(mover.other)
            other = self.names[mover.other]
            text += f"; pips {name} {pips[0]}, {other} {pips[1]}"
        return text + "."

    def _result(self, result: GameResult) -> None:
        match = self.match
        winner = self.names[result.winner]
        score = {"white": match.score[Color.WHITE], "black": match.score[Color.BLACK]}
        points = f"{result.points} point{'s' if result.points != 1 else ''}"
        text = (f"{winner} wins game {match.game_number} and {points} ({result.detail}); score "
                f"{self.names[Color.WHITE]} {score['white']}, {self.names[Color.BLACK]} {score['black']}.")
        self.add("game_over", text, result.winner, None, points=result.points, win_kind=int(result.kind),
                 ended=result.ended.name.lower(), score=score)
        if match.is_over or self.row.length == 0:
            if self.row.length:
                text = f"{winner} wins the {self.row.length}-point match {max(score.values())}-{min(score.values())}."
            else:
                text = f"{winner} wins the money game, {result.points} {'point' if result.points == 1 else 'points'}."
            self.add("match_over", text, result.winner, None, score=score)


def user_color(row: MatchRow, user: User) -> Color:
    """The side ``user`` plays in ``row``; Forbidden when they do not play in it."""
    if user.id == row.white_id:
        return Color.WHITE
    if user.id == row.black_id:
        return Color.BLACK
    raise Forbidden(f"{user.name} does not play in match {row.id}")


def get_row(db: DbSession, match_id: int, *, lock: bool = False) -> MatchRow:
    query = select(MatchRow).where(MatchRow.id == match_id)
    if lock:
        query = query.with_for_update(of=MatchRow)
    row = db.scalars(query).first()
    if row is None:
        raise NotFound(f"no match {match_id}")
    return row


def _commit(db: DbSession, row: MatchRow, match: Match, recorder: _Recorder, *, version: int,
            status: str | None = None, modes: dict[str, dict[str, bool]] | None = None) -> None:
    """Move the version on (only from ``version``: else 409, nothing applied) and write the events."""
    state = match.state
    values: dict[str, Any] = dict(
        version=version + 1, next_seq=recorder.seq, rolls_drawn=match.dice.drawn, game_number=match.game_number,  # type: ignore[attr-defined]
        state=written(state.bpn), score_white=state.score[Color.WHITE], score_black=state.score[Color.BLACK], updated=utcnow(),
        to_act_id=_to_act_id(row, match),
    )
    if recorder.game_start is not None:
        values["game_start"] = recorder.game_start
    if status is not None:
        values["status"] = status
    if modes is not None:
        values["pbm_modes"] = modes
    changed = db.execute(update(MatchRow).where(MatchRow.id == row.id, MatchRow.version == version).values(**values)
                         .execution_options(synchronize_session=False))
    if changed.rowcount != 1:
        db.rollback()
        raise Conflict(f"match {row.id} has moved on from version {version}: reload it and act again")
    db.add_all(recorder.events)
    db.flush()
    for key, value in values.items():
        set_committed_value(row, key, value)


def _to_act_id(row: MatchRow, match: Match) -> int | None:
    if match.to_act is None or match.game_over:
        return None
    return row.white_id if match.to_act == Color.WHITE else row.black_id


def _advance(match: Match, recorder: _Recorder, row: MatchRow) -> bool:
    """What the server does by itself after an action; True when the match has ended."""
    while True:
        before = match.state
        if match.game_over:
            if match.is_over or row.length == 0:
                return True
            match.new_game()
            start = match.state
            recorder.game_start = {"white": start.score[Color.WHITE], "black": start.score[Color.BLACK],
                                  "crawford": start.crawford}
            recorder.step(before)
            match.roll()  # the opening roll: each side rolls one die until they differ
            recorder.step(match.state)
            continue
        if before.dice is not None and before.status == GameStatus.PLAYING:
            legal = match.legal_plays
            if len(legal) == 1 and not legal[0].moves:
                match.play(Play())
                recorder.step(before)
                continue
        modes = _modes_of(row, match.to_act)
        if modes is not None and before.status == GameStatus.PLAYING:
            automatic = _automatic_action(match, modes)
            if automatic is not None:
                if automatic == "roll":
                    match.roll(match.to_act)
                else:
                    match.play(automatic, match.to_act)
                recorder.step(before)
                continue
        return False


# -- play by mail's modes -----------------------------------------------------------------------
#: A mover's modes in a match played by mail. Manual off (the default): the server rolls for
#: you when you have nothing else to decide (you double only in manual mode). Greedy on: a
#: bear-off that uses every die is made for you. In both, a forced play is made for you.
DEFAULT_MODES = {"greedy": False, "manual": False}
#: The modes of a seat that has never chosen any, in a match begun by the API: nothing automatic.
API_MODES = {"greedy": False, "manual": True}


def _modes_of(row: MatchRow, color: Color | None) -> dict[str, bool] | None:
    if row.pbm_modes is None or color is None:
        return None
    return row.pbm_modes.get(color_name(color))


def _automatic_action(match: Match, modes: dict[str, bool]) -> Play | str | None:
    """What the server does for a mover by mail: roll (manual off), a forced or greedy play."""
    state = match.state
    if state.double_offered or state.resignation is not None or match.game_over:
        return None
    if state.dice is None:
        return None if modes["manual"] else "roll"
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


def set_mode(db: DbSession, user: User, row: MatchRow, mode: str, on: bool | None = None) -> Outcome:
    """Turn a player's ``greedy`` or ``manual`` mode on, off (``on`` None: toggle), and act on it at once."""
    if mode not in DEFAULT_MODES:
        raise Unprocessable(f"mode: expected greedy or manual, got {mode!r}")
    color = user_color(row, user)
    if row.status != "playing":
        raise Unprocessable(f"match {row.id} is {row.status}: its modes cannot change")
    match = load(db, row)
    modes = {side: dict(API_MODES) for side in ("white", "black")} if row.pbm_modes is None else \
        {side: dict(values) for side, values in row.pbm_modes.items()}
    side = color_name(color)
    modes[side][mode] = (not modes[side][mode]) if on is None else on
    recorder = _Recorder(db, row, match, row.next_seq)
    state = "on" if modes[side][mode] else "off"
    recorder.add("mode", f"{user.name} turns {mode} mode {state}.", color, None, mode=mode, on=modes[side][mode])
    set_committed_value(row, "pbm_modes", modes)
    ended = _advance(match, recorder, row)
    _commit(db, row, match, recorder, version=row.version, status="finished" if ended else None, modes=modes)
    if ended:
        _finish(db, row, match)
    _cache.put(row.id, row.version, match)
    return Outcome(row, match, bot_to_act=_bot_to_act(db, row))


def _finish(db: DbSession, row: MatchRow, match: Match) -> None:
    result = match.results[-1]
    winner_id = row.white_id if result.winner == Color.WHITE else row.black_id
    finished = utcnow()
    db.execute(update(MatchRow).where(MatchRow.id == row.id).values(winner_id=winner_id, finished=finished)
               .execution_options(synchronize_session=False))
    set_committed_value(row, "winner_id", winner_id)
    set_committed_value(row, "finished", finished)
    if row.length:
        _rate(db, row, winner_id)


def _rate(db: DbSession, row: MatchRow, winner_id: int) -> None:
    winner = db.get(User, winner_id)
    loser = db.get(User, row.black_id if winner_id == row.white_id else row.white_id)
    assert winner is not None and loser is not None
    gain, loss = rating_change(winner.rating, loser.rating, winner.experience, loser.experience, row.length)
    now = utcnow()
    db.add(RatingChange(user_id=winner.id, match_id=row.id, before=winner.rating, after=winner.rating + gain, won=True, at=now))
    db.add(RatingChange(user_id=loser.id, match_id=row.id, before=loser.rating, after=loser.rating - loss, won=False, at=now))
    winner.rating += gain
    loser.rating -= loss
    winner.experience += row.length
    loser.experience += row.length


# -- requests ---------------------------------------------------------------------------------
def challenge(db: DbSession, user: User, opponent: User, length: object, options: object, *,
              challenger_first: bool = False, modes: dict[str, dict[str, bool]] | None = None) -> Outcome:
    """A new match between ``user`` (white) and ``opponent``; a bot accepts at once.

    ``challenger_first`` (play by mail's ``-force``) gives the challenger the first move: the
    seed is drawn again until its opening roll goes to white, so the dice stay the committed
    seed's and every opening roll that white wins is as likely as before. ``modes`` are the
    players' play-by-mail modes (see :func:`set_mode`); None for a match played by the API.
    """
    length, chosen = check_options(length, options)
    if opponent.id == user.id:
        raise Unprocessable("opponent: you cannot challenge yourself")
    seed = new_seed()
    while challenger_first and opening_winner(*opening_roll(CommittedDice(seed))) != 0:
        seed = new_seed()
    row = MatchRow(white_id=user.id, black_id=opponent.id, length=length, options=chosen, status="invited",
                   version=0, next_seq=0, seed=seed.hex(), commitment=commitment(seed), rolls_drawn=0, game_number=1,
                   game_start={"white": 0, "black": 0, "crawford": False}, score_white=0, score_black=0,
                   pbm_modes=modes)
    db.add(row)
    db.flush()
    row.white, row.black = user, opponent
    recorder_match = Match.from_state(start_state(row), crawford=chosen["crawford"])
    recorder_match.dice = CommittedDice(seed)
    recorder = _Recorder(db, row, recorder_match, 0)
    what = f"a {length}-point match" if length else "a money game"
    recorder.add("challenge", f"{user.name} challenges {opponent.name} to {what}.", Color.WHITE)
    db.add_all(recorder.events)
    row.next_seq = recorder.seq
    db.flush()
    if opponent.is_bot:
        return accept(db, opponent, row)
    return Outcome(row, None)


def accept(db: DbSession, user: User, row: MatchRow) -> Outcome:
    """The challenged player accepts: the seed is committed and the opening roll is made."""
    if user.id != row.black_id:
        raise Forbidden(f"only {row.black.name} can accept match {row.id}")
    if row.status != "invited":
        raise Unprocessable(f"match {row.id} is {row.status}, not an open invitation")
    match = Match.from_state(start_state(row), crawford=row.options["crawford"])
    match.dice = CommittedDice(bytes.fromhex(row.seed), 0)
    recorder = _Recorder(db, row, match, row.next_seq)
    recorder.add("accept_challenge", f"{user.name} accepts; the dice are committed: SHA-256 of the seed {row.commitment}.",
                 Color.BLACK, commitment=row.commitment)
    match.roll()
    recorder.step(GameState())
    _advance(match, recorder, row)
    _commit(db, row, match, recorder, version=row.version, status="playing")
    return Outcome(row, match, bot_to_act=_bot_to_act(db, row))


def decline(db: DbSession, user: User, row: MatchRow) -> None:
    if user.id not in (row.black_id, row.white_id):
        raise Forbidden(f"{user.name} does not play in match {row.id}")
    if row.status != "invited":
        raise Unprocessable(f"match {row.id} is {row.status}, not an open invitation")
    verb = "declines" if user.id == row.black_id else "withdraws"
    match = Match.from_state(start_state(row), crawford=row.options["crawford"])
    match.dice = CommittedDice(bytes.fromhex(row.seed))
    recorder = _Recorder(db, row, match, row.next_seq)
    recorder.add("decline", f"{user.name} {verb} the challenge.", user_color(row, user))
    _commit(db, row, match, recorder, version=row.version, status="declined")


def act(db: DbSession, user: User, row: MatchRow, action: object, *, play: object = None, value: object = None,
        version: object = None) -> Outcome:
    """Apply one player's action; every refusal raises before anything is written."""
    if action not in ACTIONS:
        raise Unprocessable(f"action: expected one of {', '.join(ACTIONS)}, got {action!r}")
    if version is not None and (isinstance(version, bool) or not isinstance(version, int)):
        raise Unprocessable(f"version: expected the match's version number, got {version!r}")
    color = user_color(row, user)
    if version is not None and version != row.version:
        raise Conflict(f"match {row.id} is at version {row.version}, not {version}: reload it and act again")
    if row.status != "playing":
        raise Unprocessable(f"match {row.id} is {row.status}: nothing can be played")
    match = load(db, row)
    if match.to_act != color:
        who = row.white.name if match.to_act == Color.WHITE else row.black.name
        raise Forbidden(f"it is {who}'s turn to act, not {user.name}'s")
    recorder = _Recorder(db, row, match, row.next_seq)
    before = match.state
    try:
        _apply(match, color, action, play, value)  # type: ignore[arg-type]
    except Unprocessable:
        raise
    except IllegalActionError as error:
        raise Unprocessable(f"{error}; you may now: {', '.join(available_actions(match))}") from None
    except GammonError as error:  # an illegal or malformed play
        if "legal" in str(error):
            raise Unprocessable(f"play: {error}") from None
        legal = [str(p) for p in match.legal_plays] if match.state.dice is not None else []
        raise Unprocessable(f"play: {error}; legal plays: {', '.join(legal) or 'none'}") from None
    recorder.step(before)
    ended = _advance(match, recorder, row)
    _commit(db, row, match, recorder, version=row.version, status="finished" if ended else None)
    if ended:
        _finish(db, row, match)
    _cache.put(row.id, row.version, match)
    return Outcome(row, match, bot_to_act=_bot_to_act(db, row))


def _apply(match: Match, color: Color, action: str, play: object, value: object) -> None:
    if action == "roll":
        match.roll(color)
    elif action == "play":
        if not isinstance(play, str) or len(play) > 200:
            raise Unprocessable("play: expected the play in standard notation, e.g. \"8/5 6/5\"")
        if match.state.dice is None:
            raise Unprocessable("play: roll first")
        match.play(play, color)
    elif action == "resign":
        if value is None:
            value = 1
        if isinstance(value, bool) or value not in (1, 2, 3):
            raise Unprocessable(f"value: expected 1 (single game), 2 (gammon) or 3 (backgammon), got {value!r}")
        match.resign(Resignation(value), color)
    else:
        getattr(match, action)(color)


def _bot_to_act(db: DbSession, row: MatchRow) -> bool:
    if row.status != "playing" or row.to_act_id is None:
        return False
    user = db.get(User, row.to_act_id)
    return bool(user and user.is_bot)


# -- what clients see -------------------------------------------------------------------------
def view(db: DbSession, row: MatchRow, match: Match | None = None, *, history: bool = True) -> dict[str, Any]:
    """The match as the JSON API shows it (``GET /api/matches/{id}``)."""
    names = {"white": row.white.name, "black": row.black.name}
    out: dict[str, Any] = {
        "id": row.id, "status": row.status, "players": names, "length": row.length, "options": row.options,
        "score": {"white": row.score_white, "black": row.score_black}, "game": row.game_number,
        "version": row.version, "winner": None, "crawford": False, "to_act": None, "dice": None,
        "cube": {"value": 1, "owner": None, "offered": False}, "resignation": None, "gnubg_id": None, "bpn": None,
        "actions": [], "legal": [],
        "dice_proof": {"commitment": row.commitment, "seed": row.seed if row.status in ("finished", "declined") else None},
    }
    if row.winner_id is not None:
        out["winner"] = row.white.name if row.winner_id == row.white_id else row.black.name
    if row.status in ("playing", "finished"):
        if match is None:
            match = load(db, row)
            _cache.put(row.id, row.version, match)
        state = match.state
        to_act = None if match.game_over else match.to_act
        out.update(
            crawford=state.crawford, to_act=color_name(to_act) if to_act is not None else None,
            dice=list(state.dice) if state.dice else None,
            cube={"value": state.cube, "owner": color_name(state.cube_owner) if state.cube_owner is not None else None,
                  "offered": state.double_offered},
            resignation=({"by": color_name(state.position.turn), "value": int(state.resignation)}
                         if state.resignation is not None else None),
            gnubg_id=written(state.gnubg_id), bpn=written(state.bpn), actions=available_actions(match) if row.status == "playing" else [],
            pips={"white": state.position.pip_count(Color.WHITE), "black": state.position.pip_count(Color.BLACK)},
        )
        if out["actions"] and "play" in out["actions"]:
            out["legal"] = [str(p) for p in match.legal_plays]
    if history:
        out["history"] = events_between(db, row.id, -1, row.next_seq)
    return out


def written(notation: Callable[[], str]) -> str | None:
    """A state's notation, or None for what no notation describes (a match already won: score ≥ length)."""
    try:
        return notation()
    except GammonError:
        return None


_EVENT_COLUMNS = (Event.seq, Event.game, Event.kind, Event.color, Event.action, Event.description, Event.data, Event.at)


def events_between(db: DbSession, match_id: int, after: int, before: int | None = None) -> list[dict[str, Any]]:
    """The events numbered after ``after`` (and below ``before``) as the API shows them, in order.

    Read as plain rows, not ORM objects: a long match's history is read on every view.
    """
    query = select(*_EVENT_COLUMNS).where(Event.match_id == match_id, Event.seq > after)
    if before is not None:
        query = query.where(Event.seq < before)
    return [{"seq": seq, "game": game, "kind": kind, "color": color, "action": action, "description": description,
             "data": data, "at": at.isoformat() + "Z"}
            for seq, game, kind, color, action, description, data, at in db.execute(query.order_by(Event.seq))]


def summary(row: MatchRow) -> dict[str, Any]:
    """A match in lists: who, how long, where it stands."""
    return {"id": row.id, "status": row.status, "players": {"white": row.white.name, "black": row.black.name},
            "length": row.length, "score": {"white": row.score_white, "black": row.score_black},
            "winner": (row.white.name if row.winner_id == row.white_id else row.black.name) if row.winner_id else None,
            "to_act": (row.white.name if row.to_act_id == row.white_id else row.black.name) if row.to_act_id else None,
            "updated": row.updated.isoformat() + "Z"}

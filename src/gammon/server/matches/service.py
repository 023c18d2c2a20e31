"""The match service: the one path every change to a match takes, from every door.

HTTP routes, play by mail and the bots all call :class:`MatchService`. It reads the match as
committed (:mod:`~gammon.server.matches.live`), applies the action to a copy through the
referee, lets the server do what follows by itself (a game's next opening roll, a roll
nobody can play, play by mail's automatic moves) exactly once, and hands the writer one
write: the match row moved on from the version it was read at (else 409, nothing applied),
the events, the ratings when the match ends. Only when that is committed is the copy kept,
the news published, and the caller answered.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, func, select

from ...errors import (
    AmbiguousPlayError,
    GammonError,
    IllegalActionError,
    IllegalPlayError,
    InvalidMoveError,
)
from ...events import (
    ChallengeAccepted,
    ChallengeDeclined,
    Challenged,
    GameOver,
    MatchEvent,
    MatchOver,
    ModeChanged,
    Played,
    TimedOut,
)
from ...match import Action, ActionKind, Match, PlayerAction
from ...play import Play
from ...position import Color
from ...referee import opening_roll
from ...state import Resignation
from ..database import Readers
from ..errors import Conflict, Forbidden, NotFound, ServerError, TooManyRequests, Unprocessable
from ..limits import hit
from ..models import utcnow
from ..writer import Writer
from . import clock, store
from .fair_dice import SCHEME, CommittedDice, DiceProofError, check_player_seed, commitment, drawn_seed, new_seed
from .live import LiveMatch, LiveMatches, committed_dice, event_rows, rebuild, side_name, start_state, written
from .ratings import Rated, rating_change, stakes
from .rules import (API_MODES, MAIL_MODES, automatic_action, available_actions, check_options, fair_options,
                    forfeited_score, modes_of, rated_play)
from .store import MatchInfo, Seat

log = logging.getLogger("gammon.server")
COMMITMENT_MINUTES = 30  #: how long a commitment shown before a challenge stays usable (then it is swept)
COMMITMENTS_OPEN = 5  #: commitments one account may hold unused at once
COMMITMENTS_PER_HOUR = 60  #: commitments one account may ask for an hour
#: Seconds without a heartbeat after which the server counts as not serving (down, or frozen):
#: no clock counts time beyond the last heartbeat and this much (:meth:`MatchService.heartbeat`).
PAUSE = 5.0
PG_CHANNEL = "gammon_matches"


@dataclass(frozen=True, slots=True)
class Applied:
    """What a change left: the match as now committed, and the event rows it wrote."""

    live: LiveMatch
    rows: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Policy:
    """The service's settings: rating rules, the challenge limit, and how the news leaves."""

    provisional_matches: int = 5
    pair_matches_per_day: int = 3
    challenges_per_hour: int = 30
    invitations_per_target: int = 20  #: invitations one person may be sent an hour, by everyone together
    notify_postgres: bool = False  #: NOTIFY in the write's own transaction (PostgreSQL without Redis)
    single_process: bool = False  #: no other process writes this database: a held match is current


NOTES = "gammon_notes"  #: a write transaction's notes for other servers (match -> last event)
NOTE_BYTES = 7000  #: PostgreSQL takes a NOTIFY payload under 8000 bytes


def flush_notes(connection: Connection) -> None:
    """Before a batch commits: one NOTIFY (or a few) with every match it changed, ``id:seq,id:seq``."""
    notes = connection.info.pop(NOTES, None)
    if not notes:
        return
    payload = ""
    for match_id, seq in notes.items():
        note = f"{match_id}:{seq}"
        if payload and len(payload) + len(note) + 1 > NOTE_BYTES:
            connection.execute(select(func.pg_notify(PG_CHANNEL, payload)))
            payload = ""
        payload = f"{payload},{note}" if payload else note
    connection.execute(select(func.pg_notify(PG_CHANNEL, payload)))


class MatchService:
    """Matches read, changed and written (see the module). ``changed`` is called on the event
    loop after each commit with the new match and the event rows written."""

    def __init__(self, readers: Readers, writer: Writer, policy: Policy,
                 changed: Callable[[LiveMatch, list[dict[str, Any]]], None] | None = None) -> None:
        self.readers, self.writer, self.policy = readers, writer, policy
        self.live = LiveMatches()
        self.changed = changed
        self.heard: dt.datetime | None = None  #: the last heartbeat written (None: clocks count the wall clock)

    # -- reading ---------------------------------------------------------------------------------
    async def current(self, match_id: int) -> LiveMatch:
        """The match as last committed (NotFound when there is none)."""
        if self.policy.single_process:
            held = self.live.get(match_id)
            if held is not None:
                return held
        info = await self.readers.run(lambda connection: store.read_info(connection, match_id))
        if info is None:
            raise NotFound(f"no match {match_id}")
        held = self.live.get(match_id, info.version)
        if held is not None:
            return held
        if info.status in ("playing", "finished"):
            actions = await self.readers.run(lambda connection: store.read_game_actions(connection, info))
        else:
            actions = []
        try:
            live = rebuild(info, actions)
        except GammonError:
            log.exception("match %d does not replay", match_id)
            raise Unprocessable(f"match {match_id} cannot be replayed: its record is damaged") from None
        self.live.put(live)
        return live

    async def events(self, match_id: int, after: int = -1, before: int | None = None,
                     limit: int | None = None) -> list[store.EventRow]:
        return await self.readers.run(lambda connection: store.read_events(connection, match_id, after, before, limit))

    # -- the lobby -------------------------------------------------------------------------------
    async def new_commitment(self, user: Seat) -> tuple[str, str]:
        """A server seed drawn and committed before ``user`` chooses theirs: (token, commitment). Only
        ``user`` may use it; they may hold :data:`COMMITMENTS_OPEN` unused and ask for
        :data:`COMMITMENTS_PER_HOUR` an hour, and one unused for :data:`COMMITMENT_MINUTES` is swept."""
        seed = new_seed()
        token = secrets.token_urlsafe(24)
        since = utcnow() - dt.timedelta(minutes=COMMITMENT_MINUTES)

        def work(connection: Connection) -> None:
            if store.open_commitments(connection, user.id, since) >= COMMITMENTS_OPEN:
                raise TooManyRequests(f"{user.name}: at most {COMMITMENTS_OPEN} unused commitments at once: challenge "
                                      f"with one of them, or wait {COMMITMENT_MINUTES} minutes")
            count, wait = hit(connection, f"commitment:{user.id}", 3600)
            if count > COMMITMENTS_PER_HOUR:
                raise TooManyRequests(f"{user.name}: at most {COMMITMENTS_PER_HOUR} commitments an hour: try again "
                                      "later", retry_after=wait)
            store.add_commitment(connection, user.id, _hash(token), seed.hex())

        await self.writer.run(work)
        return token, commitment(seed)

    async def sweep_commitments(self) -> int:
        """Forget the commitments nobody used in time (none can be used any more); how many."""
        before = utcnow() - dt.timedelta(minutes=COMMITMENT_MINUTES)
        return await self.writer.run(lambda connection: store.sweep_commitments(connection, before))

    async def challenge(self, user: Seat, opponent: Seat, length: object, options: object, *,
                        seed: object = None, commitment_token: object = None, challenger_first: bool = False,
                        modes: dict[str, dict[str, bool]] | None = None, confirmed: bool = True,
                        requester: str | None = None) -> Applied:
        """A new match between ``user`` (white) and ``opponent``; a bot accepts at once.

        ``seed`` is the challenger's own dice seed, sent only with ``commitment_token``: the token of a
        server seed committed before it (:meth:`new_commitment`); without a seed the challenger's is
        drawn from the commitment (:func:`~.fair_dice.drawn_seed`), as a bot's is. ``challenger_first``
        (play by mail's ``-force``) gives the challenger the higher die of the first opening roll.
        ``confirmed`` False: made for the challenger by someone without their password, it waits
        for the challenger's own acceptance too, and counts against ``requester`` (the client that
        sent it), not the challenger, until the challenger confirms it.
        """
        asked_rated = options.get("rated") if isinstance(options, dict) else None
        length, chosen = check_options(length, options)
        if opponent.id == user.id:
            raise Unprocessable("opponent: you cannot challenge yourself")
        chosen = fair_options(chosen, user, opponent, asked_rated)  # told in the invitation's terms
        if seed is not None and commitment_token is None:
            raise Unprocessable("seed: send it with commitment, the token POST /api/commitments gave you first, so "
                                "the server has committed to its seed before it sees yours")
        own_seed = _own_seed(seed)
        if commitment_token is not None:
            if not isinstance(commitment_token, str) or len(commitment_token) > 100:
                raise Unprocessable("commitment: expected the token that POST /api/commitments gave")
            token_hash = _hash(commitment_token)
            since = utcnow() - dt.timedelta(minutes=COMMITMENT_MINUTES)
            server_seed = await self.writer.run(
                lambda connection: store.take_commitment(connection, user.id, token_hash, since))
            if server_seed is None:
                raise Unprocessable("commitment: unknown, used or expired: ask POST /api/commitments for a new one")
        else:
            server_seed = new_seed().hex()
        shown = commitment(bytes.fromhex(server_seed))
        now = utcnow()
        info = MatchInfo(
            id=0, status="invited", white=user, black=opponent, length=length, options=chosen, version=0, next_seq=0,
            game_number=1, game_start={"white": 0, "black": 0, "crawford": False, "challenger_first": challenger_first},
            seed=server_seed, commitment=shown, challenger_seed=own_seed or drawn_seed(shown, "challenger"),
            opponent_seed=None, dice_scheme=SCHEME, digest=None, rolls_drawn=0, score_white=0, score_black=0,
            winner_id=None, to_act_id=None, pbm_modes=modes, challenger_confirmed=confirmed, rated=None, created=now,
            updated=now)
        events: list[MatchEvent] = [Challenged(1, Color.WHITE, length, challenger_first)]
        match: Match | None = None
        if opponent.is_bot:
            info = dataclasses.replace(info, opponent_seed=drawn_seed(shown, "opponent"))  # fixed before the human's
            match, started = self._start(info)
            events += started
        sender, who = ((f"challenge:{user.id}", user.name) if confirmed else
                       (f"challenge:by:{requester}", "challenges sent without the challenger's password from one sender"))

        def work(connection: Connection) -> Applied:
            if not opponent.is_bot:
                self._count_invitation(connection, sender, who, opponent)
            values = _row_values(info, match, events_count=0, digest=None, now=now)
            values.update(white_id=user.id, black_id=opponent.id, seed=info.seed, commitment=info.commitment,
                          challenger_seed=info.challenger_seed, opponent_seed=info.opponent_seed, dice_scheme=info.dice_scheme,
                          length=length, options=chosen, pbm_modes=modes, challenger_confirmed=confirmed,
                          created=now, version=0, game_start=info.game_start)
            values["status"] = "playing" if match is not None else "invited"
            rule = chosen.get("clock")
            if rule and match is not None:
                values["clock"] = clock.started(rule, side_name(None if match.game_over else match.to_act), now)
            match_id = store.insert_match(connection, {key: value for key, value in values.items() if key != "id"})
            made = dataclasses.replace(info, id=match_id, status=values["status"])
            rows, digest = event_rows(events, made, 0, now, None)
            store.insert_events(connection, rows)
            store.set_match(connection, match_id, digest=digest, next_seq=len(rows))
            self._notify(connection, match_id, len(rows) - 1)
            kept = {key: value for key, value in _info_values(values, match).items() if key not in ("digest", "next_seq")}
            final = dataclasses.replace(made, **kept, digest=digest, next_seq=len(rows))
            return Applied(LiveMatch(final, match), rows)

        return await self.writer.run(work, on_commit=lambda applied: self._committed(applied.live, applied.rows))

    async def accept(self, user: Seat, match_id: int, *, seed: object = None) -> Applied:
        """The challenged player accepts (the dice are fixed, the opening roll is made); or the
        challenger confirms a challenge made for them by mail."""
        live = await self.current(match_id)
        info = live.info
        if info.status != "invited":
            raise Unprocessable(f"match {match_id} is {info.status}, not an open invitation")
        if user.id == info.white.id and not info.challenger_confirmed:  # from now on it is the challenger's own
            await self.writer.run(lambda connection: self._count_invitation(connection, f"challenge:{user.id}",
                                                                            user.name, None))
            return await self._save(live, None, [ChallengeAccepted(1, Color.WHITE)], challenger_confirmed=True)
        if user.id != info.black.id:
            raise Forbidden(f"only {info.black.name} can accept match {match_id}")
        if not info.challenger_confirmed:
            raise Unprocessable(f"{info.white.name} has not confirmed this challenge yet (they confirm with: "
                                f"accept {match_id} {info.white.name} PASSWORD)")
        opened = dataclasses.replace(info, opponent_seed=_own_seed(seed) or drawn_seed(info.commitment, "opponent"))
        match, events = self._start(opened)
        return await self._save(LiveMatch(opened, None), match, [ChallengeAccepted(1, Color.BLACK), *events],
                                status="playing", opponent_seed=opened.opponent_seed, present=Color.BLACK)

    async def decline(self, user: Seat, match_id: int) -> Applied:
        """The challenged player declines, or the challenger withdraws."""
        live = await self.current(match_id)
        info = live.info
        color = live.color_of(user.id)
        if color is None:
            raise Forbidden(f"{user.name} does not play in match {match_id}")
        if info.status != "invited":
            raise Unprocessable(f"match {match_id} is {info.status}, not an open invitation")
        withdrawn = color == Color.WHITE
        event = ChallengeDeclined(1, color, withdrawn=withdrawn)
        return await self._save(live, None, [event], status="withdrawn" if withdrawn else "declined")

    async def withdraw(self, user: Seat, match_id: int) -> Applied:
        """The challenger takes an invitation back before it is answered."""
        live = await self.current(match_id)
        if live.info.white.id != user.id:
            raise Forbidden(f"only {live.info.white.name}, who sent the invitation, can withdraw match {match_id}")
        return await self.decline(user, match_id)

    async def rematch(self, user: Seat, match_id: int, *, seed: object = None,
                      commitment_token: object = None) -> Applied:
        """A new invitation to the same opponent, of the same length and options (unrated where they now
        must be), after a finished match (``seed`` and ``commitment_token`` as for :meth:`challenge`)."""
        live = await self.current(match_id)
        info = live.info
        if live.color_of(user.id) is None:
            raise Forbidden(f"{user.name} does not play in match {match_id}")
        if info.status != "finished":
            raise Unprocessable(f"match {match_id} is {info.status}: a rematch follows a finished match")
        opponent = info.black if info.white.id == user.id else info.white
        # a rated match with hints between people, made before they made it unrated: its rematch is unrated
        options = fair_options(info.options, user, opponent, None)
        return await self.challenge(user, opponent, info.length, options, seed=seed,
                                    commitment_token=commitment_token)

    def _count_invitation(self, connection: Connection, sender: str, who: str, opponent: Seat | None) -> None:
        """Count an invitation against who sends it (``sender``, told as ``who``) and against the
        person it goes to (None: counted when it was sent), each within the hour's limit."""
        limit, per_target = self.policy.challenges_per_hour, self.policy.invitations_per_target
        count, wait = hit(connection, sender, 3600)
        if count > limit:
            raise TooManyRequests(f"{who}: at most {limit} invitations an hour: try again later", retry_after=wait)
        if opponent is not None:
            count, wait = hit(connection, f"invited:{opponent.id}", 3600)
            if count > per_target:
                raise TooManyRequests(f"{opponent.name} has been sent {per_target} invitations this hour: try again "
                                      "later", retry_after=wait)

    def _start(self, info: MatchInfo) -> tuple[Match, list[MatchEvent]]:
        """The match of an accepted challenge, its first opening roll made and what follows done."""
        match = Match.from_state(start_state(info), crawford=info.options["crawford"])
        try:
            match.dice = committed_dice(info, drawn=0)
        except DiceProofError as error:  # the row was changed since the challenge: roll nothing
            log.error("match %d: its dice do not check out: %s", info.id, error)
            raise Unprocessable(f"match {info.id} cannot start: its dice do not check out: {error}") from None
        if info.game_start.get("challenger_first"):
            first, second = opening_roll(match.dice)
            events = list(match.apply(Action(ActionKind.OPENING_ROLL, Color.WHITE,
                                             dice=(max(first, second), min(first, second)))))
        else:
            events = list(match.act(PlayerAction.ROLL))
        more, _ = self._advance(match, info)
        return match, events + more

    # -- playing -----------------------------------------------------------------------------------
    async def act(self, user: Seat, match_id: int, action: object, *, play: object = None, value: object = None,
                  version: object = None, fallback: bool = False) -> Applied:
        """Apply one player's action; every refusal raises before anything is written. ``fallback``:
        the play is the server's random stand-in for a bot whose own choice failed (seats), and says so."""
        try:
            word = PlayerAction(str(action)) if isinstance(action, str) else None
        except ValueError:
            word = None
        if word is None:
            raise Unprocessable(f"action: expected one of {', '.join(PlayerAction)}, got {action!r}") from None
        if version is not None and (isinstance(version, bool) or not isinstance(version, int)):
            raise Unprocessable(f"version: expected the match's version number, got {version!r}")
        held = self.live.get(match_id)
        if held is not None and (version is None or version == held.info.version):
            # The match as this process last committed it: the write checks the version, so if
            # another server moved it on, the write is refused and the match is read afresh.
            try:
                return await self._act(held, user, word, play, value, version, fallback)
            except Conflict:
                if version is not None and self.live.get(match_id, version) is not None:
                    raise  # this process moved it on meanwhile: the client's version is stale
        return await self._act(await self.current(match_id), user, word, play, value, version, fallback)

    async def _act(self, live: LiveMatch, user: Seat, word: PlayerAction, play: object, value: object,
                   version: int | None, fallback: bool = False) -> Applied:
        match_id = live.info.id
        info = live.info
        color = live.color_of(user.id)
        if color is None:
            raise Forbidden(f"{user.name} does not play in match {match_id}")
        if version is not None and version != info.version and not clock.only_clock_since(info.clock, version, info.version):
            raise Conflict(f"match {match_id} is at version {info.version}, not {version}: reload it and act again")
        if info.status != "playing" or live.match is None:
            raise Unprocessable(f"match {match_id} is {info.status}: nothing can be played")
        if live.match.to_act != color:
            to_act = live.match.to_act
            who = live.names[to_act] if to_act is not None else "nobody"
            raise Forbidden(f"it is {who}'s turn to act, not {user.name}'s")
        if clock.out_of_time(info.clock, info.options.get("clock"), self._clock_now(), _people(info)) is not None:
            return await self._forfeit(live, color, left=False)  # too late: the time had run out
        match = live.match.copy()
        events = list(self._apply(match, color, word, play, value))
        if fallback:
            events = [dataclasses.replace(event, automatic=True, fallback=True) if isinstance(event, Played) else event
                      for event in events]
        more, ended = self._advance(match, info)
        return await self._save(live, match, events + more, status="finished" if ended else None, present=color)

    @staticmethod
    def awaits(user_id: int, live: LiveMatch) -> bool:
        """Whether ``live``'s match may yet wait for ``user_id`` to be present: an invitation with a
        clock, or a clock not yet counting their time."""
        info = live.info
        color = live.color_of(user_id)
        if color is None or not info.options.get("clock"):
            return False
        return info.status == "invited" or (info.status == "playing" and side_name(color) in clock.waiting(info.clock))

    async def attend(self, user_id: int, live: LiveMatch) -> LiveMatch:
        """``user_id`` is present in ``live``'s match now (docs/server.md, "Time"): a clock waiting for
        them on their turn starts counting. The match as it then stands; a write that cannot be
        made now leaves the clock waiting (it is asked again the next time they come)."""
        for _ in range(3):
            info = live.info
            color = live.color_of(user_id)
            side = side_name(color) if color is not None else None
            if (side is None or info.status != "playing" or live.match is None or info.clock is None
                    or side not in clock.waiting(info.clock) or info.clock.get("running") != side):
                return live  # nothing waits for them, or not yet: their turn starts the clock when it comes
            try:
                return (await self._save(live, live.match, [], present=color)).live
            except Conflict:
                live = await self.current(info.id)
            except ServerError as error:
                log.info("match %d: presence not saved: %s", info.id, error)
                return live
        return live

    async def time_out(self, match_id: int) -> Applied | None:
        """End the match of a player whose time has run out (None: nobody's has, or it moved on)."""
        live = await self.current(match_id)
        info = live.info
        if info.status != "playing" or live.match is None:
            return None
        late = clock.out_of_time(info.clock, info.options.get("clock"), self._clock_now(), _people(info))
        if late is None:
            return None
        return await self._forfeit(live, Color.WHITE if late == "white" else Color.BLACK, left=False)

    async def abandon(self, match_id: int, invited_before: dt.datetime, playing_before: dt.datetime) -> Applied | None:
        """Close an invitation unanswered since ``invited_before`` (it expires) or a match untouched
        since ``playing_before`` (the person to act loses it); None: it moved on meanwhile."""
        live = await self.current(match_id)
        info = live.info
        if info.updated > (invited_before if info.status == "invited" else playing_before):
            return None
        if info.status == "invited":
            who = Color.WHITE if not info.challenger_confirmed else Color.BLACK
            return await self._save(live, None, [TimedOut(1, who, left=True)], status="expired")
        if info.status != "playing" or live.match is None or info.to_act_id is None:
            return None
        seat = info.seat(info.to_act_id)
        if seat is None or seat.is_bot:
            return None
        return await self._forfeit(live, Color.WHITE if seat.id == info.white.id else Color.BLACK, left=True)

    async def heartbeat(self) -> list[int]:
        """Note durably that the server serves now. The first heartbeat after a pause of more than
        :data:`PAUSE` seconds (the server was down, or frozen) takes the pause out of every running
        turn, so nobody is charged time in which nobody could act; the matches so moved on."""
        now = utcnow()

        def work(connection: Connection) -> list[int]:
            last = store.heartbeat(connection, now)
            if last is None or (now - last).total_seconds() <= PAUSE:
                return []
            moved = []
            for row in store.clocked(connection):
                resumed = clock.paused(row.clock, last, now)
                if resumed != row.clock and store.update_match(connection, row.id, row.version,
                                                               {"clock": resumed, "version": row.version + 1}):
                    moved.append(row.id)
            if moved:
                log.info("the server did not serve for %.1f s: %d running clocks resumed", (now - last).total_seconds(),
                         len(moved))
            return moved

        def kept(moved: list[int]) -> None:
            for match_id in moved:
                self.live.drop(match_id)
            self.heard = now

        return await self.writer.run(work, on_commit=kept)

    def _clock_now(self) -> dt.datetime:
        """The time clocks count to: now, or while the heartbeat is late (a freeze, a stalled
        timekeeper) no later than :data:`PAUSE` seconds after the last one."""
        now = utcnow()
        if self.heard is None:
            return now
        return min(now, self.heard + dt.timedelta(seconds=PAUSE))

    async def _forfeit(self, live: LiveMatch, loser: Color, *, left: bool) -> Applied:
        """``loser`` ran out of time or stayed away: the other side wins the match."""
        info = live.info
        match = live.match  # unchanged: the match ends around it
        assert match is not None
        white, black = forfeited_score(info.score_white, info.score_black, info.length, loser)
        events: list[MatchEvent] = [TimedOut(match.game_number, loser, left=left),
                                    MatchOver(match.game_number, loser.other, info.length, (white, black), 0)]
        return await self._save(live, match, events, status="finished", score_white=white, score_black=black)

    async def set_mode(self, user: Seat, match_id: int, mode: str, on: bool | None = None) -> Applied:
        """Turn a player's ``greedy`` or ``manual`` mode on, off (``on`` None: toggle), and act on it at once."""
        if mode not in MAIL_MODES:
            raise Unprocessable(f"mode: expected greedy or manual, got {mode!r}")
        live = await self.current(match_id)
        color = live.color_of(user.id)
        if color is None:
            raise Forbidden(f"{user.name} does not play in match {match_id}")
        if live.info.status != "playing" or live.match is None:
            raise Unprocessable(f"match {match_id} is {live.info.status}: its modes cannot change")
        modes = {side: dict(API_MODES) for side in ("white", "black")} if live.info.pbm_modes is None else \
            {side: dict(values) for side, values in live.info.pbm_modes.items()}
        side = side_name(color)
        assert side is not None
        modes[side][mode] = (not modes[side][mode]) if on is None else on
        changed = dataclasses.replace(live.info, pbm_modes=modes)
        match = live.match.copy()
        more, ended = self._advance(match, changed)
        return await self._save(LiveMatch(changed, live.match), match,
                                [ModeChanged(match.game_number, color, mode, modes[side][mode]), *more],
                                status="finished" if ended else None, pbm_modes=modes, present=color)

    def _apply(self, match: Match, color: Color, word: PlayerAction, play: object,
               value: object) -> tuple[MatchEvent, ...]:
        resignation = Resignation.SINGLE
        if word == PlayerAction.PLAY:
            if not isinstance(play, str) or len(play) > 200:
                raise Unprocessable("play: expected the play in standard notation, e.g. \"8/5 6/5\"")
            if match.state.dice is None:
                raise Unprocessable("play: roll first")
        elif word == PlayerAction.RESIGN:
            if value is None:
                value = 1
            if isinstance(value, bool) or value not in (1, 2, 3):
                raise Unprocessable(f"value: expected 1 (single game), 2 (gammon) or 3 (backgammon), got {value!r}")
            resignation = Resignation(value)
        try:
            return match.act(word, color, play=play if isinstance(play, str) and word == PlayerAction.PLAY else None,
                             resignation=resignation)
        except (IllegalPlayError, AmbiguousPlayError) as error:  # their messages name the legal plays
            raise Unprocessable(f"play: {error}") from None
        except InvalidMoveError as error:
            legal = [str(p) for p in match.legal_plays] if match.state.dice is not None else []
            raise Unprocessable(f"play: {error}; legal plays: {', '.join(legal) or 'none'}") from None
        except IllegalActionError as error:
            allowed = ", ".join(available_actions(match)) or "nothing"
            raise Unprocessable(f"{error}; you may now: {allowed}") from None

    def _advance(self, match: Match, info: MatchInfo) -> tuple[list[MatchEvent], bool]:
        """What the server does by itself after an action, and whether the match has ended."""
        events: list[MatchEvent] = []
        while True:
            if match.game_over:
                if match.is_over:
                    return events, True
                if info.length == 0:  # a money game is one game here
                    result = match.results[-1]
                    score = (match.score[Color.WHITE], match.score[Color.BLACK])
                    events.append(MatchOver(match.game_number, result.winner, 0, score, result.points))
                    return events, True
                events += match.apply(Action(ActionKind.NEW_GAME))
                events += match.act(PlayerAction.ROLL)  # the opening roll: each side one die until they differ
                continue
            modes = modes_of(info.pbm_modes, side_name(match.to_act))
            automatic = automatic_action(match, modes)
            if automatic is None:
                return events, False
            if automatic == PlayerAction.ROLL:
                events += match.act(PlayerAction.ROLL, match.to_act)
            else:
                assert isinstance(automatic, Play)
                made = match.act(PlayerAction.PLAY, match.to_act, play=automatic)
                events += [dataclasses.replace(event, automatic=True)
                           if isinstance(event, Played) and event.play.moves else event for event in made]

    # -- writing -----------------------------------------------------------------------------------
    async def _save(self, live: LiveMatch, match: Match | None, events: list[MatchEvent], *,
                    status: str | None = None, present: Color | None = None, **extra: Any) -> Applied:
        """Write ``events`` and the match row moved on from ``live``'s version; keep the new match once committed.

        ``present``: the side whose player made this change, present now (:func:`.clock.present`)."""
        info = live.info
        now = utcnow()
        rows, digest = event_rows(events, info, info.next_seq, now, info.digest)
        values = _row_values(info, match, events_count=len(rows), digest=digest, now=now)
        values.update(extra)
        if status is not None:
            values["status"] = status
        winner: Color | None = None
        if status == "finished" and match is not None:
            winner = next(event.color for event in reversed(events) if isinstance(event, (GameOver, MatchOver)))
            values.update(winner_id=info.white.id if winner == Color.WHITE else info.black.id, finished=now,
                          to_act_id=None)
        rule = info.options.get("clock")
        if rule and match is not None:
            to_act = values.get("to_act_id")
            side = side_name(live.color_of(to_act)) if to_act is not None else None
            at = self._clock_now()
            # at the acceptance every person is awaited; the accepting player is present by accepting
            before = info.clock or clock.started(rule, None, at, waiting=_people(info))
            if present is not None:
                before = clock.present(before, side_name(present) or "", at)
            values["clock"] = clock.passed(before, rule, side, at, counted=_people(info))
            if events or status is not None or extra:  # more than the clock changed (not a player's arrival)
                values["clock"] = clock.played(values["clock"], values["version"])
        new_info = dataclasses.replace(info, **_info_values(values, match))
        if status in store.UNPLAYED or (match is None and info.status == "invited" and status is None):
            new_info = dataclasses.replace(new_info, to_act_id=None)

        def work(connection: Connection) -> LiveMatch:
            if not store.update_match(connection, info.id, info.version, values):
                raise Conflict(f"match {info.id} has moved on from version {info.version}: reload it and act again")
            store.insert_events(connection, rows)
            final = new_info
            if winner is not None:
                final = dataclasses.replace(new_info, rated=self._settle(connection, new_info, winner))
            self._notify(connection, info.id, new_info.next_seq - 1)
            return LiveMatch(final, match)

        try:
            # the version check comes first and refuses before anything is written: no savepoint needed
            saved = await self.writer.run(work, on_commit=lambda saved: self._committed(saved, rows), isolated=False)
        except Conflict:
            if self.live.get(info.id, info.version) is not None:
                self.live.drop(info.id)  # another server moved it on: read it afresh next time
            raise
        return Applied(saved, rows)

    def _settle(self, connection: Connection, info: MatchInfo, winner_color: Color) -> bool:
        """The ratings after a finished match (in its write); whether it was rated."""
        if not rated_play(info.length, info.options):
            return False
        rows = store.ratings_of(connection, (info.white.id, info.black.id))
        white, black = rows[info.white.id], rows[info.black.id]
        since = utcnow() - dt.timedelta(days=1)
        today = store.rated_between(connection, info.white.id, info.black.id, since)
        white_moves, black_moves = stakes(
            Rated(bool(white.is_bot), white.opponents), Rated(bool(black.is_bot), black.opponents),
            provisional_matches=self.policy.provisional_matches, pair_matches_today=today,
            pair_matches_per_day=self.policy.pair_matches_per_day)
        rated = white_moves or black_moves
        if rated:
            winner, loser = (white, black) if winner_color == Color.WHITE else (black, white)
            gain, loss = rating_change(winner.rating, loser.rating, winner.experience, loser.experience, info.length)
            moves = {info.white.id: white_moves, info.black.id: black_moves}
            for row, delta, won in ((winner, gain, True), (loser, -loss, False)):
                after = row.rating + delta if moves[row.id] else row.rating
                store.set_rating(connection, row.id, info.id, row.rating, after, won, info.length)
        else:
            store.add_experience(connection, (info.white.id, info.black.id), info.length)
        store.set_match(connection, info.id, rated=rated)
        store.count_opponents(connection, [row.id for row in (white, black) if not row.is_bot])  # this match too
        return rated

    def _notify(self, connection: Connection, match_id: int, seq: int) -> None:
        """Note the change for other servers: PostgreSQL delivers it at commit, atomically with the
        write (one NOTIFY a batch: :func:`flush_notes`)."""
        if self.policy.notify_postgres:
            connection.info.setdefault(NOTES, {})[match_id] = seq

    def forget(self, match_id: int, seq: int | None) -> None:
        """Another server changed ``match_id`` (up to event ``seq``): read it afresh next time."""
        held = self.live.get(match_id)
        if held is not None and (seq is None or seq >= held.info.next_seq):
            self.live.drop(match_id)

    def _committed(self, live: LiveMatch, rows: list[dict[str, Any]]) -> None:
        self.live.put(live)
        if self.changed is not None:
            self.changed(live, rows)


def _people(info: MatchInfo) -> tuple[str, ...]:
    """The sides whose time a clock counts: people's, not bots'."""
    return tuple(side for side, seat in (("white", info.white), ("black", info.black)) if not seat.is_bot)


def _own_seed(seed: object) -> str | None:
    """A person's own dice seed as sent (None: none sent, one is drawn from the commitment)."""
    if seed is None:
        return None
    try:
        return check_player_seed(seed, "seed")
    except DiceProofError as error:
        raise Unprocessable(str(error)) from None


def _hash(token: str) -> str:
    import hashlib

    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


def _row_values(info: MatchInfo, match: Match | None, *, events_count: int, digest: str | None,
                now: dt.datetime) -> dict[str, Any]:
    """The match row's columns after a change: version, events, dice drawn, where the game stands."""
    values: dict[str, Any] = {"version": info.version + 1, "next_seq": info.next_seq + events_count, "updated": now,
                              "digest": digest}
    if match is None:
        return values
    state = match.state
    to_act = None if match.game_over or match.to_act is None else match.to_act
    dice = match.dice
    assert isinstance(dice, CommittedDice), "a server's match rolls its committed dice"
    values.update(rolls_drawn=dice.drawn, game_number=match.game_number,
                  state=written(state.bpn), score_white=state.score[Color.WHITE], score_black=state.score[Color.BLACK],
                  to_act_id=None if to_act is None else (info.white.id if to_act == Color.WHITE else info.black.id))
    if match.game_number != info.game_number:
        values["game_start"] = {**_game_start_of(match), "challenger_first": info.game_start.get("challenger_first", False)}
    return values


def _game_start_of(match: Match) -> dict[str, Any]:
    """The score and Crawford flag before the current game (the snapshot a rebuild starts from)."""
    score = [match.score[Color.WHITE], match.score[Color.BLACK]]
    if match.game_over and match.results:  # the game begun in this step has ended in it too
        result = match.results[-1]
        score[0 if result.winner == Color.WHITE else 1] -= result.points
    return {"white": score[0], "black": score[1], "crawford": match.state.crawford}


_INFO_FIELDS = {item.name for item in dataclasses.fields(MatchInfo)}


def _info_values(values: dict[str, Any], match: Match | None) -> dict[str, Any]:
    return {key: value for key, value in values.items() if key in _INFO_FIELDS and key not in ("white", "black")}

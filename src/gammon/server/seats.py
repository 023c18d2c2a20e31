"""Bots at the table: a bot is an account (``bot:NAME``) whose turns the server plays.

A bot's thinking runs in the worker pool (:class:`gammon.workers.Workers`), never on the
event loop, so a 2-ply decision delays nobody's request. Its move then goes through the
match service like anyone's, against the version it was computed for: if the match moved
on meanwhile, the move is refused and the bot looks again.

A bot never hangs a match. It plays by the match's rules (its variant: two-move doubles,
nackgammon), and one that cannot is refused at the challenge. When its decision fails (an
error, a crashed worker, no answer within :data:`THINK_SECONDS`, an action the rules refuse,
:data:`REFUSALS` refusals in a row), the server acts for it with a legal stand-in
(:func:`stand_in`: a random legal play, marked ``fallback`` and told as such) and logs why.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
import random
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidPlayerError
from ..match import Match, PlayerAction
from ..players import Player, check_variant, cube_hint, hint, load_player, parse_player
from ..players.decisions import Decision, decide
from ..players.names import ROLLOUT
from ..state import GameState
from ..variant import STANDARD, Variant, VariantError
from ..workers import Workers
from .errors import ServerError, Unprocessable
from .matches import store
from .matches.live import LiveMatch
from .matches.rules import available_actions
from .matches.service import MatchService
from .models import utcnow

log = logging.getLogger("gammon.server")

#: gammon's own bots, always offered; external engines (gnubg:N, ubgi:CMD) only when the operator lists them.
DEFAULT_BOTS = ("random", "simple", "pubeval", "nn", "nn:1", "nn:2")
BOT_PREFIX = "bot:"
DEFAULT_BOT = "simple"  #: seed 004's default opponent


@dataclass(frozen=True, slots=True)
class BotChoice:
    """A bot as the lobby offers it: its player name, what people call it, and how it plays."""

    player: str
    title: str
    strength: str

    @property
    def name(self) -> str:
        return BOT_PREFIX + self.player


#: The deepest search a challenge may ask of gammon's own bots (``bot:nn:2``, the Grandmaster).
MAX_BOT_PLY = 2

#: The bots the lobby offers, weakest first (any other ``bot:PLAYER`` of gammon's own, up to
#: :data:`MAX_BOT_PLY` and no rollouts, may still be challenged by name).
BOT_CHOICES = (
    BotChoice("random", "Random", "makes random legal moves"),
    BotChoice("simple", "Simple", "plain rules of thumb, no look-ahead"),
    BotChoice("nn:0:beginner", "Beginner", "gammon's net with many deliberate mistakes"),
    BotChoice("nn:0:casual", "Casual", "gammon's net with frequent deliberate mistakes"),
    BotChoice("nn:0:intermediate", "Intermediate", "gammon's net with some deliberate mistakes"),
    BotChoice("pubeval", "Pubeval", "Tesauro's 1992 linear evaluation, a classic yardstick"),
    BotChoice("nn:0:advanced", "Advanced", "gammon's net with few deliberate mistakes"),
    BotChoice("nn", "Expert", "gammon's net at its best, no look-ahead"),
    BotChoice("nn:1", "Master", "gammon's net looking one roll ahead"),
    BotChoice("nn:2", "Grandmaster", "gammon's net looking two rolls ahead (thinks longer)"),
)


def bot_choices(external: tuple[str, ...]) -> list[BotChoice]:
    """The lobby's bots: gammon's own, then the external engines the operator offers."""
    more = []
    for player in external:
        spec = parse_player(player)
        title = f"GNU Backgammon {spec.ply}-ply" if spec.name == "gnubg" else f"Engine {player}"
        more.append(BotChoice(str(spec), title, "an external engine the operator runs"))
    return [*BOT_CHOICES, *more]
SWEEP_SECONDS = 2.0
#: Seconds a bot's decision may take, waiting for a worker included, before the server acts for it.
THINK_SECONDS = 60.0
#: The bot's actions the service may refuse in a row (not counting a match that moved on) before it does.
REFUSALS = 3
#: Tries at one turn (a match that keeps moving on, a busy database) before its driver stops and
#: leaves it to the sweep.
TRIES = 50

_players: dict[tuple[str, Variant], Player] = {}


def check_bot(name: str, allowed_external: tuple[str, ...], variant: object = "standard") -> str:
    """The canonical name of an offered bot (``bot:NAME`` without the prefix) that plays ``variant``
    (a match's ``options.variant``), else 422 naming what is offered or what it cannot play."""
    try:
        spec = parse_player(name)
    except InvalidPlayerError as error:
        raise Unprocessable(f"opponent: {error}") from None
    canonical = str(spec)
    if not spec.external and (spec.name == ROLLOUT or spec.ply > MAX_BOT_PLY):
        # a bot thinks in the workers every other bot shares: one that thinks for minutes a move
        # (rollouts, 3 ply) would hold them, and every other match's bot would be played for
        raise Unprocessable(f"opponent: bot:{canonical} thinks too long a move for this server: its own bots "
                            f"look at most {MAX_BOT_PLY} rolls ahead, and roll out nothing")
    if spec.external and canonical not in allowed_external:
        offered = ", ".join(allowed_external) or "none"
        raise Unprocessable(f"opponent: the operator does not offer bot:{canonical} (external engines offered: {offered})")
    try:
        rules = Variant.parse(variant) if isinstance(variant, str) else STANDARD
    except VariantError:
        rules = STANDARD  # the match's options refuse it, naming options.variant
    check_player(canonical, rules, "opponent")
    return canonical


def check_player(name: str, variant: Variant, field: str) -> None:
    """422 (naming ``field``) for a player that cannot play ``variant``: an external engine or rollouts
    offered two-move doubles would play a double as four moves, and every play would be refused."""
    try:
        check_variant(parse_player(name), variant)
    except InvalidPlayerError as error:
        raise Unprocessable(f"{field}: {error}") from None


@dataclass(frozen=True, slots=True)
class Turn:
    """A bot's turn to compute: which bot, the state, what the referee allows, and the version."""

    match_id: int
    version: int
    bot: str
    state: GameState
    may_double: bool
    may_beaver: bool


def think(turn: Turn) -> Decision:
    """In a worker: the bot's decision by the match's rules (players are loaded once per worker
    and rules, and kept)."""
    player = _player(turn.bot, turn.state.variant)
    player.reseed(turn.match_id * 100_003 + turn.version)
    return decide(player, turn.state, may_double=turn.may_double, may_beaver=turn.may_beaver)


def _player(name: str, variant: Variant) -> Player:
    player = _players.get((name, variant))
    if player is None:
        player = _players[name, variant] = load_player(name, variant=variant)
    return player


def hint_task(player: str, state: GameState) -> list[dict[str, Any]]:
    """In a worker: every legal play of the side to act by the match's rules, ranked (as ``gammon hint`` ranks them)."""
    assert state.dice is not None
    return [item.as_dict() for item in hint(state, *state.dice, player=_player(player, state.variant))]


def cube_hint_task(player: str, state: GameState) -> dict[str, Any]:
    """In a worker: the cube decision of the side on roll (with a double pending: the doubler's)."""
    return dict(cube_hint(state, _player(player, state.variant)).as_json())


def stand_in(match: Match, seed: int) -> Decision:
    """What the server does for a bot that cannot decide, each legal now so the match goes on: a
    random legal play (drawn from ``seed``: the same turn, the same play), a roll without doubling,
    a take, an accepted resignation (the resigning side gives the points away)."""
    state = match.state
    if state.double_offered:
        return Decision(PlayerAction.TAKE)
    if state.resignation is not None:
        return Decision(PlayerAction.ACCEPT)
    if state.dice is None:
        return Decision(PlayerAction.ROLL)
    plays = match.legal_plays
    return Decision(PlayerAction.PLAY, plays[random.Random(seed).randrange(len(plays))])


def illegal(decision: Decision, match: Match) -> str | None:
    """Why the referee would refuse ``decision`` now (None: it is legal), so a bad one is never sent."""
    if decision.kind not in available_actions(match):
        return f"it chose to {decision.kind}, which is not allowed now"
    if decision.kind == PlayerAction.PLAY and (decision.play is None or decision.play not in match.legal_plays):
        return f"it chose {decision.play}, which is not a legal play of {match.state.dice} by the match's rules"
    return None


class BotSeats:
    """Plays the bots' turns of each match until a person is to act (one task per match)."""

    def __init__(self, service: MatchService, workers: Workers) -> None:
        self.service, self.workers = service, workers
        self._running: dict[int, asyncio.Task[None]] = {}
        self._again: set[int] = set()  # kicked while its task was finishing: look once more
        self._sweeper: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._sweeper = asyncio.create_task(self._sweep())

    def changed(self, live: LiveMatch) -> None:
        """After a commit: if a bot is now to act, make sure it plays."""
        info = live.info
        if info.status == "playing" and info.to_act_id is not None:
            seat = info.seat(info.to_act_id)
            if seat is not None and seat.is_bot:
                self.kick(info.id)

    def kick(self, match_id: int) -> None:
        task = self._running.get(match_id)
        if task is None or task.done():
            self._running[match_id] = asyncio.get_running_loop().create_task(self._drive(match_id))
        else:
            self._again.add(match_id)

    async def _drive(self, match_id: int) -> None:
        refused = tries = 0
        try:
            while tries < TRIES:
                tries += 1
                live = await self.service.current(match_id)
                turn = _turn_of(live)
                if turn is None:
                    return
                to_act = live.info.to_act_id
                seat = live.info.seat(to_act) if to_act is not None else None
                assert seat is not None and live.match is not None, "_turn_of found a bot to act"
                decided = await self._decide(turn, live.match, refused)
                if isinstance(decided, Decision):
                    decision = decided
                else:
                    decision = stand_in(live.match, turn.match_id * 100_003 + turn.version)
                    log.warning("bot %s in match %d (version %d): %s; the server %s for it", seat.name, match_id,
                                turn.version, decided, f"plays the random legal play {decision.play}"
                                if decision.play is not None else f"does {decision.kind}")
                try:
                    await self.service.act(seat, match_id, decision.kind, version=turn.version,
                                           play=str(decision.play) if decision.play is not None else None,
                                           fallback=decision is not decided and decision.play is not None)
                except Unprocessable as error:  # the rules refuse it
                    refused += 1
                    log.warning("bot move in match %d refused: %s", match_id, error)
                except ServerError as error:  # the match moved on while the bot thought, or the server is busy
                    log.info("bot move in match %d not applied: %s; looking again", match_id, error)
                else:
                    refused = tries = 0
                    continue
                await asyncio.sleep(0.05 * min(tries, 20))
            log.error("bot driver for match %d stopped after %d tries at one turn; the sweep will look again",
                      match_id, TRIES)
        except asyncio.CancelledError:
            raise
        except Exception:  # a broken engine must not take the server down
            log.exception("bot driver for match %d stopped", match_id)
        finally:
            self._running.pop(match_id, None)
            if match_id in self._again:
                self._again.discard(match_id)
                self.kick(match_id)

    async def _decide(self, turn: Turn, match: Match, refused: int) -> Decision | str:
        """The bot's decision, or why it has none the referee would take (then the server acts for it)."""
        if refused >= REFUSALS:
            return f"its last {refused} actions were refused"
        state = turn.state
        if state.dice is None and not turn.may_double and not state.double_offered and state.resignation is None:
            return Decision(PlayerAction.ROLL)  # nothing to think about
        # Waited for, never cancelled: a pool's future set after it was cancelled would break the pool.
        thought = asyncio.wrap_future(self.workers.submit(think, turn))
        thought.add_done_callback(lambda done: done.cancelled() or done.exception())  # a late failure is not news
        finished, _ = await asyncio.wait({thought}, timeout=THINK_SECONDS)
        if not finished:  # a worker that hangs, or crashed, never answers
            return f"no decision within {THINK_SECONDS:g} s"
        try:
            decision = thought.result()
        except Exception as error:  # noqa: BLE001 - any failure of a bot's thinking is answered the same way
            return f"its thinking failed: {type(error).__name__}: {error}"
        return illegal(decision, match) or decision

    async def _sweep(self) -> None:
        """Now and then: bots waiting to act (after a restart, or a move made on another server)."""
        while True:
            await asyncio.sleep(SWEEP_SECONDS)
            try:
                since = utcnow() - dt.timedelta(seconds=SWEEP_SECONDS)
                waiting = await self.service.readers.run(lambda connection: store.bot_turns(connection, since))  # noqa: B023 - called within this iteration
                for match_id in waiting:
                    self.kick(match_id)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001 - a fault here must not take the server down
                log.warning("bot sweep failed: %s", error)

    async def stop(self) -> None:
        self._again.clear()
        tasks = list(self._running.values()) + ([self._sweeper] if self._sweeper is not None else [])
        for task in tasks:
            task.cancel()
        for task in tasks:
            try:
                await task
            except (asyncio.CancelledError, Exception):  # noqa: BLE001 - a fault here must not take the server down
                pass


def _turn_of(live: LiveMatch) -> Turn | None:
    """The turn a bot must play in ``live`` now, or None."""
    info, match = live.info, live.match
    if info.status != "playing" or info.to_act_id is None or match is None:
        return None
    seat = info.seat(info.to_act_id)
    if seat is None or not seat.is_bot:
        return None
    actions = available_actions(match)
    return Turn(info.id, info.version, seat.name[len(BOT_PREFIX):], match.state, PlayerAction.DOUBLE in actions,
                PlayerAction.BEAVER in actions)

"""Bots at the table: a bot is an account (``bot:NAME``) whose turns the server plays.

A bot's thinking runs in the worker pool (:class:`gammon.workers.Workers`), never on the
event loop, so a 2-ply decision delays nobody's request. Its move then goes through the
match service like anyone's, against the version it was computed for: if the match moved
on meanwhile, the move is refused and the bot looks again.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidPlayerError
from ..match import PlayerAction
from ..players import Player, cube_hint, hint, load_player, parse_player
from ..players.decisions import Decision, decide
from ..state import GameState
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


#: The bots the lobby offers, weakest first (any ``bot:PLAYER`` may still be challenged by name).
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

_players: dict[str, Player] = {}


def check_bot(name: str, allowed_external: tuple[str, ...]) -> str:
    """The canonical name of an offered bot (``bot:NAME`` without the prefix), else 422 naming what is offered."""
    try:
        spec = parse_player(name)
    except InvalidPlayerError as error:
        raise Unprocessable(f"opponent: {error}") from None
    canonical = str(spec)
    if spec.external and canonical not in allowed_external:
        offered = ", ".join(allowed_external) or "none"
        raise Unprocessable(f"opponent: the operator does not offer bot:{canonical} (external engines offered: {offered})")
    return canonical


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
    """In a worker: the bot's decision (players are loaded once per worker and kept)."""
    player = _player(turn.bot)
    player.reseed(turn.match_id * 100_003 + turn.version)
    return decide(player, turn.state, may_double=turn.may_double, may_beaver=turn.may_beaver)


def _player(name: str) -> Player:
    player = _players.get(name)
    if player is None:
        player = _players[name] = load_player(name)
    return player


def hint_task(player: str, state: GameState) -> list[dict[str, Any]]:
    """In a worker: every legal play of the side to act, ranked (as ``gammon hint`` ranks them)."""
    assert state.dice is not None
    return [item.as_dict() for item in hint(state, *state.dice, player=_player(player))]


def cube_hint_task(player: str, state: GameState) -> dict[str, Any]:
    """In a worker: the cube decision of the side on roll (with a double pending: the doubler's)."""
    return dict(cube_hint(state, _player(player)).as_json())


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
        failures = 0
        try:
            while True:
                live = await self.service.current(match_id)
                turn = _turn_of(live)
                if turn is None:
                    return
                to_act = live.info.to_act_id
                seat = live.info.seat(to_act) if to_act is not None else None
                assert seat is not None, "_turn_of found a bot to act"
                if turn.state.dice is None and not turn.may_double and not turn.state.double_offered \
                        and turn.state.resignation is None:
                    decision = Decision(PlayerAction.ROLL)  # nothing to think about
                else:
                    decision = await asyncio.wrap_future(self.workers.submit(think, turn))
                try:
                    await self.service.act(seat, match_id, decision.kind, version=turn.version,
                                           play=str(decision.play) if decision.play is not None else None)
                except ServerError as error:
                    failures += 1
                    log.info("bot move in match %d refused: %s", match_id, error)
                    if failures > 20:
                        log.error("bot %s gave up on match %d: its actions keep being refused", seat.name, match_id)
                        return
                    await asyncio.sleep(0.05 * failures)
        except asyncio.CancelledError:
            raise
        except Exception:  # a broken engine must not take the server down
            log.exception("bot driver for match %d stopped", match_id)
        finally:
            self._running.pop(match_id, None)
            if match_id in self._again:
                self._again.discard(match_id)
                self.kick(match_id)

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

"""Bots at the table: a bot is an account (``bot:NAME``) whose turns the server plays.

A bot's thinking runs in the worker pool (:class:`gammon.workers.Workers`), never on the
event loop, so a 2-ply decision delays nobody's request. The bot's move is then submitted
like anyone's, against the version it was computed for: if the match moved on meanwhile,
the move is refused and the bot thinks again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session as DbSession

from ..errors import InvalidPlayerError
from ..players import Player, cube_hint, hint, load_player, parse_player
from ..players.decisions import Decision, decide
from ..state import GameState
from . import accounts
from .errors import Unprocessable
from .models import User

log = logging.getLogger("gammon.server")

#: gammon's own bots, always offered; external engines (gnubg:N, ubgi:CMD) only when the operator lists them.
DEFAULT_BOTS = ("random", "simple", "pubeval", "nn", "nn:1", "nn:2")
BOT_PREFIX = "bot:"

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


def hint_task(player: str, state: GameState) -> list[dict]:
    """In a worker: every legal play of the side to act, ranked (as ``gammon hint`` ranks them)."""
    assert state.dice is not None
    return [hint.as_dict() for hint in hint(state, *state.dice, player=_player(player))]


def cube_hint_task(player: str, state: GameState) -> dict:
    """In a worker: the cube decision of the side on roll (with a double pending: the doubler's)."""
    return cube_hint(state, _player(player)).as_json()


class BotDriver:
    """Plays the bots' turns of each match until a person is to act (one task per match)."""

    def __init__(self, next_turn: Callable[[int], Turn | None], submit: Callable[[Turn, Decision], bool],
                 workers) -> None:  # type: ignore[no-untyped-def]
        self.next_turn, self.submit, self.workers = next_turn, submit, workers
        self._running: dict[int, asyncio.Task] = {}
        self._again: set[int] = set()  # kicked while its task was finishing: look once more

    def kick(self, match_id: int) -> None:
        """Make sure the bots of ``match_id`` are playing (call from the event loop)."""
        task = self._running.get(match_id)
        if task is None or task.done():
            self._running[match_id] = asyncio.get_running_loop().create_task(self._drive(match_id))
        else:
            self._again.add(match_id)

    async def _drive(self, match_id: int) -> None:
        failures = 0
        try:
            while True:
                turn = await asyncio.to_thread(self.next_turn, match_id)
                if turn is None:
                    return
                if turn.state.dice is None and not turn.may_double and not turn.state.double_offered \
                        and turn.state.resignation is None:
                    decision = Decision("roll")  # nothing to think about
                else:
                    decision = await asyncio.wrap_future(self.workers.submit(think, turn))
                if not await asyncio.to_thread(self.submit, turn, decision):
                    failures += 1
                    if failures > 50:
                        log.error("bot %s gave up on match %d: its actions keep being refused", turn.bot, match_id)
                        return
                    await asyncio.sleep(0.05)
        except Exception:  # a broken engine must not take the server down
            log.exception("bot driver for match %d stopped", match_id)
        finally:
            self._running.pop(match_id, None)
            if match_id in self._again:
                self._again.discard(match_id)
                self.kick(match_id)

    async def stop(self) -> None:
        self._again.clear()
        for task in list(self._running.values()):
            task.cancel()
        for task in list(self._running.values()):
            try:
                await task
            except (asyncio.CancelledError, Exception):
                pass


def find_opponent(session: DbSession, text: str, external: tuple[str, ...]) -> User:
    """The user challenged: a person by name, or a bot (``bot:PLAYER``, created on first use)."""
    if text.startswith(BOT_PREFIX):
        name = BOT_PREFIX + check_bot(text[len(BOT_PREFIX):], external)
        bot = accounts.find_user(session, name)
        if bot is None:
            bot = User(name=name, is_bot=True)
            session.add(bot)
            try:
                with session.begin_nested():
                    session.flush()
            except IntegrityError:  # made by a request on another thread or server just now
                bot = accounts.find_user(session, name)
        assert bot is not None
        return bot
    user = accounts.find_user(session, text[:64])
    if user is None or user.is_bot:
        raise Unprocessable(f"opponent: no user {text[:64]!r} (a bot is named bot:PLAYER, e.g. bot:{DEFAULT_BOTS[2]})")
    return user

"""Records and boards of moves already made: computed once, and never on the event loop.

Replaying a long match is seconds of pure Python (the referee checks every action again), and a
thread would still hold the interpreter that answers everyone else; so it runs in the request
jobs' processes (:class:`gammon.workers.Jobs`: a time and a memory budget each), and once:

- a finished match's ``.mat`` record is kept in the database the first time anyone asks for it,
  and read from there by every later request, on every server (the match's analysis too);
- a replay's boards (``board?upto=``) come from the match's steps (the state after each event,
  and the play drawn with it), made by one replay per match and number of events and kept in a
  cache per process bounded by their count. Each step comes back packed (pickled on its own), and
  is unpacked only by the job that draws it: thousands of states rebuilt at once would hold the
  interpreter for as long as a replay. A playing match's steps stay true as it goes on: events
  are only ever added.

Boards are drawn in a job as well, the current one included, and sent as the job wrote them;
those of a replay are kept in a cache bounded by its bytes. Many clients asking at once for
what is being made wait for that one.
"""

from __future__ import annotations

import asyncio
import bisect
import json
import logging
import pickle
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from functools import partial
from typing import Any, Generic, TypeVar

from ..errors import GammonError
from ..match import Action, Match
from ..position import Color
from ..record import MatchRecord
from ..state import GameState
from ..workers import JobError, Jobs, JobsBusy
from .board import board, last_shown
from .database import Readers
from .errors import ServerError, Unavailable, Unprocessable
from .matches import store
from .matches.live import LiveMatch, replay
from .matches.store import ActionRow, MatchInfo
from .writer import Writer

log = logging.getLogger("gammon.server")
T = TypeVar("T")
K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
STEPS = 50_000  #: replays' steps kept per process, all matches together (a long 25-point match has ~5,000,
#: ~600 bytes each, packed)
BOARD_BYTES = 32 * 2**20  #: replays' boards kept per process, in bytes as sent (one is ~20 KB)
RECORD_BYTES = 16 * 2**20  #: finished matches' records kept per process (one is at most ~60 KB)


class Kept(Generic[K, V]):
    """The values used most recently, up to ``limit`` in all by their ``size`` (at least the last one)."""

    def __init__(self, limit: int, size: Callable[[V], int] = len) -> None:  # type: ignore[assignment]
        self.limit, self.size = limit, size
        self._items: OrderedDict[K, V] = OrderedDict()
        self.total = 0

    def get(self, key: K) -> V | None:
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> None:
        held = self._items.pop(key, None)
        if held is not None:
            self.total -= self.size(held)
        self._items[key] = value
        self.total += self.size(value)
        while self.total > self.limit and len(self._items) > 1:
            self.total -= self.size(self._items.popitem(last=False)[1])


@dataclass(frozen=True, slots=True)
class Step:
    """The board after an event: the state, and the play drawn with it (:func:`~.board.last_shown`)."""

    state: GameState
    last: Action | None


@dataclass(frozen=True, slots=True)
class Replay:
    """A match replayed through the events numbered ``seqs``: its ``.mat`` record (or why it has
    none), and its board after each event (``steps[0]``: before the first), each a :class:`Step`
    packed."""

    seqs: tuple[int, ...]
    steps: tuple[bytes, ...]
    mat: str | None
    problem: str | None = None

    @property
    def last_seq(self) -> int:
        return self.seqs[-1] if self.seqs else -1

    def step(self, upto: int) -> bytes:
        """The board after the event numbered ``upto`` (-1: before the first), packed."""
        return self.steps[bisect.bisect_right(self.seqs, upto)]


# -- in a job's process -------------------------------------------------------------------------------
def replay_task(info: MatchInfo, rows: list[ActionRow]) -> Replay:
    """In a job: the match replayed through ``rows``, its record and each step's board."""
    steps: list[bytes] = []

    def keep(match: Match) -> None:
        steps.append(pickle.dumps(Step(match.state, last_shown(match.history)), pickle.HIGHEST_PROTOCOL))

    match = replay(info, rows, keep)
    try:
        mat: str | None = MatchRecord.from_match(match, white=info.white.name, black=info.black.name).mat()
        problem = None
    except GammonError as error:
        mat, problem = None, str(error)
    return Replay(tuple(row.seq for row in rows), tuple(steps), mat, problem)


def board_task(state: GameState | bytes, last: Action | None, crawford: bool, view: Color, moves: str) -> bytes:
    """In a job: the board (:func:`~.board.board`) as the JSON the client is sent; ``state`` a
    state, or a replay's :class:`Step` packed (its own play then drawn)."""
    if isinstance(state, bytes):
        step: Step = pickle.loads(state)  # made by replay_task, never by a client
        state, last = step.state, step.last
    return json.dumps(board(state, last, crawford, view, moves), separators=(",", ":")).encode()


# -- the service --------------------------------------------------------------------------------------
class Replays:
    """Records and boards of a match's moves, each made once in a job (see the module)."""

    def __init__(self, readers: Readers, writer: Writer, jobs: Jobs, *, steps: int = STEPS,
                 board_bytes: int = BOARD_BYTES, record_bytes: int = RECORD_BYTES) -> None:
        self.readers, self.writer, self.jobs = readers, writer, jobs
        self._replays: Kept[int, Replay] = Kept(steps, lambda made: len(made.steps))
        self._boards: Kept[Hashable, bytes] = Kept(board_bytes)
        self._records: Kept[int, str] = Kept(record_bytes)
        self._making: dict[Hashable, asyncio.Future[Any]] = {}

    async def record(self, live: LiveMatch) -> str:
        """The match's ``.mat`` record: a finished match's as kept (here, else in the database),
        else made by a replay (and kept, once the match is finished)."""
        info = live.info
        if info.status == "finished":
            mat = self._records.get(info.id)
            if mat is None:
                mat = await self.readers.run(lambda connection: store.finished_record(connection, info.id))
            if mat is not None:
                self._records.put(info.id, mat)
                return mat
        made = await self._replay(info)
        if made.mat is None:
            raise Unprocessable(f"match {info.id}: no .mat record can be written of it: {made.problem}")
        mat = made.mat
        if info.status == "finished":
            self._records.put(info.id, mat)
            try:
                await self.writer.run(lambda connection: store.keep_record(connection, info.id, mat))
            except (ServerError, GammonError) as error:  # made again by the next server that needs it
                log.warning("the record of match %d not kept: %s", info.id, error)
        return mat

    async def board(self, live: LiveMatch, upto: int, view: Color) -> bytes:
        """The board after the event numbered ``upto`` (the last one at most), as JSON."""
        info = live.info
        upto = min(upto, info.next_seq - 1)
        key = (info.id, upto, view)
        drawn = self._boards.get(key)
        if drawn is not None:
            return drawn
        made = self._replays.get(info.id)
        if made is None or made.last_seq < upto:
            made = await self._replay(info)
        drawn = await self._draw(key, made.step(upto), None, bool(info.options["crawford"]), view, "")
        self._boards.put(key, drawn)
        return drawn

    async def current_board(self, live: LiveMatch, view: Color, moves: str) -> bytes:
        """The board now, with the checker ``moves`` entered so far, as JSON."""
        match = live.match
        assert match is not None, "a match under way or over has its referee"
        key = ("now", live.info.id, live.info.version, view, moves)
        return await self._draw(key, match.state, last_shown(match.history), bool(live.info.options["crawford"]),
                                view, moves)

    # -- made once ---------------------------------------------------------------------------------------
    async def _replay(self, info: MatchInfo) -> Replay:
        async def make() -> Replay:
            rows = await self.readers.run(lambda connection: store.read_actions(connection, info.id, info.next_seq))
            made: Replay = await self._job(f"match {info.id}", replay_task, info, rows)
            self._keep(info.id, made)
            return made

        return await self._once(("replay", info.id, info.next_seq), make)

    def _keep(self, match_id: int, made: Replay) -> None:
        held = self._replays.get(match_id)
        if held is None or held.last_seq < made.last_seq:  # not when a longer one was made meanwhile
            self._replays.put(match_id, made)

    async def _draw(self, key: Hashable, state: GameState | bytes, last: Action | None, crawford: bool, view: Color,
                    moves: str) -> bytes:
        async def make() -> bytes:
            drawn: bytes = await self._job("board", board_task, state, last, crawford, view, moves, urgent=True)
            return drawn

        return await self._once(("board", key), make)

    async def _job(self, what: str, function: Callable[..., T], *args: Any, urgent: bool = False) -> T:
        """``function(*args)`` in a job; the server's own work over its budget is the server's
        problem (503), not the request's."""
        try:
            result: T = await self.jobs.run(function, *args, urgent=urgent)
        except JobsBusy:
            raise Unavailable("the server is busy: try again in a moment") from None
        except JobError as error:
            log.warning("%s: a job failed: %s", what, error)
            raise Unavailable(f"{what}: {error}: try again later") from None
        except ServerError:
            raise  # the request's own mistake (a move that is not legal), said by the board
        except GammonError as error:
            log.error("%s does not replay: %s", what, error)
            raise Unprocessable(f"{what} cannot be replayed: its record is damaged") from None
        return result

    async def _once(self, key: Hashable, make: Callable[[], Awaitable[T]]) -> T:
        """``make()``, or the same one already being made for someone else; a caller that stops
        waiting leaves it to be made for the others."""
        pending = self._making.get(key)
        if pending is None:
            pending = asyncio.ensure_future(make())
            self._making[key] = pending
            pending.add_done_callback(partial(self._made, key))
        result: T = await asyncio.shield(pending)
        return result

    def _made(self, key: Hashable, future: asyncio.Future[Any]) -> None:
        self._making.pop(key, None)
        if not future.cancelled():
            future.exception()  # seen: each waiter raises it

"""The engine client keeps every answer with its own request, whatever the engine does
between them: refuse a setting or a position, err before ``readyok``, answer after the
client has stopped waiting, or print stray lines. A Hypothesis property drives the client
(:class:`~gammon.engine.UbgiProtocol`) against an engine in process behind a transport of
two calls, as python-chess tests its protocols without a process."""

from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass, field

from hypothesis import given, settings
from hypothesis import strategies as st

from gammon import GameState, Position
from gammon.engine import EngineCommandError, EngineTimeoutError, UbgiProtocol
from gammon.errors import EngineProtocolError

#: How a request's answer goes: as it should, refused (a non-standard code, too), refused
#: before ``readyok`` (the position, for a search), late (after the client gave up), or
#: among stray lines.
MODES = ("ok", "refuse", "refuse-setup", "late", "stray")
STATES = [GameState(), GameState(position=Position().apply("13/11 24/23")), GameState(jacoby=True),
          GameState(match_length=5, score=(1, 3))]
ROLLS = [(3, 1), (6, 5), (2, 2), (4, 2)]


@dataclass
class InProcessEngine:
    """A v0.2 engine whose every request takes its mode from ``modes``, in order.

    A request starts with its first command (``set`` or ``newsession``/``position``); each
    answer names the request's number (``info string request N``, ``error ... #N``) so the
    test sees which request an answer was written for.
    """

    modes: deque[str]
    out: deque[str] = field(default_factory=deque)
    held: list[str] = field(default_factory=list)  # a late answer, released once the client gives up
    number: int = -1
    mode: str = "ok"
    late: bool = False  # this request's answer is still to be held back
    state: GameState | None = None
    dice: tuple[int, int] | None = None

    def say(self, *lines: str) -> None:
        (self.held if self.late else self.out).extend(lines)

    def begin(self) -> None:
        self.number += 1
        self.mode = self.modes.popleft() if self.modes else "ok"
        self.late = self.mode == "late"
        if self.mode == "stray":
            self.out.extend(["", f"info string stray before {self.number}"])

    def handle(self, line: str) -> None:
        words = line.split()
        command = words[0]
        if command == "ubgi":
            self.out.extend(["id name in-process", "id author tests", "proto 0.2",
                             "key engine.seed int 0..100 0", "key engine.multipv int 1..8 1", "ubgiok"])
        elif command == "isready":
            # A late setting's readyok is late; a late search's comes on time, its reply late.
            (self.held if self.late and self.state is None else self.out).append("readyok")
            self.late = self.late and self.state is not None
        elif command == "set":
            self.begin()
            self.state = None
            if self.mode in ("refuse", "refuse-setup"):
                self.out.append(f"error unsupported_key refused #{self.number}")
        elif command == "newsession":
            pass  # accepted, silently: the position that follows starts the request
        elif command == "position":
            self.begin()
            if self.mode == "refuse-setup":
                self.out.append(f"error bad_argument position refused #{self.number}")
                return  # the previous position stays, as a careless engine keeps it
            self.state = GameState.from_gnubg_id(words[2])
        elif command == "dice":
            self.dice = (int(words[1]), int(words[2]))
        elif command == "go":
            self.go(words[2])

    def go(self, role: str) -> None:
        if self.mode == "refuse":
            self.say(f"error search_failed refused #{self.number}")
            return
        if self.mode == "refuse-setup" and self.state is None:
            self.say("error missing_context no position")
            return
        assert self.state is not None
        if self.mode == "stray":
            self.say("info string stray in the search", "")
        self.say(f"info string request {self.number}")
        if role == "cube":
            self.say("bestcube double" if self.number % 2 else "bestcube nodouble")
        else:
            assert self.dice is not None
            legal = list(self.state.position.legal_plays(*self.dice))
            self.say(f"bestmove {legal[self.number % len(legal)].ubgi()}")
        if self.mode == "stray":
            self.say("info string stray after")
        self.late = False


class InProcessTransport:
    """The transport's two calls over an :class:`InProcessEngine`: nothing waits, so a read
    with nothing to read is a timeout at once, after which a late answer comes."""

    def __init__(self, engine: InProcessEngine) -> None:
        self.engine = engine

    def send(self, line: str) -> None:
        self.engine.handle(line)

    async def read_line(self, deadline: float) -> str:
        if self.engine.out:
            return self.engine.out.popleft()
        self.engine.out.extend(self.engine.held)
        self.engine.held.clear()
        raise EngineTimeoutError("no answer in time")


REQUESTS = st.lists(st.tuples(st.sampled_from(["configure", "play", "cube"]), st.sampled_from(MODES),
                              st.integers(0, len(STATES) - 1), st.integers(0, len(ROLLS) - 1)),
                    min_size=1, max_size=12)


async def converse(requests: list[tuple[str, str, int, int]]) -> None:
    engine = InProcessEngine(deque(mode for _, mode, _, _ in requests))
    client = UbgiProtocol(InProcessTransport(engine), timeout=10)  # type: ignore[arg-type]
    await client.initialize()
    for number, (kind, mode, which, roll) in enumerate(requests):
        state, dice = STATES[which], ROLLS[roll]
        refused = mode in ("refuse", "refuse-setup")
        try:
            if kind == "configure":
                answer: object = await client.configure({"Seed": number % 100})
            elif kind == "play":
                answer = await client.play(state, dice)
            else:
                answer = await client.cube(state.replace(dice=None))
        except EngineTimeoutError:
            assert mode == "late", (number, kind, mode)
            continue
        except EngineCommandError as error:
            assert refused and f"#{number}" in error.message, (number, kind, mode, error)
            continue
        assert mode in ("ok", "stray"), (number, kind, mode, answer)
        if kind == "play":
            legal = list(state.position.legal_plays(*dice))
            assert answer.info["string"] == f"request {number}"  # type: ignore[attr-defined]
            assert answer.play == legal[number % len(legal)]  # type: ignore[attr-defined]
        elif kind == "cube":
            assert answer.info["string"] == f"request {number}"  # type: ignore[attr-defined]
            assert answer.double == bool(number % 2)  # type: ignore[attr-defined]


@settings(max_examples=300, deadline=None)
@given(REQUESTS)
def test_every_answer_is_matched_to_its_own_request(requests: list[tuple[str, str, int, int]]) -> None:
    asyncio.run(converse(requests))


def test_a_refused_setting_then_a_search_stay_in_step() -> None:
    # The drift of the issue: two refused settings, then a go. Each gets its own answer.
    asyncio.run(converse([("configure", "refuse", 0, 0), ("configure", "refuse", 0, 0), ("play", "ok", 0, 0),
                          ("configure", "ok", 0, 0), ("play", "refuse-setup", 1, 1), ("play", "ok", 1, 1)]))


def test_a_line_that_makes_no_sense_is_named_and_the_next_request_is_in_step() -> None:
    async def run() -> None:
        engine = InProcessEngine(deque())
        client = UbgiProtocol(InProcessTransport(engine), timeout=10)  # type: ignore[arg-type]
        await client.initialize()
        engine.out.append("hello there")
        try:
            await client.play(GameState(), (3, 1))
        except EngineProtocolError as error:
            assert "hello there" in str(error)
        else:
            raise AssertionError("a nonsense line was taken for an answer")
        result = await client.play(GameState(), (6, 5))  # answered by the engine's latest request
        legal = list(Position().legal_plays(6, 5))
        assert result.info["string"] == f"request {engine.number}"
        assert result.play == legal[engine.number % len(legal)]

    asyncio.run(run())

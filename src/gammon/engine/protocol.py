"""The asyncio core of the engine client: one engine process behind one protocol.

:class:`EngineProtocol` is what every protocol shares (its :class:`~gammon.engine.transport.LineTransport`,
identity, settings, one request at a time); :class:`UbgiProtocol` speaks UBGI of either
dialect, :class:`~gammon.engine.gnubg.GnubgProtocol` GNU Backgammon's text interface, as
python-chess puts XBoard beside UCI. :func:`popen_ubgi` starts a UBGI engine and runs the
handshake; each coroutine sends one request and reads its reply within a timeout. Replies are
checked: a ``bestmove`` must be a legal play of the position and roll (``*`` on hits
tolerated), a ``bestcube`` one of the words allowed for the question.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import subprocess
import time
from collections.abc import Mapping, Sequence
from typing import Any, Self

from .. import ubgi
from ..errors import (
    EngineCommandError,
    EngineError,
    EngineProtocolError,
    EngineTimeoutError,
    GammonError,
    IllegalEngineMoveError,
    UnsupportedFeatureError,
)
from ..evaluation import CubeDecision, Hint, Probabilities
from ..play import Play
from ..position import Position
from ..state import GameState
from ..ubgi import Option
from .results import Limit, PlayResult, as_state, state_and_dice
from .transport import LineTransport

#: Seconds to wait for a reply when no limit says otherwise.
DEFAULT_TIMEOUT = 30.0
#: Seconds an engine may take from its start to ``ubgiok`` (loading a net, compiling), at least.
STARTUP_TIMEOUT = 60.0


class EngineProtocol:
    """One running engine: its transport, ``id`` (``name``, ``author``, ``version``), ``options``
    by name, ``dialect``, and a lock that lets one request through at a time.

    ``unsupported`` names what the engine has refused that gammon only tries (a setting it
    announced and would not take, ``newsession``), with the engine's words: it is not asked again.
    """

    dialect: str = ""

    def __init__(self, transport: LineTransport, timeout: float) -> None:
        self.transport = transport
        self.timeout = timeout
        self.id: dict[str, str] = {}
        self.options: dict[str, Option] = {}
        self.unsupported: dict[str, str] = {}
        self._lock = asyncio.Lock()

    @property
    def process(self) -> subprocess.Popen[bytes]:
        """The engine's :class:`subprocess.Popen`."""
        return self.transport.process

    @property
    def command(self) -> list[str]:
        args = self.transport.process.args
        return [str(args)] if isinstance(args, (str, bytes, os.PathLike)) else [str(arg) for arg in args]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {' '.join(self.command)!r} pid={self.transport.pid} dialect={self.dialect}>"

    def option_named(self, name: str) -> Option | None:
        """An advertised option by its name, case-insensitively; v0.2 keys also by their last
        part without underscores (``Ply`` finds ``engine.ply``, ``EvalMode`` ``engine.eval_mode``)."""
        if name in self.options:
            return self.options[name]
        wanted = name.lower().replace("_", "")
        for option in self.options.values():
            short = option.name.lower().rsplit(".", 1)[-1].replace("_", "")
            if option.name.lower() == name.lower() or short == wanted:
                return option
        return None

    def _deadline(self, limit: Limit | None = None, timeout: float | None = None) -> float:
        seconds = self.timeout if timeout is None else timeout
        if limit is not None and limit.time is not None:
            seconds += limit.time
        return time.monotonic() + seconds

    # -- what each protocol answers -------------------------------------------------------------
    async def initialize(self) -> None:
        raise NotImplementedError

    async def ping(self) -> None:
        raise NotImplementedError

    async def configure(self, options: Mapping[str, object]) -> None:
        raise NotImplementedError

    async def try_configure(self, name: str, value: object) -> bool:
        """Set an optional setting (a seed, an evaluation mode, threads, MultiPV) if the engine
        has it: False when it has none by that name, or refuses it (which marks it unsupported,
        with the engine's words, and it is not sent again), True once set."""
        option = self.option_named(name)
        if option is None:
            return False
        if option.name in self.unsupported:
            return False
        try:
            await self.configure({option.name: value})
        except EngineCommandError as error:
            self.unsupported[option.name] = _refusal(error)
            return False
        return True

    async def play(self, position: GameState | Position, dice: tuple[int, int] | None = None,
                   limit: Limit | None = None) -> PlayResult:
        raise NotImplementedError

    async def analyse(self, position: GameState | Position, dice: tuple[int, int] | None = None,
                      multipv: int = 1, limit: Limit | None = None) -> list[Hint]:
        raise NotImplementedError

    async def cube(self, position: GameState | Position, limit: Limit | None = None) -> CubeDecision:
        raise NotImplementedError

    # -- the end --------------------------------------------------------------------------------
    async def quit(self) -> None:
        """``quit``, then make sure the process is gone."""
        await self.transport.close(quit_line="quit")

    async def kill(self) -> None:
        await self.transport.kill()

    async def started(self) -> Self:
        """This protocol once its engine has answered the handshake; the process is killed if not."""
        try:
            await self.initialize()
        except BaseException:
            await self.kill()
            raise
        return self


class UbgiProtocol(EngineProtocol):
    """A running UBGI engine; made by :func:`popen_ubgi`. ``dialect`` is ``"0.1"``
    (``setoption``) or ``"0.2"`` (``set``).

    Every request is read to its end before anything is raised: a setting's answer up to
    the ``readyok`` of the ``isready`` sent after it, a search's up to its reply (the
    position and dice are sent with an ``isready`` of their own, so a refusal of either is
    told from the ``go``'s answer). So a refusal never leaves a line behind for the next
    request to take as its own. A request that ends early (a timeout, a reply that makes no
    sense) leaves the engine out of step: the next one first sends ``isready`` and drops
    every line before its ``readyok``.
    """

    def __init__(self, transport: LineTransport, timeout: float) -> None:
        super().__init__(transport, timeout)
        self.dialect = "0.1"
        self._stale = False  # a request ended before its answer did: its lines may still come
        self._awaiting = 0  # isready lines sent whose readyok has not been read
        self._session: str | None = None  # the newsession line the engine last accepted

    # -- lines ------------------------------------------------------------------------------
    def _isready(self) -> None:
        """Send ``isready``; its ``readyok`` is counted as it comes, so that one answering an
        earlier, abandoned request is never taken for the answer to a later one."""
        self.transport.send("isready")
        self._awaiting += 1

    def _ready(self) -> bool:
        """A ``readyok`` has been read: whether it answers the last ``isready`` sent."""
        self._awaiting = max(0, self._awaiting - 1)
        return self._awaiting == 0

    async def _resync(self) -> None:
        """After a request that ended early: ``isready``, and drop every line up to its ``readyok``."""
        if not self._stale:
            return
        self._isready()
        deadline = self._deadline()
        while not (await self._read(deadline) == "readyok" and self._ready()):
            pass
        self._stale = False

    async def _read(self, deadline: float) -> str:
        try:
            return (await self.transport.read_line(deadline)).strip()
        except EngineTimeoutError:
            self._stale = True
            raise

    def _unexpected(self, line: str, command: str) -> EngineProtocolError:
        """A line that belongs to no answer: the request ends here, so the engine is out of step."""
        self._stale = True
        return EngineProtocolError(f"unexpected reply {line[:80]!r} to {command!r}")

    @staticmethod
    def _error(line: str, command: str) -> EngineCommandError:
        words = line.split(maxsplit=2)
        code = words[1] if len(words) > 1 else "unknown"
        message = words[2] if len(words) > 2 else ""
        if code == "unsupported_feature":
            return UnsupportedFeatureError(code, message, command)
        return EngineCommandError(code, message, command)

    async def _until_ready(self, command: str, deadline: float) -> EngineCommandError | None:
        """Read up to the ``readyok`` of the ``isready`` sent after ``command``: the first
        ``error`` since the ``readyok`` before it, as ``command``'s, or None. What comes before
        an earlier ``readyok``, or is a search reply, answers an earlier request and is dropped;
        any other line makes no sense here."""
        refusal: EngineCommandError | None = None
        while True:
            line = await self._read(deadline)
            word = line.split(maxsplit=1)[0] if line else ""
            if word == "readyok":
                if self._ready():
                    return refusal
                refusal = None  # it answered an earlier request, and so did what came before it
            elif word == "error":
                refusal = refusal or self._error(line, command)
            elif word not in _IGNORED and word not in _REPLIES.values():
                raise self._unexpected(line, command)

    # -- handshake --------------------------------------------------------------------------
    async def initialize(self) -> None:
        """``ubgi`` ... ``ubgiok``: identity, dialect and settings; then ``isready`` ...
        ``readyok`` within the same allowance (engines load and compile before ``readyok``)."""
        async with self._lock:
            self.transport.send("ubgi")
            deadline = self._deadline(timeout=max(self.timeout, STARTUP_TIMEOUT))
            while True:
                line = await self._read(deadline)
                words = line.split()
                if not words:
                    continue
                if words[0] == "ubgiok":
                    break
                if words[0] == "id" and len(words) >= 2:
                    self.id[words[1]] = " ".join(words[2:])
                elif words[0] == "proto":
                    self.dialect = words[1] if len(words) > 1 else "0.2"
                elif words[0] in ("option", "key"):
                    try:
                        option = ubgi.parse_option_line(line) if words[0] == "option" else ubgi.parse_key_line(line)
                    except ValueError as error:
                        raise EngineProtocolError(f"engine sent a bad {words[0]} line: {error}") from None
                    self.options[option.name] = option
                    if words[0] == "key":
                        self.dialect = "0.2"
                # Other lines before ubgiok (banners, copyright) are ignored, as UCI clients do.
            if any(o.name.startswith("engine.") or "." in o.name for o in self.options.values()):
                self.dialect = "0.2"
            self._isready()
            while not (await self._read(deadline) == "readyok" and self._ready()):
                pass  # what an engine prints as it loads (banners included) is passed over, as above

    async def ping(self) -> None:
        """``isready`` ... ``readyok``."""
        async with self._lock:
            await self._sync("isready")

    async def _sync(self, command: str) -> None:
        """Send ``isready`` after ``command`` and read up to ``readyok``; then raise ``command``'s
        ``error``, if it drew one."""
        self._isready()
        refusal = await self._until_ready(command, self._deadline())
        if refusal is not None:
            raise refusal

    # -- settings ---------------------------------------------------------------------------
    async def configure(self, options: Mapping[str, object]) -> None:
        """Set each option (``setoption`` or ``set`` by dialect); EngineError for an unknown name or
        bad value, EngineCommandError when the engine refuses it."""
        async with self._lock:
            await self._resync()
            for name, value in options.items():
                option = self.option_named(name)
                if option is None:
                    known = ", ".join(self.options) or "none"
                    raise EngineError(f"engine has no option {name!r} (it has: {known})")
                try:
                    text = option.check(value)
                except ValueError as error:
                    raise EngineError(str(error)) from None
                command = (f"set {option.name} {text}" if self.dialect == "0.2"
                           else f"setoption name {option.name} value {text}")
                self.transport.send(command)
                await self._sync(command)

    # -- requests ---------------------------------------------------------------------------
    async def _newsession(self, state: GameState) -> None:
        """``newsession`` for the game's rules when they differ from the last ones sent: the
        position alone does not carry Jacoby, beavers or the kind of game to an engine that
        keeps defaults of its own. An engine that refuses the command is sent positions only."""
        line = session_command(state)
        if line == self._session or "newsession" in self.unsupported:
            return
        self.transport.send(line)
        try:
            await self._sync(line)
        except EngineCommandError as error:
            self.unsupported["newsession"] = _refusal(error)
            return
        self._session = line

    async def _go(self, state: GameState, dice: tuple[int, int] | None, role: str,
                  limit: Limit | None) -> tuple[str, list[dict[str, object]]]:
        """The context, position and dice, ``isready``, ``go``: the answer line and the ``info``
        lines before it. Both parts are read to their end (``readyok``, then the reply) before
        a refusal of either is raised."""
        await self._resync()
        await self._newsession(state)
        setup = [ubgi.position_command(state.replace(dice=None))]
        if dice is not None:
            setup.append(f"dice {dice[0]} {dice[1]}")
        arguments = limit.go_arguments() if limit is not None else ""
        command = f"go role {role}" + (f" {arguments}" if arguments else "")
        for line in setup:
            self.transport.send(line)
        self._isready()
        self.transport.send(command)
        deadline = self._deadline(limit)
        refusal = await self._until_ready(" / ".join(setup), deadline)
        infos: list[dict[str, object]] = []
        while True:
            line = await self._read(deadline)
            word = line.split(maxsplit=1)[0] if line else ""
            if word == "info":
                infos.append(ubgi.parse_info(line))
            elif word == _REPLIES[role]:
                answer = line[len(word):].strip()
                break
            elif word == "error":
                refusal = refusal or self._error(line, command)
                break
            elif word == "readyok":
                self._ready()
            elif word not in _IGNORED:
                raise self._unexpected(line, command)
        if refusal is not None:
            raise refusal
        return answer, infos

    async def play(self, position: GameState | Position, dice: tuple[int, int] | None = None,
                   limit: Limit | None = None) -> PlayResult:
        """The engine's play for ``dice`` (default: the state's dice), checked for legality."""
        state, dice = state_and_dice(position, dice)
        async with self._lock:
            text, infos = await self._go(state, dice, "chequer", limit)
        play = _legal_play(state, dice, text)
        info = next((i for i in reversed(infos) if "multipv" not in i), infos[-1] if infos else {})
        return PlayResult(play, dict(info))

    async def analyse(self, position: GameState | Position, dice: tuple[int, int] | None = None,
                      multipv: int = 1, limit: Limit | None = None) -> list[Hint]:
        """The engine's ``multipv`` best plays, ranked, with their probabilities where it gives them.

        Needs the engine's ``MultiPV`` option for more than one play; without it, its best play
        alone.
        """
        if multipv < 1:
            raise ValueError(f"multipv must be >= 1, got {multipv}")
        state, dice = state_and_dice(position, dice)
        option = self.option_named("MultiPV")
        if option is not None:
            wanted = multipv if option.max is None else min(multipv, option.max)
            await self.try_configure(option.name, wanted)
        async with self._lock:
            text, infos = await self._go(state, dice, "chequer", limit)
        _legal_play(state, dice, text)  # the engine's choice is checked too (with noise it may not rank first)
        ranked: dict[int, dict[str, object]] = {}
        for info in infos:
            if "multipv" in info and "pv" in info:
                ranked[int(str(info["multipv"]))] = info
        if not ranked:
            last = infos[-1] if infos else {}
            ranked = {1: {**last, "pv": text}}
        hints: list[Hint] = []
        for rank in sorted(ranked)[:multipv]:
            info = ranked[rank]
            play = _legal_play(state, dice, str(info.get("pv", "")))
            hint = Hint(len(hints) + 1, play, _probabilities(info), int(str(info.get("depth", 0) or 0)), 0.0,
                        _float(info.get("eq")))
            if hints:  # the best play loses nothing, evaluated or not; the others only against a known best
                top = hints[0].equity
                loss = None if top is None or hint.equity is None else top - hint.equity
                hint = dataclasses.replace(hint, loss=loss)
            hints.append(hint)
        return hints

    async def cube(self, position: GameState | Position, limit: Limit | None = None) -> CubeDecision:
        """Double or not (side on roll), or take or drop when the state has a double pending;
        the equities too when the engine's ``info`` gives them (``nd``, ``dt``, ``dp``)."""
        state = as_state(position)
        async with self._lock:
            text, infos = await self._go(state, None, "cube", limit)
        word = text.split()[0] if text else ""
        if word == "pass" and state.double_offered:
            word = "drop"
        info = dict(infos[-1]) if infos else {}
        try:
            return CubeDecision.from_ubgi(word, offered=state.double_offered, info=info)
        except ValueError as error:
            raise EngineProtocolError(f"bestcube {text!r}: {error}") from None


#: The reply that ends each role's ``go``.
_REPLIES = {"chequer": "bestmove", "cube": "bestcube", "turn": "bestturn"}
#: Lines a client passes over wherever they come: progress, identity, a stray ``readyok``
#: (only ever after an earlier request's ``isready``) and blank lines.
_IGNORED = frozenset({"", "info", "id", "readyok"})


def session_command(state: GameState) -> str:
    """The ``newsession`` line of a game's rules: money play with its Jacoby and beaver rules,
    or a match of its length (gammon plays the Crawford rule).

    >>> session_command(GameState(jacoby=True))
    'newsession type money jacoby on beavers off'
    >>> session_command(GameState(match_length=7))
    'newsession type match length 7 crawford on'
    """
    if state.match_length:
        return f"newsession type match length {state.match_length} crawford on"
    return f"newsession type money jacoby {_on(state.jacoby)} beavers {_on(state.beavers)}"


def _refusal(error: EngineCommandError) -> str:
    """What the engine said, without the value refused (the same words for every seed)."""
    return f"error {error.code} {error.message}".rstrip()


def _on(flag: bool) -> str:
    return "on" if flag else "off"


def _legal_play(state: GameState, dice: tuple[int, int], text: str) -> Play:
    try:
        return state.position.legal_plays(*dice).parse_ubgi(text)
    except GammonError as error:
        raise IllegalEngineMoveError(
            f"engine play {text!r} is not legal in {state.position.position_id()} with {dice[0]}-{dice[1]}: {error}"
        ) from None


def _float(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) else None


def _probabilities(info: Mapping[str, object]) -> Probabilities | None:
    """The chances an ``info`` line gives, or None when it gives no ``pwin`` (unknown, not even)."""
    values = [_float(info.get(k)) for k in ("pwin", "pgammon", "pbg", "plose_gammon", "plose_bg")]
    if values[0] is None:
        return None
    try:
        return Probabilities(*[v or 0.0 for v in values])
    except ValueError as error:
        raise EngineProtocolError(f"engine probabilities are inconsistent: {error}") from None


async def popen_ubgi(command: str | Sequence[str], *, timeout: float = DEFAULT_TIMEOUT,
                     **popen_args: Any) -> UbgiProtocol:
    """Start a UBGI engine and run its handshake; the engine dies with this process.

    Keywords go to :meth:`LineTransport.popen <gammon.engine.transport.LineTransport.popen>`
    (``stderr``, ``env``, ``cwd``).
    """
    transport = await LineTransport.popen(command, **popen_args)
    return await UbgiProtocol(transport, timeout).started()

"""The asyncio core of the engine client: one UBGI engine process, either dialect.

:func:`popen_ubgi` starts the engine and runs the handshake; the coroutines of
:class:`UbgiProtocol` send one request at a time and read its reply, each within a
timeout. Replies are checked: a ``bestmove`` must be a legal play of the position and
roll (``*`` on hits tolerated), a ``bestcube`` one of the words allowed for the question.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping, Sequence

from ..evaluation import Hint, Probabilities
from ..errors import (
    EngineCommandError,
    EngineError,
    EngineProtocolError,
    EngineTerminatedError,
    EngineTimeoutError,
    GammonError,
    IllegalEngineMoveError,
    UnsupportedFeatureError,
)
from ..play import Play
from ..position import Position
from ..protocol import wire
from ..protocol.wire import Option
from ..state import GameState
from .process import die_with_parent, split_command
from .results import CubeResult, Limit, PlayResult, as_state, state_and_dice

#: Seconds to wait for a reply when no limit says otherwise.
DEFAULT_TIMEOUT = 30.0
#: Seconds an engine may take from its start to ``ubgiok`` (loading a net, compiling), at least.
STARTUP_TIMEOUT = 60.0
#: Longest line accepted from an engine.
MAX_LINE = 1 << 20


class UbgiProtocol:
    """A running UBGI engine; made by :func:`popen_ubgi`.

    ``id`` holds the engine's ``id`` lines (``name``, ``author``, ``version``), ``options``
    its settings by name, ``dialect`` ``"0.1"`` (``setoption``) or ``"0.2"`` (``set``).
    """

    def __init__(self, process: asyncio.subprocess.Process, command: list[str], timeout: float) -> None:
        self.process = process
        self.command = command
        self.timeout = timeout
        self.id: dict[str, str] = {}
        self.options: dict[str, Option] = {}
        self.dialect = "0.1"
        self._lock = asyncio.Lock()
        self._stale = False  # a reply timed out: its lines may still come, before the next answer

    def __repr__(self) -> str:
        return f"<UbgiProtocol {' '.join(self.command)!r} pid={self.process.pid} dialect={self.dialect}>"

    # -- lines ------------------------------------------------------------------------------
    async def _send(self, line: str) -> None:
        stdin = self.process.stdin
        if stdin is None or stdin.is_closing() or self.process.returncode is not None:
            raise EngineTerminatedError(f"engine {self.command[0]!r} has exited (code {self.process.returncode})")
        stdin.write((line + "\n").encode())
        try:
            await stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            raise EngineTerminatedError(f"engine {self.command[0]!r} closed its input") from None

    async def _resync(self) -> None:
        """After a timeout: ``isready``, and drop every line before its ``readyok``."""
        if not self._stale:
            return
        await self._send("isready")
        deadline = self._deadline()
        while await self._read(deadline) != "readyok":
            pass
        self._stale = False

    async def _read(self, deadline: float) -> str:
        loop = asyncio.get_running_loop()
        stdout = self.process.stdout
        assert stdout is not None
        remaining = deadline - loop.time()
        try:
            raw = await asyncio.wait_for(stdout.readline(), max(remaining, 0.001))
        except asyncio.TimeoutError:
            self._stale = True
            raise EngineTimeoutError(f"engine {self.command[0]!r} did not answer in time") from None
        except (ValueError, asyncio.LimitOverrunError):
            raise EngineProtocolError(f"engine {self.command[0]!r} sent a line longer than {MAX_LINE} bytes") from None
        if not raw:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.process.wait(), 1.0)
            raise EngineTerminatedError(
                f"engine {self.command[0]!r} exited (code {self.process.returncode})")
        return raw.decode("utf-8", errors="replace").strip()

    def _deadline(self, limit: Limit | None = None, timeout: float | None = None) -> float:
        loop = asyncio.get_running_loop()
        seconds = self.timeout if timeout is None else timeout
        if limit is not None and limit.time is not None:
            seconds += limit.time
        return loop.time() + seconds

    @staticmethod
    def _raise_error(line: str, command: str) -> None:
        words = line.split(maxsplit=2)
        code = words[1] if len(words) > 1 else "unknown"
        message = words[2] if len(words) > 2 else ""
        if code == "unsupported_feature":
            raise UnsupportedFeatureError(code, message, command)
        raise EngineCommandError(code, message, command)

    # -- handshake --------------------------------------------------------------------------
    async def initialize(self) -> None:
        """``ubgi`` ... ``ubgiok``: identity, dialect and settings."""
        async with self._lock:
            await self._send("ubgi")
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
                        option = wire.parse_option_line(line) if words[0] == "option" else wire.parse_key_line(line)
                    except ValueError as error:
                        raise EngineProtocolError(f"engine sent a bad {words[0]} line: {error}") from None
                    self.options[option.name] = option
                    if words[0] == "key":
                        self.dialect = "0.2"
                # Other lines before ubgiok (banners, copyright) are ignored, as UCI clients do.
            if any(o.name.startswith("engine.") or "." in o.name for o in self.options.values()):
                self.dialect = "0.2"

    async def ping(self) -> None:
        """``isready`` ... ``readyok``."""
        async with self._lock:
            await self._sync("isready")

    async def _sync(self, command: str) -> None:
        """Send ``isready`` and wait for ``readyok``; an ``error`` before it is ``command``'s."""
        await self._resync()
        await self._send("isready")
        deadline = self._deadline()
        while True:
            line = await self._read(deadline)
            if line == "readyok":
                return
            if line.startswith("error"):
                self._raise_error(line, command)
            if line.startswith(("info", "id ")) or not line:
                continue
            raise EngineProtocolError(f"unexpected reply {line[:80]!r} to {command!r}")

    # -- settings ---------------------------------------------------------------------------
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

    async def configure(self, options: Mapping[str, object]) -> None:
        """Set each option (``setoption`` or ``set`` by dialect); EngineError for an unknown name or bad value."""
        async with self._lock:
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
                await self._send(command)
                await self._sync(command)

    # -- requests ---------------------------------------------------------------------------
    async def _go(self, state: GameState, dice: tuple[int, int] | None, role: str,
                  limit: Limit | None) -> tuple[str, list[dict[str, object]]]:
        """Send the position (and dice), ``go``; the answer line and the ``info`` lines before it."""
        await self._resync()
        await self._send(wire.position_command(state.replace(dice=None)))
        if dice is not None:
            await self._send(f"dice {dice[0]} {dice[1]}")
        arguments = limit.go_arguments() if limit is not None else ""
        command = f"go role {role}" + (f" {arguments}" if arguments else "")
        await self._send(command)
        deadline = self._deadline(limit)
        infos: list[dict[str, object]] = []
        answers = {"chequer": "bestmove", "cube": "bestcube", "turn": "bestturn"}
        while True:
            line = await self._read(deadline)
            word = line.split(maxsplit=1)[0] if line else ""
            if word == "info":
                infos.append(wire.parse_info(line))
            elif word == answers[role]:
                return line[len(word):].strip(), infos
            elif word == "error":
                self._raise_error(line, command)
            elif word in ("", "readyok"):
                continue
            else:
                raise EngineProtocolError(f"unexpected reply {line[:80]!r} to {command!r}")

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
            await self.configure({option.name: wanted})
        async with self._lock:
            text, infos = await self._go(state, dice, "chequer", limit)
        _legal_play(state, dice, text)  # the engine's choice is checked too (with noise it may not rank first)
        ranked: dict[int, dict[str, object]] = {}
        for info in infos:
            if "multipv" in info and "pv" in info:
                ranked[int(info["multipv"])] = info  # type: ignore[arg-type]
        if not ranked:
            last = infos[-1] if infos else {}
            ranked = {1: {**last, "pv": text}}
        hints = []
        top = None
        for rank in sorted(ranked)[:multipv]:
            info = ranked[rank]
            play = _legal_play(state, dice, str(info.get("pv", "")))
            equity = _float(info.get("eq"))
            top = equity if top is None else top
            loss = (top - equity) if (top is not None and equity is not None) else 0.0
            hints.append(Hint(len(hints) + 1, play, _probabilities(info), int(info.get("depth", 0) or 0),
                              float(loss), equity))
        return hints

    async def cube(self, position: GameState | Position, limit: Limit | None = None) -> CubeResult:
        """Double or not (side on roll), or take or drop when the state has a double pending."""
        state = as_state(position)
        async with self._lock:
            text, infos = await self._go(state, None, "cube", limit)
        action = text.split()[0] if text else ""
        allowed = ("take", "drop") if state.double_offered else ("double", "nodouble")
        if action == "pass" and state.double_offered:
            action = "drop"
        if action not in allowed:
            raise EngineProtocolError(f"bestcube {text!r}: expected {' or '.join(allowed)}")
        return CubeResult(action, dict(infos[-1]) if infos else {})

    async def quit(self) -> None:
        """``quit``, then make sure the process is gone."""
        if self.process.returncode is None:
            with contextlib.suppress(EngineError, OSError, RuntimeError):
                await self._send("quit")
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.process.wait(), 2.0)
        await self.kill()

    async def kill(self) -> None:
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.process.wait(), 5.0)


def _legal_play(state: GameState, dice: tuple[int, int], text: str) -> Play:
    legal = state.position.legal_plays(*dice)
    try:
        return wire.parse_play(text, legal)
    except GammonError as error:
        raise IllegalEngineMoveError(
            f"engine play {text!r} is not legal in {state.position.position_id()} with {dice[0]}-{dice[1]}: {error}"
        ) from None


def _float(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) else None


def _probabilities(info: Mapping[str, object]) -> Probabilities:
    values = [_float(info.get(k)) for k in ("pwin", "pgammon", "pbg", "plose_gammon", "plose_bg")]
    if values[0] is None:
        return Probabilities(0.5)  # the engine gave no chances: unknown, shown as even
    try:
        return Probabilities(*[v or 0.0 for v in values])
    except ValueError as error:
        raise EngineProtocolError(f"engine probabilities are inconsistent: {error}") from None


async def popen_ubgi(command: str | Sequence[str], *, timeout: float = DEFAULT_TIMEOUT,
                     **popen_args: object) -> UbgiProtocol:
    """Start a UBGI engine and run its handshake; the engine dies with this process."""
    argv = split_command(command)
    try:
        process = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=popen_args.pop("stderr", asyncio.subprocess.DEVNULL), limit=MAX_LINE,
            preexec_fn=die_with_parent(), **popen_args,  # type: ignore[arg-type]
        )
    except OSError as error:
        raise EngineError(f"cannot start engine {argv[0]!r}: {error.strerror or error}") from None
    protocol = UbgiProtocol(process, argv, timeout)
    try:
        await protocol.initialize()
    except BaseException:
        await protocol.kill()
        raise
    return protocol

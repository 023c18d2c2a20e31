"""The blocking face of the engine client: :class:`SimpleEngine`, as python-chess has it.

A :class:`~gammon.engine.transport.BackgroundLoop` (an event loop in a daemon thread) owns
the engine process; each method hands a coroutine of the engine's protocol
(:class:`~gammon.engine.protocol.UbgiProtocol`, or GNU Backgammon's
:class:`~gammon.engine.gnubg.GnubgProtocol`) to it and waits. Closing the engine (or
leaving its ``with`` block, or the program ending) stops the process.
"""

from __future__ import annotations

import subprocess
import weakref
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import Any, Self, TypeVar

from ..errors import EngineTerminatedError
from ..evaluation import CubeDecision, Hint
from ..position import Position
from ..state import GameState
from ..ubgi import Option
from .gnubg import MAX_PLY, GnubgProtocol, popen_gnubg
from .protocol import DEFAULT_TIMEOUT, EngineProtocol, popen_ubgi
from .results import Limit, PlayResult
from .transport import BackgroundLoop

T = TypeVar("T")


class SimpleEngine:
    """An engine driven synchronously: a UBGI engine (:meth:`popen_ubgi`) or GNU Backgammon
    (:meth:`popen_gnubg`), with the same methods.

    >>> from gammon import Position
    >>> with SimpleEngine.popen_ubgi("gammon engine --player pubeval") as engine:  # doctest: +SKIP
    ...     engine.play(Position(), (3, 1)).play
    Play(...)
    """

    def __init__(self, protocol: EngineProtocol, background: BackgroundLoop) -> None:
        self.protocol = protocol
        self._background = background
        self._closed = False
        self._finalizer = weakref.finalize(self, _shutdown, protocol, background)

    @classmethod
    def _start(cls, start: Callable[[], Coroutine[Any, Any, EngineProtocol]], *args: Any) -> Self:
        background = BackgroundLoop()
        try:
            protocol = background.run(start())
        except BaseException:
            background.close()
            raise
        return cls(protocol, background, *args)

    @classmethod
    def popen_ubgi(cls, command: str | Sequence[str], *, timeout: float = DEFAULT_TIMEOUT,
                   **popen_args: Any) -> SimpleEngine:
        """Start ``command`` (a string is split like a shell would) and run the UBGI handshake.

        ``timeout`` bounds every reply (a ``Limit(time=...)`` adds its time to it); the handshake
        may take up to :data:`~gammon.engine.protocol.STARTUP_TIMEOUT` seconds, engines load at start.
        """
        return cls._start(lambda: popen_ubgi(command, timeout=timeout, **popen_args))

    @classmethod
    def popen_gnubg(cls, command: str | Sequence[str] | None = None, *, ply: int = 0,
                    timeout: float = 60.0) -> SimpleEngine:
        """Start GNU Backgammon's ``gnubg -t`` (default: :func:`~gammon.engine.gnubg.find_gnubg`)
        and set it up as a calculator evaluating at ``ply``; see :mod:`gammon.engine.gnubg`."""
        return cls._start(lambda: popen_gnubg(command, ply=ply, timeout=timeout))

    def _run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        if self._closed:
            coroutine.close()
            raise EngineTerminatedError("the engine has been closed")
        # The coroutine has its own deadline; the loop's timeout is a safety net should it stall.
        return self._background.run(coroutine, timeout=self.protocol.timeout * 4 + 3600)

    # -- what the engine says about itself ----------------------------------------------------
    @property
    def id(self) -> dict[str, str]:
        return self.protocol.id

    @property
    def options(self) -> dict[str, Option]:
        return self.protocol.options

    @property
    def dialect(self) -> str:
        return self.protocol.dialect

    @property
    def timeout(self) -> float:
        """Seconds every reply may take (a limit's time is added)."""
        return self.protocol.timeout

    @timeout.setter
    def timeout(self, seconds: float) -> None:
        self.protocol.timeout = seconds

    # -- requests ---------------------------------------------------------------------------
    def ping(self) -> None:
        self._run(self.protocol.ping())

    def configure(self, options: Mapping[str, object]) -> None:
        self._run(self.protocol.configure(options))

    def try_configure(self, name: str, value: object) -> bool:
        """Set an optional setting if the engine has it and takes it (see
        :meth:`EngineProtocol.try_configure <gammon.engine.protocol.EngineProtocol.try_configure>`)."""
        return self._run(self.protocol.try_configure(name, value))

    @property
    def unsupported(self) -> dict[str, str]:
        """What the engine refused of what gammon only tries, with its words."""
        return self.protocol.unsupported

    def play(self, position: GameState | Position, dice: tuple[int, int] | None = None,
             limit: Limit | None = None) -> PlayResult:
        return self._run(self.protocol.play(position, dice, limit))

    def analyse(self, position: GameState | Position, dice: tuple[int, int] | None = None, multipv: int = 1,
                limit: Limit | None = None) -> list[Hint]:
        return self._run(self.protocol.analyse(position, dice, multipv, limit))

    def cube(self, position: GameState | Position, limit: Limit | None = None) -> CubeDecision:
        return self._run(self.protocol.cube(position, limit))

    # -- the end ----------------------------------------------------------------------------
    def quit(self) -> None:
        """Ask the engine to quit, kill it if it lingers, stop the event loop. Idempotent."""
        if self._closed:
            return
        self._closed = True
        self._finalizer()

    close = quit  # noqa: A003 - python-chess's name, which engine users know

    def __enter__(self) -> SimpleEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.quit()

    def __repr__(self) -> str:
        name = self.id.get("name", " ".join(self.protocol.command))
        state = "closed" if self._closed else f"pid={self.protocol.transport.pid}"
        return f"<{type(self).__name__} {name!r} ({state})>"


def _shutdown(protocol: EngineProtocol, background: BackgroundLoop) -> None:
    """Quit the engine and stop its loop (also run when a SimpleEngine is garbage-collected)."""
    if background.loop.is_closed():
        return
    if background.thread.is_alive():
        try:
            background.run(protocol.quit(), timeout=10)
        except Exception:  # noqa: BLE001 - the process is killed by quit() whatever it says
            pass
    background.close()


class GnubgEngine(SimpleEngine):
    """A running ``gnubg -t`` driven synchronously: ``play``, ``analyse`` and ``cube`` as
    SimpleEngine has them. Calls are serialised, so one engine can be shared between threads.

    >>> with GnubgEngine.popen(ply=0) as engine:  # doctest: +SKIP
    ...     str(engine.play(Position(), (3, 1)).play)
    '8/5 6/5'
    """

    protocol: GnubgProtocol

    @classmethod
    def popen(cls, command: str | Sequence[str] | None = None, *, ply: int = 0,
              timeout: float = 60.0) -> GnubgEngine:
        """Start GNU Backgammon; see :func:`popen_gnubg`."""
        if not isinstance(ply, int) or not 0 <= ply <= MAX_PLY:
            raise ValueError(f"ply must be 0..{MAX_PLY}, got {ply!r}")
        return cls._start(lambda: popen_gnubg(command, ply=ply, timeout=timeout))

    @property
    def process(self) -> subprocess.Popen[bytes]:
        return self.protocol.process

    def __repr__(self) -> str:
        state = "closed" if self._closed else f"pid={self.protocol.transport.pid}"
        return f"<GnubgEngine {self.id.get('name', 'GNU Backgammon')!r} ply={self.protocol.ply} ({state})>"

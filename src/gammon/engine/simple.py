"""The blocking face of the engine client: :class:`SimpleEngine`, as python-chess has it.

An event loop runs in a background thread and owns the engine process; each method hands
a coroutine of :class:`~gammon.engine.protocol.UbgiProtocol` to it and waits. Closing the
engine (or leaving its ``with`` block, or the program ending) stops the process.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import weakref
from collections.abc import Coroutine, Mapping, Sequence
from typing import Any, TypeVar

from ..evaluation import Hint
from ..errors import EngineError, EngineTerminatedError, EngineTimeoutError
from ..position import Position
from ..protocol.wire import Option
from ..state import GameState
from .protocol import DEFAULT_TIMEOUT, UbgiProtocol, popen_ubgi
from .results import CubeResult, Limit, PlayResult

T = TypeVar("T")


class SimpleEngine:
    """A UBGI engine driven synchronously.

    >>> from gammon import Position
    >>> with SimpleEngine.popen_ubgi("gammon engine --player pubeval") as engine:  # doctest: +SKIP
    ...     engine.play(Position(), (3, 1)).play
    Play(...)
    """

    def __init__(self, protocol: UbgiProtocol, loop: asyncio.AbstractEventLoop, thread: threading.Thread) -> None:
        self.protocol = protocol
        self._loop = loop
        self._thread = thread
        self._closed = False
        self._finalizer = weakref.finalize(self, _shutdown, protocol, loop, thread)

    @classmethod
    def popen_ubgi(cls, command: str | Sequence[str], *, timeout: float = DEFAULT_TIMEOUT,
                   **popen_args: Any) -> SimpleEngine:
        """Start ``command`` (a string is split like a shell would) and run the UBGI handshake.

        ``timeout`` bounds every reply (a ``Limit(time=...)`` adds its time to it); the handshake
        may take up to :data:`~gammon.engine.protocol.STARTUP_TIMEOUT` seconds, engines load at start.
        """
        loop = asyncio.new_event_loop()
        ready = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(loop)
            loop.call_soon(ready.set)
            loop.run_forever()

        thread = threading.Thread(target=run, name="gammon-engine-loop", daemon=True)
        thread.start()
        ready.wait()
        future = asyncio.run_coroutine_threadsafe(popen_ubgi(command, timeout=timeout, **popen_args), loop)
        try:
            protocol = future.result()
        except BaseException:
            loop.call_soon_threadsafe(loop.stop)
            thread.join()
            loop.close()
            raise
        return cls(protocol, loop, thread)

    def _run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        if self._closed:
            coroutine.close()
            raise EngineTerminatedError("the engine has been closed")
        future = asyncio.run_coroutine_threadsafe(coroutine, self._loop)
        try:
            # The coroutine has its own deadline; this is a safety net should the loop stall.
            return future.result(timeout=self.protocol.timeout * 4 + 3600)
        except EngineError:
            raise  # (an EngineTimeoutError is a TimeoutError too: let it through as it is)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise EngineTimeoutError("the engine's event loop did not answer") from None

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

    # -- requests ---------------------------------------------------------------------------
    def ping(self) -> None:
        self._run(self.protocol.ping())

    def configure(self, options: Mapping[str, object]) -> None:
        self._run(self.protocol.configure(options))

    def play(self, position: GameState | Position, dice: tuple[int, int] | None = None,
             limit: Limit | None = None) -> PlayResult:
        return self._run(self.protocol.play(position, dice, limit))

    def analyse(self, position: GameState | Position, dice: tuple[int, int] | None = None, multipv: int = 1,
                limit: Limit | None = None) -> list[Hint]:
        return self._run(self.protocol.analyse(position, dice, multipv, limit))

    def cube(self, position: GameState | Position, limit: Limit | None = None) -> CubeResult:
        return self._run(self.protocol.cube(position, limit))

    # -- the end ----------------------------------------------------------------------------
    def quit(self) -> None:
        """Ask the engine to quit, kill it if it lingers, stop the event loop. Idempotent."""
        if self._closed:
            return
        self._closed = True
        self._finalizer()

    close = quit

    def __enter__(self) -> SimpleEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.quit()

    def __repr__(self) -> str:
        name = self.id.get("name", " ".join(self.protocol.command))
        state = "closed" if self._closed else f"pid={self.protocol.process.pid}"
        return f"<SimpleEngine {name!r} ({state})>"


def _shutdown(protocol: UbgiProtocol, loop: asyncio.AbstractEventLoop, thread: threading.Thread) -> None:
    """Quit the engine and stop its loop (also run when a SimpleEngine is garbage-collected)."""
    if loop.is_closed():
        return
    if thread.is_alive():
        future = asyncio.run_coroutine_threadsafe(protocol.quit(), loop)
        try:
            future.result(timeout=10)
        except Exception:  # the process is killed by quit() whatever it says
            pass
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
    if not loop.is_running():
        loop.close()

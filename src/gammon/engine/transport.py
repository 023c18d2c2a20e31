"""The one line transport under every engine process: start it, write lines, read lines by a deadline.

Both protocols of the client (UBGI and GNU Backgammon's text interface) and the conformance
suite talk to their process through a :class:`LineTransport`. It is asyncio inside; a
:class:`BackgroundLoop` (an event loop in a daemon thread) is the blocking face for code
without a loop of its own, as python-chess's ``SimpleEngine`` is. The process never
outlives its client: :meth:`LineTransport.close` kills it if it lingers, and on Linux the
kernel kills it should the client itself die (:func:`die_with_parent`).

Every line the process prints is read as soon as it comes (so a chatty engine never blocks
on a full pipe) and queued; :meth:`LineTransport.read_line` takes the next one or raises
:class:`~gammon.errors.EngineTimeoutError` at its deadline, and
:class:`~gammon.errors.EngineTerminatedError` once the process has closed its output.
Writes are buffered by the event loop and never block, even towards a process that has
stopped reading.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import shlex
import shutil
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Coroutine, Sequence
from typing import IO, Any, TypeVar

from ..errors import EngineError, EngineProtocolError, EngineTerminatedError, EngineTimeoutError
from ..workers import die_with_parent

T = TypeVar("T")

#: Longest line accepted from a process.
MAX_LINE = 1 << 20
#: Lines of a process's stderr kept for error messages.
STDERR_LINES = 10


def split_command(command: str | Sequence[str]) -> list[str]:
    """A command line as argv: a string is split as a POSIX shell would (quotes respected).

    >>> split_command("engine --flag 'two words'")
    ['engine', '--flag', 'two words']
    """
    if isinstance(command, str):
        try:
            argv = shlex.split(command)
        except ValueError as error:
            raise EngineError(f"bad engine command {command!r}: {error}") from None
    else:
        argv = [str(part) for part in command]
    if not argv:
        raise EngineError("empty engine command")
    if argv[0] == "gammon" and shutil.which("gammon") is None:
        # "gammon" is this gammon even where its script is not on PATH (a venv not activated).
        argv = [sys.executable, "-m", "gammon", *argv[1:]]
    return argv


class _TooLong:
    """Queued in place of a line longer than the limit."""


class LineTransport:
    """A process and its lines; made by :meth:`popen` inside a running event loop.

    ``name`` says who the process is in error messages (``engine 'gnubg'``); ``stderr_tail``
    holds the last lines of its stderr when that is piped (``stderr=subprocess.PIPE``);
    ``on_line(stream, line)``, if given, sees every line of stdout and piped stderr as it
    arrives, read or not.
    """

    def __init__(self, process: subprocess.Popen[bytes], name: str,
                 on_line: Callable[[str, str], None] | None = None) -> None:
        self.process = process
        self.name = name
        self.on_line = on_line
        self.stderr_tail: deque[str] = deque(maxlen=STDERR_LINES)
        self.eof = False
        self._lines: asyncio.Queue[str | _TooLong | None] = asyncio.Queue()
        self._writer: asyncio.WriteTransport | None = None
        self._readers: list[asyncio.BaseTransport] = []
        self._pumps: list[asyncio.Task[None]] = []
        self._closed = False

    @classmethod
    async def popen(cls, command: str | Sequence[str], *, name: str | None = None, limit: int = MAX_LINE,
                    stderr: int | IO[Any] | None = subprocess.DEVNULL,
                    on_line: Callable[[str, str], None] | None = None, **popen_args: Any) -> LineTransport:
        """Start ``command`` (split as a shell would if a string) with its stdin and stdout piped.

        ``stderr`` is DEVNULL (default), ``subprocess.STDOUT`` (merged into the lines),
        ``subprocess.PIPE`` (kept in :attr:`stderr_tail`) or None (inherited); other keywords go
        to :class:`subprocess.Popen` (``env``, ``cwd``). EngineError when it cannot start.
        """
        argv = split_command(command)
        name = name or f"engine {argv[0]!r}"
        try:
            process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                                       bufsize=0, preexec_fn=die_with_parent(), **popen_args)
        except OSError as error:
            raise EngineError(f"cannot start {name}: {error.strerror or error}") from None
        transport = cls(process, name, on_line)
        await transport._connect(limit)
        return transport

    async def _connect(self, limit: int) -> None:
        loop = asyncio.get_running_loop()
        assert self.process.stdin is not None and self.process.stdout is not None
        self._writer, _ = await loop.connect_write_pipe(asyncio.Protocol, self.process.stdin)
        streams = [("stdout", self.process.stdout)]
        if self.process.stderr is not None:
            streams.append(("stderr", self.process.stderr))
        for where, pipe in streams:
            reader = asyncio.StreamReader(limit=limit)
            transport, _ = await loop.connect_read_pipe(functools.partial(asyncio.StreamReaderProtocol, reader), pipe)
            self._readers.append(transport)
            self._pumps.append(loop.create_task(self._pump(reader, where)))

    async def _pump(self, reader: asyncio.StreamReader, where: str) -> None:
        """Every line of one stream as it comes: stdout's into the queue, stderr's into the tail."""
        try:
            while True:
                try:
                    raw = await reader.readline()
                except ValueError:  # longer than the limit (the rest of it comes as a line of its own)
                    if where == "stdout":
                        self._lines.put_nowait(_TooLong())
                    continue
                if not raw:
                    break
                line = raw.decode("utf-8", "replace").rstrip("\r\n")
                if self.on_line is not None:
                    self.on_line(where, line)
                if where == "stdout":
                    self._lines.put_nowait(line)
                else:
                    self.stderr_tail.append(line)
        except (OSError, ConnectionError):
            pass
        finally:
            if where == "stdout":
                self._lines.put_nowait(None)

    # -- writing ------------------------------------------------------------------------------
    def send(self, line: str) -> None:
        """Write ``line`` and a newline (buffered: never blocks); EngineTerminatedError once the
        process has exited or stopped reading."""
        self.send_bytes(line.encode("utf-8", "replace"))

    def send_bytes(self, data: bytes) -> None:
        """Bytes as they are (invalid UTF-8 included), then a newline."""
        if self._writer is None or self._writer.is_closing() or self.process.poll() is not None:
            raise EngineTerminatedError(f"{self.name} has exited (code {self.process.poll()})")
        self._writer.write(data + b"\n")

    # -- reading ------------------------------------------------------------------------------
    async def read_line(self, deadline: float) -> str:
        """The next line (without its line end), waiting until ``deadline`` (:func:`time.monotonic`)
        at most; a line already read is returned even after the deadline."""
        if self.eof:
            raise EngineTerminatedError(await self._ended())
        try:
            item = self._lines.get_nowait()
        except asyncio.QueueEmpty:
            if self._closed:
                raise EngineTerminatedError(await self._ended()) from None
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise EngineTimeoutError(f"{self.name} did not answer in time") from None
            try:
                item = await asyncio.wait_for(self._lines.get(), remaining)
            except TimeoutError:
                raise EngineTimeoutError(f"{self.name} did not answer in time") from None
        if item is None:
            self.eof = True
            raise EngineTerminatedError(await self._ended())
        if isinstance(item, _TooLong):
            raise EngineProtocolError(f"{self.name} sent a line longer than {MAX_LINE} bytes")
        return item

    async def _ended(self) -> str:
        code = await self.wait(1.0)
        return f"{self.name} exited (code {code})"

    # -- the process --------------------------------------------------------------------------
    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def returncode(self) -> int | None:
        """The exit status, None while the process runs."""
        return self.process.poll()

    def alive(self) -> bool:
        """Running, with its output still open."""
        return not self.eof and self.process.poll() is None

    async def wait(self, timeout: float) -> int | None:
        """The exit status once the process has ended, or None if it still runs after ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while (code := self.process.poll()) is None and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        return code

    async def close(self, quit_line: str | None = None, grace: float = 2.0) -> None:
        """End the process: ``quit_line`` first if given (``grace`` seconds to exit by itself),
        then kill; close the pipes. Idempotent."""
        if self.process.poll() is None and quit_line is not None:
            with contextlib.suppress(EngineError, OSError, RuntimeError):
                self.send(quit_line)
            await self.wait(grace)
        await self.kill()

    async def kill(self) -> None:
        """Kill the process (if it still runs), reap it and close the pipes."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
            await self.wait(5.0)
        if self._writer is not None:
            self._writer.close()
        for reader in self._readers:
            reader.close()
        for pump in self._pumps:
            pump.cancel()
        self._pumps = []
        self._closed = True


class BackgroundLoop:
    """An event loop in a daemon thread: blocking code runs the transport's coroutines on it."""

    def __init__(self, name: str = "gammon-engine-loop") -> None:
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()
        self.thread = threading.Thread(target=self._serve, args=(ready,), name=name, daemon=True)
        self.thread.start()
        ready.wait()

    def _serve(self, ready: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.call_soon(ready.set)
        self.loop.run_forever()

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run ``coroutine`` on the loop and wait for its result (its own deadlines apply;
        ``timeout`` is a safety net should the loop itself stall)."""
        if self.loop.is_closed():
            coroutine.close()
            raise EngineTerminatedError("the engine's event loop has been closed")
        future = asyncio.run_coroutine_threadsafe(coroutine, self.loop)
        try:
            return future.result(timeout)
        except EngineError:
            raise  # an EngineTimeoutError is a TimeoutError too: let it through as it is
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise EngineTimeoutError("the engine's event loop did not answer") from None

    def call(self, function: Callable[..., T], *args: Any) -> T:
        """Run a plain function in the loop's thread (the transport is not thread-safe)."""
        async def call() -> T:
            return function(*args)

        return self.run(call())

    def close(self) -> None:
        """Stop the loop and its thread. Idempotent."""
        if self.loop.is_closed():
            return
        if self.thread.is_alive():
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(timeout=10)
        if not self.loop.is_running():
            self.loop.close()

"""The suite's end of the wire: an engine process over the client's line transport, raw.

No client in between, so what is checked is exactly what the engine prints. Every read has a
deadline and no write blocks (:class:`~gammon.engine.transport.LineTransport`), so a hung
engine cannot hang the suite; every line of stdout and stderr is watched for tracebacks.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable

from ..engine.transport import BackgroundLoop, LineTransport
from ..errors import EngineError, EngineProtocolError, EngineTerminatedError, EngineTimeoutError
from .report import CheckSetupError

#: Longest line read from an engine (the suite reads what any engine prints).
MAX_LINE = 1 << 26
#: Seconds an engine's first search may take, and the ``isready`` before it, whatever the
#: per-reply timeout: engines load and compile then (gammon's kernels, on an empty cache).
FIRST_SEARCH_S = 60.0


class Gone(Exception):
    """The engine exited or closed its output."""


class Timeout(Exception):
    """The engine did not answer in time."""


def clip(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[:limit] + f"...({len(text)} chars)"


class Connection:
    """One engine process: lines written and read by deadlines (:func:`time.monotonic`),
    tracebacks noted as they come. Its calls run on the suite's ``background`` loop."""

    def __init__(self, argv: list[str], timeout: float, background: BackgroundLoop) -> None:
        self.background = background
        self.timeout = timeout
        self.last_sent = ""
        self.searched = False  # a search has been answered: the first-search allowance is spent
        self.tracebacks: list[str] = []
        self._tracing: set[str] = set()
        try:
            self.transport = background.run(LineTransport.popen(
                argv, stderr=subprocess.PIPE, limit=MAX_LINE, on_line=self._watch))
        except EngineError as error:
            raise CheckSetupError(str(error)) from None

    def _watch(self, where: str, line: str) -> None:
        if "Traceback" in line:
            self.tracebacks.append(f"{where}: {clip(line)}")
            self._tracing.add(where)
        elif where in self._tracing and line[:1].strip():
            # The exception line that ends a traceback says more than its first line.
            self.tracebacks[-1] = f"{where}: traceback ending {clip(line)!r}"
            self._tracing.discard(where)

    # -- writing ------------------------------------------------------------------------------
    def send(self, line: str) -> None:
        self.send_bytes(line.encode("utf-8", "replace"), shown=line)

    def send_bytes(self, data: bytes, shown: str | None = None) -> None:
        """Bytes as they are, invalid UTF-8 included, then a newline."""
        self.last_sent = repr(data) if shown is None else shown
        try:
            self.background.call(self.transport.send_bytes, data)
        except EngineTerminatedError:
            raise Gone(self.gone_text()) from None

    # -- reading ------------------------------------------------------------------------------
    def read(self, deadline: float, seconds: float | None = None) -> str:
        """The next line before ``deadline`` (``seconds`` after the command, for the message)."""
        try:
            return self.background.run(self.transport.read_line(deadline))
        except EngineTimeoutError:
            waited = self.timeout if seconds is None else seconds
            raise Timeout(f"no answer within {waited:g} s to {clip(self.last_sent, 80)!r}") from None
        except EngineTerminatedError:
            raise Gone(self.gone_text()) from None
        except EngineProtocolError as error:
            raise Gone(f"{error} after {clip(self.last_sent, 80)!r}") from None

    def until(self, accept: Callable[[str], bool], timeout: float | None = None) -> tuple[str, list[str]]:
        """The first line ``accept`` takes, and the lines before it; until a search has been
        answered, within :data:`FIRST_SEARCH_S` at least."""
        seconds = self.timeout if timeout is None else timeout
        if not self.searched:
            seconds = max(seconds, FIRST_SEARCH_S)
        deadline = time.monotonic() + seconds
        before: list[str] = []
        while True:
            line = self.read(deadline, seconds)
            if accept(line):
                return line, before
            before.append(line)

    def sync(self) -> list[str]:
        """``isready`` answered by ``readyok``: the lines the engine printed before it."""
        self.send("isready")
        _, before = self.until(lambda line: line.strip() == "readyok")
        return before

    # -- the process --------------------------------------------------------------------------
    def alive(self) -> bool:
        return self.transport.alive()

    def wait(self, timeout: float) -> int | None:
        """The exit status, or None if the engine still runs after ``timeout`` seconds."""
        return self.background.run(self.transport.wait(timeout))

    def gone_text(self) -> str:
        status = self.wait(1.0)
        text = "engine closed its output" if status is None else f"engine exited with status {status}"
        if self.last_sent:
            text += f" after {clip(self.last_sent, 80)!r}"
        if self.transport.stderr_tail:
            text += f"; stderr: {clip(self.transport.stderr_tail[-1], 120)!r}"
        return text

    def kill(self) -> None:
        self.background.run(self.transport.kill())

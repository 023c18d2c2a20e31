"""The line port (``gammon serve --pbm-port N``): one command a line, one answer ending in ``.``.

An answer line that begins with ``.`` is sent with one more ``.`` in front (as SMTP does),
so the line holding a single ``.`` always ends the answer. A line over
:data:`~gammon.server.pbm.language.MAX_LINE` characters, or not UTF-8, gets an error answer
and the connection goes on; a connection idle for :data:`IDLE_SECONDS` is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from .executor import Answer, Host, run
from .language import MAX_LINE

log = logging.getLogger("gammon.server.pbm")
IDLE_SECONDS = 600.0
_TOO_LONG = object()


def framed(answer: Answer) -> bytes:
    """The answer as sent on the line port: its lines, dot-stuffed, then a line with a single dot."""
    lines = ["." + line if line.startswith(".") else line for line in answer.text.split("\n")]
    return ("\n".join(lines) + "\n.\n").encode("utf-8")


async def _read_line(reader: asyncio.StreamReader) -> bytes | object | None:
    """The next line without its ending; _TOO_LONG for a line over the limit; None at the end."""
    try:
        return (await reader.readuntil(b"\n")).rstrip(b"\r\n")
    except asyncio.IncompleteReadError as end:
        return end.partial.rstrip(b"\r\n") if end.partial.strip() else None
    except asyncio.LimitOverrunError as over:
        await reader.readexactly(over.consumed)
        while True:  # drop the rest of the long line
            try:
                await reader.readuntil(b"\n")
                return _TOO_LONG
            except asyncio.LimitOverrunError as more:
                await reader.readexactly(more.consumed)
            except asyncio.IncompleteReadError:
                return _TOO_LONG


async def serve_lines(host: Host, address: str, port: int, *, shared: bool = False) -> asyncio.Server:
    """Listen on ``address:port``; each connection's commands run one after another. ``shared``:
    several server processes listen on the port together (``--workers``)."""

    async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        client = peer[0] if isinstance(peer, tuple) else "line"
        try:
            while True:
                line = await asyncio.wait_for(_read_line(reader), IDLE_SECONDS)
                if line is None:
                    break
                if line is _TOO_LONG:
                    answer = Answer(f"error: the command is over {MAX_LINE} characters; nothing was done", False)
                else:
                    try:
                        text = line.decode("utf-8") if isinstance(line, bytes) else ""
                    except UnicodeDecodeError:
                        answer = Answer("error: the command is not UTF-8 text; nothing was done", False)
                    else:
                        if not text.strip():
                            continue
                        answer = await run(host, text, client)
                writer.write(framed(answer))
                await writer.drain()
        except (TimeoutError, ConnectionError):
            pass
        except Exception:  # never let one connection take the port down
            log.exception("play-by-mail connection failed")
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    return await asyncio.start_server(connection, address, port, limit=4 * MAX_LINE, reuse_port=shared)
